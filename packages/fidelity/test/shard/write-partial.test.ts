/**
 * A shard's partial takes each pair's stills and difference audio from what measuring kept
 * (WritePartialSettings.captures, pool/frame-capture.ts), as compare's bundle does: writing it
 * starts no ffmpeg or ffprobe. Without the captures the same files are extracted from the runs'
 * media again, the same bytes. ffmpeg and ffprobe are logging wrappers around the real ones, so
 * every run is counted.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIO_DIFF_SECONDS } from '../../src/bundle/assets-keys.js';
import { decoderIdentity } from '../../src/comparison/assemble.js';
import { measurePairs } from '../../src/comparison/measure.js';
import { planComparison, type ComparisonPlan } from '../../src/comparison/plan.js';
import { resolveFfmpeg } from '../../src/media/ffmpeg.js';
import type { PairCapture } from '../../src/media/frames.js';
import { resolveMetrics } from '../../src/metrics/names.js';
import { DEFAULT_POLICY } from '../../src/policy/default.js';
import { shardIndices } from '../../src/shard/spec.js';
import { writePartial } from '../../src/shard/write-partial.js';
import { SEAL_FILE } from '../../src/output/seal.js';
import { loggingTools as loggingToolsIn } from '../media/wrapper.js';

const RUNS = fileURLToPath(new URL('../../../../fixtures/runs/', import.meta.url));
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-write-partial-'));
const log = path.join(tmp, 'tools.log');
let plan: ComparisonPlan;

/** ffmpeg and ffprobe that log each run but the `-version` checks (test/media/wrapper.ts). */
const loggingTools = (): { ffmpegPath: string; ffprobePath: string } => loggingToolsIn(path.join(tmp, 'bin'), log);

const runsLogged = (): string[] => readFileSync(log, 'utf8').split('\n').filter(Boolean);

beforeAll(async () => {
  plan = await planComparison(path.join(RUNS, 'h200'), [path.join(RUNS, 'b200')]);
}, 120_000);
afterAll(async () => {
  await plan?.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe('writePartial', () => {
  it('makes the pairs\' files from the captures without starting ffmpeg, the same bytes as extracting them', async () => {
    const ffmpeg = loggingTools();
    const shard = { index: 0, count: 2 };
    const refs = shardIndices(plan.pairs.length, shard).map((j) => plan.pairs[j]!);
    const metrics = resolveMetrics('inferencex');
    const captures = new Map<string, PairCapture>();
    const measured = await measurePairs(plan, refs, { threads: 2, ffmpeg, metrics: 'inferencex', keep: { audioSeconds: AUDIO_DIFF_SECONDS, captures } });
    const ok = measured.pairs.filter((m) => m.outcome?.ok);
    expect(ok.length).toBeGreaterThan(1);
    // The inferencex set charts no series: every measured pair's frame is frame 0, its stand-in.
    expect(ok.map((m) => captures.get(m.pair)?.frame?.index)).toEqual(ok.map(() => 0));
    const settings = { shard, policy: DEFAULT_POLICY, metrics, decoder: decoderIdentity(await resolveFfmpeg(ffmpeg)), generatedAt: new Date(Date.UTC(2025, 11, 1)), ffmpeg, threads: 2 };

    writeFileSync(log, '');
    const kept = await writePartial(path.join(tmp, 'kept'), plan, measured, { ...settings, captures });
    expect(runsLogged()).toEqual([]);
    expect(Object.keys(kept.partial.pairs.find((p) => p.outcome?.ok)!.files)).toContain('baseline_worst_webp');

    writeFileSync(log, '');
    const extracted = await writePartial(path.join(tmp, 'extracted'), plan, measured, settings);
    expect(runsLogged().filter((l) => l.startsWith('ffmpeg ')).length).toBeGreaterThan(0);
    // Every file the same bytes: the seal over all of them is.
    expect(readFileSync(path.join(tmp, 'kept', SEAL_FILE), 'utf8')).toBe(readFileSync(path.join(tmp, 'extracted', SEAL_FILE), 'utf8'));
    expect(kept.seal_sha256).toBe(extracted.seal_sha256);
  }, 300_000);
});
