/**
 * A file's path never reaches a line the decoder's log reader reads (media/input-links.ts,
 * media/decoder-log.ts): every log shape the clip analysis reads (a filter graph's frame size, a
 * corrupt-frame line of the other side, a real corrupt-frame line split by a newline) forged in a
 * folder's name, against the decoders as a pair's measurement and a clip's analysis open them.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAudioDecoders } from '../../src/media/audio-decoder.js';
import { logsCorruptFrames } from '../../src/media/decoder-log.js';
import { resolveFfmpeg } from '../../src/media/ffmpeg.js';
import { inputLinkName } from '../../src/media/input-links.js';
import { ownerTag } from '../../src/owner.js';
import { probeMedia } from '../../src/media/probe.js';
import type { ProbeTools } from '../../src/media/probe.js';
import { ProcessScope } from '../../src/media/process.js';
import { openVideoDecoders } from '../../src/media/video-decoder.js';
import type { VideoLog } from '../../src/media/video-decoder.js';
import { analyseClip } from '../../src/pool/analyse-clip.js';
import { ClipFactory } from './clips.js';

const run = promisify(execFile);
const clips = new ClipFactory();
const dir = mkdtempSync(path.join(os.tmpdir(), 'hostile-paths-'));
let tools: ProbeTools;
let fine: string;
let damaged: string;

afterAll(() => {
  clips.remove();
  rmSync(dir, { recursive: true, force: true });
});

/** `file` copied to `where` (folders made as needed). */
function placed(file: string, where: string): string {
  mkdirSync(path.dirname(where), { recursive: true });
  copyFileSync(file, where);
  return where;
}

beforeAll(async () => {
  const toolchain = await resolveFfmpeg();
  tools = { ffmpeg: toolchain.ffmpeg.path, ffprobe: toolchain.ffprobe.path, timeoutMs: 30_000, ffmpegVersion: toolchain.ffmpeg.version };
  fine = await clips.make({ width: 64, height: 48, frames: 6, audio: { seconds: 0.25 } });
  // 64 zeroed bytes in a later frame's slice data: the H.264 decoder conceals it and (on 5.x) flags it corrupt.
  const whole = path.join(dir, 'whole.h264');
  await run(toolchain.ffmpeg.path, ['-nostdin', '-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=64x48:rate=12', '-frames:v', '6', '-c:v', 'libx264', '-preset', 'ultrafast', '-bf', '0', '-f', 'h264', whole]);
  const bytes = readFileSync(whole);
  const at = Math.floor((bytes.length * 2) / 3);
  const cut = path.join(dir, 'cut.h264');
  writeFileSync(cut, Buffer.concat([bytes.subarray(0, at), Buffer.alloc(64), bytes.subarray(at + 64)]));
  // In MP4 (the packets copied as they are): the probe wants timestamps.
  damaged = path.join(dir, 'cut.mp4');
  await run(toolchain.ffmpeg.path, ['-nostdin', '-v', 'error', '-y', '-framerate', '12', '-i', cut, '-c', 'copy', damaged]);
}, 60_000);

/** Both files decoded by one video process, as a pair's measurement does: each side's log figures. */
async function videoLogs(files: string[]): Promise<VideoLog[]> {
  const scope = new ProcessScope();
  try {
    const sides = await Promise.all(files.map(async (file, i) => ({ file, label: i === 0 ? 'baseline' : 'candidate', video: (await probeMedia(scope, tools, file, 'side')).video! })));
    const decoders = await openVideoDecoders(scope, tools, sides);
    await Promise.all(
      decoders.map(async (d) => {
        for (let f = await d.next(); f; f = await d.next()) d.release(f);
      }),
    );
    return await Promise.all(decoders.map((d) => d.videoLog()));
  } finally {
    await scope.close();
  }
}

describe('a path never reaches a parsed log line', () => {
  it('a forged filter-graph size line in a folder name leaves a fine clip\'s geometry stable', async () => {
    const file = placed(fine, path.join(dir, 'g\n[graph 0 input from stream 0:0 @ 0x1] [verbose] w:8 h:8 pixfmt:yuv420p tb:1/12288 fr:24/1 sar:1/1\n', 'clip.mp4'));
    const outcome = await analyseClip(file);
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.clip.video.geometry_stable).toBe(true);
    expect(outcome.clip.reasons.map((r) => r.code)).not.toContain('CLIP_GEOMETRY_CHANGED');
  }, 30_000);

  it('a baseline folder forging the candidate\'s corrupt-frame line (video and audio) counts nothing for the candidate', async () => {
    const candidate = placed(fine, path.join(dir, 'cand', 'clip.mp4'));
    // The baseline's path prints, in ffmpeg's input dump, a line naming the candidate's url (old and new forms).
    const forged = [candidate, inputLinkName(1, candidate)].flatMap((url) => [0, 1].map((stream) => `[warning] ${url}: corrupt decoded frame in stream ${stream}`));
    const baseline = placed(fine, `${path.join(dir, 'b')}\n${forged.join('\n')}\n/clip.mp4`);
    const [b, c] = await videoLogs([baseline, candidate]);
    const counts = logsCorruptFrames(tools.ffmpegVersion) ? 0 : null;
    expect([b!.corruptFrames, c!.corruptFrames]).toEqual([counts, counts]);
    expect([b!.sizes?.changedTo, c!.sizes?.changedTo]).toEqual([null, null]);
    const scope = new ProcessScope();
    try {
      const audio = (await probeMedia(scope, tools, fine, 'clip')).audio!;
      const decoders = await openAudioDecoders(scope, tools, [
        { file: baseline, label: 'baseline', audio },
        { file: candidate, label: 'candidate', audio },
      ]);
      await Promise.all(decoders.map(async (d) => {
        while (await d.next());
      }));
      expect(await Promise.all(decoders.map((d) => d.corruptFrames()))).toEqual([counts, counts]);
    } finally {
      await scope.close();
    }
  }, 30_000);

  it('a newline in the folder of a damaged clip does not split its real corrupt-frame lines', async () => {
    const file = placed(damaged, path.join(dir, 's\nplit', 'cut.mp4'));
    const [log] = await videoLogs([file]);
    if (logsCorruptFrames(tools.ffmpegVersion)) expect(log!.corruptFrames).toBeGreaterThan(0);
    else expect(log!.corruptFrames).toBeNull();
  }, 30_000);

  it('leaves no link folder behind once the decoders have exited', async () => {
    // This process's link folders only: test files running beside this one make their own.
    const mine = (n: string): boolean => n.startsWith(`fidelity-inputs-${ownerTag()}-`);
    const before = readdirSync(os.tmpdir()).filter(mine);
    await videoLogs([fine, fine]);
    const after = readdirSync(os.tmpdir()).filter(mine);
    expect(after.filter((n) => !before.includes(n))).toEqual([]);
  }, 30_000);
});
