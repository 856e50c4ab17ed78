/**
 * Every numeric option the library shares with its CLI is held to the CLI's bounds (bounds.ts,
 * the one place both read): a value the CLI refuses is INVALID_ARGUMENT from the library, before
 * any work. `timeoutMs: 3e9` above all, which Node would cap to a 1 ms timer (every pair
 * DECODE_TIMEOUT).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { checkBounded, OPTION_BOUNDS, withinBounds } from '../src/bounds.js';
import { compare } from '../src/compare.js';
import { merge } from '../src/shard/merge.js';
import { calibrate } from '../src/calibrate/calibrate.js';
import { analyseClip } from '../src/pool/analyse-clip.js';
import { createMeasurePool } from '../src/pool/pool.js';
import { openVerifiedRun } from '../src/archive/verify.js';
import { checkRunMedia } from '../src/archive/run-media.js';
import { analyseRunClips } from '../src/archive/run-clips.js';
import { ProcessScope } from '../src/media/process.js';
import { measurePair } from '../src/pool/measure-pair.js';
import { extractAudio, extractFrame } from '../src/media/frames.js';

const FIX = fileURLToPath(new URL('../../../fixtures/runs/', import.meta.url));
const H200 = path.join(FIX, 'h200');
const B200 = path.join(FIX, 'b200');
const CLIP = path.join(H200, 'media', 'measurement-r000-c000.mp4');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-bounds-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const BAD_TIMEOUTS = [3e9, 2_147_483_648, 0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY];
const BAD_THREADS = [0, 257, 1.5, -1, Number.NaN];
const invalid = { code: 'INVALID_ARGUMENT' };

describe('the shared bounds', () => {
  it('are the CLI\'s: threads 1 to 256, timeoutMs 1 to 2^31 - 1 ms, whole numbers', () => {
    expect(OPTION_BOUNDS).toEqual({ threads: { min: 1, max: 256 }, timeoutMs: { min: 1, max: 2 ** 31 - 1 } });
    for (const ok of [1, 256]) expect(withinBounds('threads', ok)).toBe(true);
    for (const ok of [1, 2 ** 31 - 1]) expect(withinBounds('timeoutMs', ok)).toBe(true);
    for (const bad of BAD_THREADS) expect(() => checkBounded('threads', bad)).toThrow(/options\.threads/);
    for (const bad of BAD_TIMEOUTS) expect(() => checkBounded('timeoutMs', bad)).toThrow(/an integer from 1 to 2147483647 for options\.timeoutMs/);
    expect(() => checkBounded('timeoutMs', undefined)).not.toThrow();
  });

  it('compare, merge and calibrate refuse an out-of-bounds timeoutMs or threads before any work', async () => {
    const out = path.join(tmp, 'out');
    for (const timeoutMs of BAD_TIMEOUTS) {
      await expect(compare(H200, [B200], { out, timeoutMs }), String(timeoutMs)).rejects.toMatchObject(invalid);
      await expect(merge(H200, [B200], { out, partials: [tmp], timeoutMs }), String(timeoutMs)).rejects.toMatchObject(invalid);
      await expect(calibrate([H200], { timeoutMs }), String(timeoutMs)).rejects.toMatchObject(invalid);
    }
    for (const threads of BAD_THREADS) {
      await expect(compare(H200, [B200], { out, threads }), String(threads)).rejects.toMatchObject(invalid);
      await expect(merge(H200, [B200], { out, partials: [tmp], threads }), String(threads)).rejects.toMatchObject(invalid);
      await expect(calibrate([H200], { threads }), String(threads)).rejects.toMatchObject(invalid);
    }
  });

  it('analyseClip, checkRunMedia, analyseRunClips, the pool and a child process refuse them too', async () => {
    for (const timeoutMs of BAD_TIMEOUTS) {
      await expect(analyseClip(CLIP, { timeoutMs }), String(timeoutMs)).rejects.toMatchObject(invalid);
      await expect(measurePair(CLIP, CLIP, { timeoutMs }), String(timeoutMs)).rejects.toMatchObject(invalid);
      await expect(extractFrame(CLIP, 0, { width: 112, height: 64 }, { timeoutMs }), String(timeoutMs)).rejects.toMatchObject(invalid);
      await expect(extractAudio(CLIP, { channels: 2, maxSamples: 10 }, { timeoutMs }), String(timeoutMs)).rejects.toMatchObject(invalid);
    }
    expect(() => createMeasurePool({ timeoutMs: 3e9 })).toThrow(/options\.timeoutMs/);
    expect(() => createMeasurePool({ threads: 257 })).toThrow(/options\.threads/);
    const run = await openVerifiedRun(H200);
    try {
      await expect(checkRunMedia(run, { timeoutMs: 3e9 })).rejects.toMatchObject(invalid);
      await expect(checkRunMedia(run, { concurrency: 0 })).rejects.toMatchObject({ ...invalid, message: expect.stringMatching(/options\.concurrency/) });
      await expect(analyseRunClips(run, { timeoutMs: 3e9 })).rejects.toMatchObject(invalid);
    } finally {
      await run.close();
    }
    const scope = new ProcessScope();
    try {
      expect(() => scope.spawn('true', [], { label: 'true', pipes: [], timeoutMs: 3e9 })).toThrow(/options\.timeoutMs/);
    } finally {
      await scope.close();
    }
  });
});
