/**
 * Shards and plain compare agree on a clip whose frame size changes mid-stream (issue: `compare --shard`
 * died with FRAME_NOT_FOUND where compare wrote the bundle). The hostile clip is made here: two H.264
 * segments, 6 frames at 112x64 then 6 at 96x48, in one MP4 stream with the fixture clip's audio, so it
 * keeps the plan's size (the first frame's) and frame count. Both sides of one pair get such a clip,
 * the candidate's second half noisy, so the worst frame lies after the size change: the stills are
 * taken from past it. One candidate run of two cases (the suite's shared smallRuns, copied), to keep it
 * small: the hostile pair is the one that counts, and the bundle compare writes is built four times.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compare } from '../../src/compare.js';
import { resolveFfmpeg } from '../../src/media/ffmpeg.js';
import { extractFrame } from '../../src/media/frames.js';
import { merge } from '../../src/shard/merge.js';
import { reseal, snapshot } from '../../../../test/e2e/helpers.js';
import { runDir, smallRuns } from '../../../../test/shared/fixtures.js';
import { copyShared } from '../../../../test/shared/store.js';

const SLOT = 'measurement-r000-c001';
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-geometry-'));
const at = (...p: string[]): string => path.join(tmp, ...p);
const BASE = at('h200');
const CAND = at('b200');
const saved = process.env.SOURCE_DATE_EPOCH;
const run = promisify(execFile);

/** One MP4 stream of 6 frames at 112x64 then 6 at 96x48 (12 fps), with `audioFrom`'s audio. */
async function sizeChangingClip(ffmpeg: string, out: string, audioFrom: string, noisy: boolean): Promise<void> {
  const segment = async (size: string, file: string, noise: boolean): Promise<void> => {
    const vf = noise ? ['-vf', 'noise=alls=40:allf=t'] : [];
    await run(ffmpeg, ['-nostdin', '-v', 'error', '-y', '-f', 'lavfi', '-i', `testsrc2=size=${size}:rate=12:duration=0.5`, ...vf,
      '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-f', 'h264', file]);
  };
  const first = `${out}.a.h264`;
  const second = `${out}.b.h264`;
  await segment('112x64', first, false);
  await segment('96x48', second, noisy);
  // Annex B streams concatenate: the second segment's own SPS changes the size in-band.
  const joined = `${out}.h264`;
  writeFileSync(joined, Buffer.concat([readFileSync(first), readFileSync(second)]));
  await run(ffmpeg, ['-nostdin', '-v', 'error', '-y', '-r', '12', '-i', joined, '-i', audioFrom, '-map', '0:v', '-map', '1:a', '-c', 'copy', out]);
  for (const f of [first, second, joined]) rmSync(f);
}

beforeAll(async () => {
  process.env.SOURCE_DATE_EPOCH = '1764450000';
  const { ffmpeg } = await resolveFfmpeg();
  const small = await smallRuns();
  for (const [run, noisy] of [['h200', false], ['b200', true]] as const) {
    const from = runDir(small, run.toUpperCase());
    copyShared(from, at(run));
    const clip = at(run, 'media', `${SLOT}.mp4`);
    await sizeChangingClip(ffmpeg.path, at(`${run}.mp4`), path.join(from, 'media', `${SLOT}.mp4`), noisy);
    cpSync(at(`${run}.mp4`), clip);
    reseal(at(run));
  }
  await compare(BASE, [CAND], { out: at('one'), threads: 2 });
  for (const k of [0, 1]) await compare(BASE, [CAND], { out: at('p', String(k)), shard: { index: k, count: 2 }, threads: 2 });
  await merge(BASE, [CAND], { partials: [at('p')], out: at('merged'), remeasure: 'all', threads: 2 });
}, 300_000);

afterAll(() => {
  if (saved === undefined) delete process.env.SOURCE_DATE_EPOCH;
  else process.env.SOURCE_DATE_EPOCH = saved;
  rmSync(tmp, { recursive: true, force: true });
});

interface PairLine {
  slot_id: string;
  video: { width: number; height: number; ssim?: { worst_frame: number } } | null;
  files: Record<string, string>;
  clips?: { baseline: { reasons: { code: string }[] } };
}

describe('a clip whose frame size changes mid-stream', () => {
  it('is measured, flagged CLIP_GEOMETRY_CHANGED, and its worst frame lies after the change', () => {
    const report = JSON.parse(readFileSync(at('one', 'report.json'), 'utf8')) as { comparisons: { pairs: PairLine[] }[] };
    const pair = report.comparisons[0]!.pairs.find((p) => p.slot_id === SLOT)!;
    expect(pair.video).toMatchObject({ width: 112, height: 64 });
    expect(pair.clips!.baseline.reasons.map((r) => r.code)).toContain('CLIP_GEOMETRY_CHANGED');
    expect(pair.video!.ssim!.worst_frame).toBeGreaterThanOrEqual(6);
    // compare wrote the stills of that frame (from its measuring decode).
    expect(Object.keys(pair.files)).toEqual(expect.arrayContaining(['baseline_worst_webp', 'candidate_worst_webp']));
  });

  it('shard 0/2 and 1/2 write their partials, and their merge is byte for byte compare\'s bundle', () => {
    expect(snapshot(at('merged'))).toEqual(snapshot(at('one')));
  });

  it('extractFrame takes frame n of the measuring decode past the change: the frame compare measured, at the measured size', async () => {
    const size = { width: 112, height: 64 };
    const frames = await Promise.all([5, 6, 11].map((n) => extractFrame(at('b200.mp4'), n, size)));
    for (const f of frames) expect([f.width, f.height, f.y.length]).toEqual([112, 64, 112 * 64]);
    // Three different pictures (noise on every frame after the change), none of them missing.
    expect(new Set(frames.map((f) => Buffer.from(f.y).toString('base64'))).size).toBe(3);
    await expect(extractFrame(at('b200.mp4'), 12, size)).rejects.toMatchObject({ code: 'FRAME_NOT_FOUND' });
  });
});
