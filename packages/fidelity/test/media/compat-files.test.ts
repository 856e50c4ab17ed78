/**
 * The compatibility rules on real files (docs/media.md, "Decoding"): each pair
 * here has the same coded pictures and samples, or nearly, and differs in
 * what a player does with them (audio later against the video, a stream
 * more, a turned picture, another edit list), so a wrong verdict would be
 * `passed`. Clips are made with ffmpeg, and the boxes rewritten by
 * mp4-patch.ts, in a temporary folder.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeMedia } from '../../src/media/probe.js';
import { ProcessScope } from '../../src/media/process.js';
import { measurePair } from '../../src/pool/measure-pair.js';
import type { MeasureOutcome } from '../../src/schemas/measurement.js';
import { ClipFactory, ffmpegPath, ffprobePath } from './clips.js';
import { ROTATE_90, changeEdit, delayTrack, setDisplayMatrix } from './mp4-patch.js';

const run = promisify(execFile);
const clips = new ClipFactory();
let ffmpeg: string;
let base: string;
const at = (name: string): string => path.join(clips.dir, name);

beforeAll(async () => {
  ffmpeg = await ffmpegPath();
  base = await clips.make({ frames: 24 }, 'base');
});
afterAll(() => clips.remove());

async function ff(args: string[]): Promise<void> {
  await run(ffmpeg, ['-nostdin', '-hide_banner', '-v', 'error', '-y', ...args]);
}

/** SHA-256 of the decoded audio: "the same samples" checked, not assumed. */
async function audioDigest(file: string): Promise<string> {
  const { stdout } = await run(ffmpeg, ['-v', 'error', '-i', file, '-map', '0:a', '-c:a', 'pcm_f32le', '-f', 'f32le', '-'], {
    encoding: 'buffer',
    maxBuffer: 64 << 20,
  });
  return createHash('sha256').update(stdout).digest('hex');
}

function failure(outcome: MeasureOutcome): { code: string; message: string; side?: string } {
  if (outcome.ok) throw new Error('expected the pair to be refused, it was measured');
  return outcome.failure;
}

/** A MOV with PCM audio: its index (nb_frames) counts samples, not packets. */
async function pcmMov(name: string): Promise<string> {
  const file = at(name);
  await ff([
    ...['-f', 'lavfi', '-i', 'testsrc2=size=128x72:rate=24,trim=end_frame=24,setpts=PTS-STARTPTS'],
    ...['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=32000:duration=1'],
    ...['-map', '0:v', '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-map', '1:a', '-ac', '2', '-c:a', 'pcm_s16le', file],
  ]);
  return file;
}

describe('audio start relative to the video', () => {
  it('measures identical PCM-in-MOV files (not "truncated": the index counts samples there)', async () => {
    const mov = await pcmMov('pcm.mov');
    const outcome = await measurePair(mov, mov);
    if (!outcome.ok) throw new Error(outcome.failure.message);
    expect(outcome.measurement.audio).toMatchObject({ identical: true, sample_rate: 32000 });
    expect(outcome.measurement.video.identical).toBe(true);
  });

  it('still refuses a PCM-in-MOV file cut short as UNDECODABLE, naming its side', async () => {
    const mov = await pcmMov('pcm-whole.mov');
    const fast = at('pcm-fast.mov');
    await ff(['-i', mov, '-c', 'copy', '-movflags', '+faststart', fast]);
    const bytes = readFileSync(fast);
    const cut = at('pcm-cut.mov');
    writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
    expect(failure(await measurePair(mov, cut))).toMatchObject({ code: 'UNDECODABLE', side: 'candidate' });
  });

  it('refuses the same PCM samples starting 0.5 s later (remuxed with -itsoffset): INCOMPATIBLE_AUDIO_START with both values', async () => {
    const mov = await pcmMov('pcm-a.mov');
    const late = at('pcm-late.mov');
    await ff(['-i', mov, '-itsoffset', '0.5', '-i', mov, '-map', '0:v', '-map', '1:a', '-c', 'copy', late]);
    expect(await audioDigest(late)).toBe(await audioDigest(mov));
    const f = failure(await measurePair(mov, late));
    expect(f.code).toBe('INCOMPATIBLE_AUDIO_START');
    expect(f.message).toMatch(/baseline 0\.000000 s, candidate 0\.500000 s/);
  });

  it('refuses the same AAC samples behind a 0.5 s delay in the audio edit list, in either direction', async () => {
    const late = at('aac-late.mp4');
    delayTrack(base, late, 'soun', 500);
    expect(await audioDigest(late)).toBe(await audioDigest(base));
    const f = failure(await measurePair(base, late));
    expect(f).toMatchObject({ code: 'INCOMPATIBLE_AUDIO_START', message: expect.stringMatching(/baseline 0\.000000 s, candidate 0\.500000 s/) });
    expect(failure(await measurePair(late, base)).message).toMatch(/baseline 0\.500000 s, candidate 0\.000000 s/);
    // The same delay on both sides is the same presentation.
    const again = await measurePair(late, late);
    expect(again.ok && again.measurement.audio?.identical).toBe(true);
  });
});

describe('stream counts', () => {
  let twoAudio: string;
  beforeAll(async () => {
    twoAudio = at('two-audio.mp4');
    await ff([
      ...['-i', base, '-f', 'lavfi', '-i', 'sine=frequency=880:sample_rate=32000:duration=1'],
      ...['-map', '0:v', '-map', '0:a', '-map', '1:a', '-c:v', 'copy', '-c:a:0', 'copy', '-c:a:1', 'aac', '-ac:a:1', '2', twoAudio],
    ]);
  });

  it('refuses a candidate with a second, different audio stream: EXTRA_AUDIO_STREAM on the candidate', async () => {
    const f = failure(await measurePair(base, twoAudio));
    expect(f).toMatchObject({ code: 'EXTRA_AUDIO_STREAM', side: 'candidate' });
    expect(f.message).toMatch(/baseline #0 video \(h264\), #1 audio \(aac\); candidate #0 video \(h264\), #1 audio \(aac\), #2 audio \(aac\)/);
    expect(failure(await measurePair(twoAudio, base))).toMatchObject({ code: 'EXTRA_AUDIO_STREAM', side: 'baseline' });
    // Only one of two would be measured, even when both sides have them.
    expect(failure(await measurePair(twoAudio, twoAudio))).toMatchObject({ code: 'EXTRA_AUDIO_STREAM', side: 'both' });
  });

  it('refuses a second video stream and a subtitle stream', async () => {
    const twoVideo = at('two-video.mp4');
    await ff(['-i', base, '-map', '0:v', '-map', '0:v', '-map', '0:a', '-c', 'copy', twoVideo]);
    expect(failure(await measurePair(base, twoVideo))).toMatchObject({ code: 'EXTRA_VIDEO_STREAM', side: 'candidate' });
    const srt = at('subs.srt');
    writeFileSync(srt, '1\n00:00:00,000 --> 00:00:00,500\nhello\n\n');
    const subtitled = at('subtitled.mp4');
    await ff(['-i', base, '-i', srt, '-map', '0:v', '-map', '0:a', '-map', '1:s', '-c', 'copy', '-c:s', 'mov_text', subtitled]);
    expect(failure(await measurePair(subtitled, base))).toMatchObject({ code: 'EXTRA_STREAM', side: 'baseline', message: expect.stringContaining('subtitle') });
  });
});

describe('what a player shows', () => {
  it('refuses a candidate turned by its display matrix, with both values', async () => {
    const turned = at('turned.mp4');
    setDisplayMatrix(base, turned, 'vide', ROTATE_90);
    const scope = new ProcessScope();
    const probe = await probeMedia(scope, { ffmpeg, ffprobe: await ffprobePath(), timeoutMs: 60_000 }, turned, 'candidate').finally(() => scope.close());
    expect(Math.abs(probe.video?.rotation ?? 0)).toBe(90);
    const f = failure(await measurePair(base, turned));
    expect(f.code).toBe('INCOMPATIBLE_DISPLAY_MATRIX');
    expect(f.message).toMatch(/baseline none \(as coded\), candidate rotation -?90 degrees, matrix \[/);
  });

  it('refuses a candidate whose pixels a player stretches (sample aspect ratio), with both values', async () => {
    const wide = at('wide.mp4');
    await ff(['-i', base, '-c', 'copy', '-aspect', '2:1', wide]);
    const f = failure(await measurePair(base, wide));
    expect(f).toMatchObject({ code: 'INCOMPATIBLE_ASPECT_RATIO', message: expect.stringMatching(/baseline 1:1, candidate 9:8/) });
  });

  it('refuses an edit list that plays the video at half speed, or shows its last frame shorter', async () => {
    const slow = at('slow.mp4');
    changeEdit(base, slow, 'vide', { rate: 0x8000 });
    const f = failure(await measurePair(base, slow));
    expect(f).toMatchObject({ code: 'INCOMPATIBLE_VIDEO_EDIT_LIST', message: expect.stringMatching(/baseline show 1\.000000 s; candidate show 1\.000000 s at rate 0\.5/) });
    // 24 frames at 24 fps: 980 ms still shows all 24 frames, the last one 20 ms shorter.
    const short = at('short.mp4');
    changeEdit(base, short, 'vide', { duration: 980 });
    expect(failure(await measurePair(base, short))).toMatchObject({ code: 'INCOMPATIBLE_VIDEO_EDIT_LIST', message: expect.stringContaining('candidate show 0.980000 s') });
  });

  it('measures a fragmented copy (no edit list, no duration in moov) against the plain file', async () => {
    const video = at('video-only.mp4');
    await ff(['-i', base, '-map', '0:v', '-c', 'copy', video]);
    const fragmented = at('fragmented.mp4');
    await ff(['-i', video, '-c', 'copy', '-movflags', 'frag_keyframe+empty_moov', fragmented]);
    const outcome = await measurePair(video, fragmented);
    if (!outcome.ok) throw new Error(outcome.failure.message);
    expect(outcome.measurement.video.identical).toBe(true);
  });

  it('reads an edit list that hides the tail as fewer frames, not as a truncated file', async () => {
    const half = at('half.mp4');
    changeEdit(base, half, 'vide', { duration: 500 });
    const f = failure(await measurePair(base, half));
    expect(f).toMatchObject({ code: 'INCOMPATIBLE_FRAME_COUNT', message: 'Frame count differs: baseline 24, candidate 12' });
  });
});

describe('which side failed', () => {
  it('names the candidate when the candidate stream ends early (cut mid-stream), not the baseline', async () => {
    // moov first (faststart), then the mdat cut short: the index lists every packet, decoding finds fewer frames.
    const fast = at('fast.mp4');
    await ff(['-i', base, '-c', 'copy', '-movflags', '+faststart', fast]);
    const bytes = readFileSync(fast);
    const cut = at('cut.mp4');
    writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length * 0.5)));
    const f = failure(await measurePair(base, cut));
    expect(f).toMatchObject({ code: 'UNDECODABLE', side: 'candidate' });
    expect(f.message).toMatch(/^candidate: /);
    expect(failure(await measurePair(cut, base))).toMatchObject({ code: 'UNDECODABLE', side: 'baseline', message: expect.stringMatching(/^baseline: /) });
  });
});

describe('frames smaller than the metric windows', () => {
  it('makes an 8x8 pair FRAME_TOO_SMALL for that pair, as an outcome and not an exception', async () => {
    const tiny = await clips.make({ width: 8, height: 8, frames: 4 }, 'tiny');
    const f = failure(await measurePair(tiny, tiny));
    expect(f).toMatchObject({ code: 'FRAME_TOO_SMALL', side: 'both', message: expect.stringContaining('8x8') });
  });
});
