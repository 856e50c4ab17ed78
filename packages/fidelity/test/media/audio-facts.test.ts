/**
 * The audio's sample count and start as the video decoder's process reports
 * them (media/audio-facts.ts), against ffprobe's own decoder frame by frame:
 * the sum of `nb_samples` and the first frame's `best_effort_timestamp`, on a
 * plain AAC clip, the same clip remuxed 0.5 s late (-itsoffset), its audio
 * alone delayed, and PCM in MOV. The video planes are unchanged by -copyts.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeMedia } from '../../src/media/probe.js';
import type { ProbeTools } from '../../src/media/probe.js';
import { ProcessScope } from '../../src/media/process.js';
import { openVideoDecoder } from '../../src/media/video-decoder.js';
import { ClipFactory, ffmpegPath, ffprobePath } from './clips.js';

const run = promisify(execFile);
const clips = new ClipFactory();
let tools: ProbeTools;
beforeAll(async () => {
  tools = { ffmpeg: await ffmpegPath(), ffprobe: await ffprobePath(), timeoutMs: 60_000 };
});
afterAll(() => clips.remove());

/** ffprobe's decoder: every audio frame's sample count and the first frame's timestamp, in the stream's time base. */
async function ffprobeAudio(file: string): Promise<{ samples: number; start: number; timeBase: string }> {
  const frames = (await run(tools.ffprobe, ['-v', 'error', '-select_streams', 'a:0', '-show_entries', 'frame=nb_samples,best_effort_timestamp', '-of', 'csv=p=0', file])).stdout;
  const rows = frames.split('\n').filter(Boolean).map((l) => l.replace(/,+$/, '').split(','));
  const timeBase = (await run(tools.ffprobe, ['-v', 'error', '-select_streams', 'a:0', '-show_entries', 'stream=time_base', '-of', 'csv=p=0', file])).stdout.trim();
  // csv order follows ffprobe's field order: best_effort_timestamp comes before nb_samples.
  return { samples: rows.reduce((sum, r) => sum + Number(r[1]), 0), start: Number(rows[0]![0]), timeBase };
}

async function decodeWithFacts(file: string, withFacts = true) {
  const scope = new ProcessScope();
  try {
    const p = await probeMedia(scope, tools, file, 'baseline');
    const decoder = await openVideoDecoder(scope, tools, file, 'baseline', p.video!, { audio: withFacts ? p.audio : null });
    const planes = createHash('sha256');
    let frames = 0;
    for (let f = await decoder.next(); f; f = await decoder.next()) {
      planes.update(f.y).update(f.u).update(f.v);
      decoder.release(f);
      frames++;
    }
    await decoder.finished();
    return { probe: p, facts: await decoder.audioFacts(), frames, planes: planes.digest('hex') };
  } finally {
    await scope.close();
  }
}

describe('audio facts from the video decoder', () => {
  it('count every decoded sample and read the first timestamp as ffprobe\'s decoder does, also when the audio starts late', async () => {
    const base = await clips.make({ frames: 24, audio: { sampleRate: 32000, channels: 2, seconds: 1 } });
    const late = path.join(clips.dir, 'late.mp4');
    await run(tools.ffmpeg, ['-v', 'error', '-y', '-itsoffset', '0.5', '-i', base, '-map', '0', '-c', 'copy', late]);
    const audioLate = path.join(clips.dir, 'audio-late.mp4');
    await run(tools.ffmpeg, ['-v', 'error', '-y', '-i', base, '-itsoffset', '0.25', '-i', base, '-map', '0:v', '-map', '1:a', '-c', 'copy', audioLate]);
    const pcm = path.join(clips.dir, 'pcm.mov');
    await run(tools.ffmpeg, ['-v', 'error', '-y', '-i', base, '-map', '0', '-c:v', 'copy', '-c:a', 'pcm_s16le', pcm]);
    // The pictures without the summary (and without -copyts): what every decode below must give.
    const plain = await decodeWithFacts(base, false);
    expect(plain.facts).toBeNull();
    for (const file of [base, late, audioLate, pcm]) {
      const got = await decodeWithFacts(file);
      const want = await ffprobeAudio(file);
      expect(got.facts?.samples, file).toBe(want.samples);
      // The decoder's clock is 1 / sample rate; the stream's time base here is the same.
      expect(want.timeBase).toBe('1/32000');
      expect(got.facts, file).toMatchObject({ startPts: want.start, timeBase: { num: 1, den: 32000 } });
      // -copyts changes no decoded picture.
      expect([got.frames, got.planes], file).toEqual([plain.frames, plain.planes]);
    }
    expect((await decodeWithFacts(audioLate)).facts?.startPts).toBeGreaterThan(0);
  });

  it('gives none without audio, and the decoder has no fd 5 then', async () => {
    const file = await clips.make({ frames: 6, audio: null });
    const got = await decodeWithFacts(file);
    expect(got.facts).toBeNull();
    const scope = new ProcessScope();
    try {
      const p = await probeMedia(scope, tools, file, 'baseline');
      const decoder = await openVideoDecoder(scope, tools, file, 'baseline', p.video!);
      const args = decoder.child.process.spawnargs.join(' ');
      expect(args).not.toMatch(/pcm_f32le|copyts|pipe:5/);
      // The video's own frame summary (the clip analysis's timestamps) is there whatever the audio.
      expect(args).toMatch(/-c:v wrapped_avframe -vsync passthrough -enc_time_base -1 -f framecrc pipe:6/);
      await decoder.finished().catch(() => undefined);
    } finally {
      await scope.close();
    }
  });
});
