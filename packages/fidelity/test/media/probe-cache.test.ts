/**
 * Probes kept for the process (src/media/probe-cache.ts): the same sealed bytes probed by the same
 * ffprobe binary run one ffprobe in this process, whichever command asks; another binary, bytes
 * without a SHA-256, and a failed probe run it again. ffprobe is a logging wrapper around the real
 * one (test/media/wrapper.ts), so every run is counted. MP4s are read by the library's own reader
 * (media/mp4-reader.ts): verify and compare of MP4 runs start no ffprobe at all.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyRun } from '../../src/archive/verify.js';
import { checkRunMedia } from '../../src/archive/run-media.js';
import { compare } from '../../src/compare.js';
import { sha256File } from '../../src/hash.js';
import { keepProbe, keptProbe, keptProbeCount } from '../../src/media/probe-cache.js';
import { probeMedia } from '../../src/media/probe.js';
import type { MediaProbe, ProbeTools } from '../../src/media/probe.js';
import { ProcessScope } from '../../src/media/process.js';
import { loggingTools } from './wrapper.js';
import { runDir, smallRuns } from '../../../../test/shared/fixtures.js';

const RUNS = fileURLToPath(new URL('../../../../fixtures/runs/', import.meta.url));
const CLIP = path.join(RUNS, 'h200', 'media', 'measurement-r000-c000.mp4');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-probe-cache-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Probe tools whose ffprobe logs to its own file, in a folder of their own (another binary per name). */
function tools(name: string): { tools: ProbeTools; runs: () => number; ffmpeg: { ffmpegPath: string; ffprobePath: string } } {
  const log = path.join(tmp, `${name}.log`);
  writeFileSync(log, '');
  const ffmpeg = loggingTools(path.join(tmp, name), log);
  return {
    // Every file through ffprobe, MP4s too, so that each probe is a counted run.
    tools: { ffmpeg: ffmpeg.ffmpegPath, ffprobe: ffmpeg.ffprobePath, timeoutMs: 60_000, containerReader: 'ffprobe' },
    runs: () => readFileSync(log, 'utf8').split('\n').filter((l) => l.startsWith('ffprobe ')).length,
    ffmpeg,
  };
}

async function probe(t: ProbeTools, file: string, sha256?: string): Promise<MediaProbe> {
  const scope = new ProcessScope();
  try {
    return await probeMedia(scope, t, file, 'baseline', sha256);
  } finally {
    await scope.close();
  }
}

describe('probes kept for the process', () => {
  it('the same bytes and ffprobe: one run, and each caller gets its own copy with its own path', async () => {
    const t = tools('same');
    const sha = await sha256File(CLIP);
    const first = await probe(t.tools, CLIP, sha);
    const copy = path.join(tmp, 'copy.mp4');
    writeFileSync(copy, readFileSync(CLIP));
    const second = await probe(t.tools, copy, sha);
    expect(t.runs()).toBe(1);
    expect(second).toEqual({ ...first, file: copy });
    // A caller that changes its probe (measuring fills in the audio facts) changes no one else's.
    second.video!.pts[0] = -1;
    second.audio!.samples = 5;
    const third = await probe(t.tools, CLIP, sha);
    expect(third).toEqual(first);
    expect(t.runs()).toBe(1);
  });

  it('another ffprobe binary, or no SHA-256 given: probed again', async () => {
    const sha = await sha256File(CLIP);
    const a = tools('binary-a');
    const b = tools('binary-b');
    await probe(a.tools, CLIP, sha);
    await probe(b.tools, CLIP, sha);
    expect([a.runs(), b.runs()]).toEqual([1, 1]);
    await probe(a.tools, CLIP);
    await probe(a.tools, CLIP);
    expect(a.runs()).toBe(3);
  });

  it('a failed probe is not kept: the same broken bytes are probed, and refused, every time', async () => {
    const t = tools('broken');
    const garbage = path.join(tmp, 'garbage.mp4');
    writeFileSync(garbage, Buffer.alloc(4096, 7));
    const sha = await sha256File(garbage);
    for (let i = 0; i < 2; i++) await expect(probe(t.tools, garbage, sha)).rejects.toMatchObject({ code: 'UNDECODABLE' });
    expect(t.runs()).toBe(2);
  });

  it('holds at most 4,000,000 frame timestamps: the least recently used probes go first, and a larger one is not kept', async () => {
    const t = tools('bound');
    const base = await probe(t.tools, CLIP);
    const withFrames = (n: number): MediaProbe => ({ ...base, video: { ...base.video!, pts: Array.from({ length: n }, (_, i) => i), frames: n } });
    const before = keptProbeCount();
    keepProbe(t.tools.ffprobe, 'a', withFrames(1_500_000));
    keepProbe(t.tools.ffprobe, 'b', withFrames(1_500_000));
    expect(keptProbe<MediaProbe>(t.tools.ffprobe, 'a', CLIP)?.video?.frames).toBe(1_500_000); // now the most recently used
    keepProbe(t.tools.ffprobe, 'c', withFrames(1_500_000));
    expect(keptProbe<MediaProbe>(t.tools.ffprobe, 'b', CLIP)).toBeUndefined();
    expect(keptProbe<MediaProbe>(t.tools.ffprobe, 'a', CLIP)?.video?.frames).toBe(1_500_000);
    expect(keptProbe<MediaProbe>(t.tools.ffprobe, 'c', CLIP)?.video?.frames).toBe(1_500_000);
    keepProbe(t.tools.ffprobe, 'd', withFrames(4_000_001));
    expect(keptProbe<MediaProbe>(t.tools.ffprobe, 'd', CLIP)).toBeUndefined();
    expect(keptProbeCount()).toBeLessThanOrEqual(before + 2);
  });

  it('verify, then compare of MP4 runs in one process: no ffprobe at all (the MP4 reader reads them), and the bundle compare gives alone', async () => {
    const t = tools('commands');
    // The shared small runs (2 sites, 2 cases): what is counted is the same for any size.
    const small = await smallRuns();
    const runs = ['H200', 'B200'].map((site) => runDir(small, site));
    for (const run of runs) {
      const verified = await verifyRun(run);
      if (!verified.ok) throw new Error('the shared run does not verify');
      try {
        const media = await checkRunMedia(verified.run, { ffmpeg: t.ffmpeg });
        expect(media.checked).toBe(true);
      } finally {
        await verified.run.close();
      }
    }
    expect(t.runs()).toBe(0);
    const after = await compare(runs[0]!, [runs[1]!], { out: path.join(tmp, 'after-verify'), threads: 2, ffmpeg: t.ffmpeg });
    expect(t.runs()).toBe(0);
    const alone = tools('alone');
    const fresh = await compare(runs[0]!, [runs[1]!], { out: path.join(tmp, 'alone-bundle'), threads: 2, ffmpeg: alone.ffmpeg });
    expect(alone.runs()).toBe(0);
    // The decoder's path differs (two wrapper folders); every measured value and verdict is the same.
    expect(after.report.comparisons).toEqual(fresh.report.comparisons);
  }, 300_000);
});
