/**
 * Cases across repetitions under scale-out: a plan that repeats each case, measured on one machine
 * with one thread and as three shards with two threads each, merged. The merged bundle is byte for
 * byte the one-machine bundle, so merge derives `comparisons[].cases[]` from the merged pairs exactly
 * as compare does; and the cases say how they repeat (docs/report.md, "Repeated requests").
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compare } from '../../src/compare.js';
import { Report } from '../../src/schemas/report.js';
import { merge } from '../../src/shard/merge.js';
import { generatedRuns } from '../../../../test/shared/fixtures.js';
import { snapshot } from '../../../../test/e2e/helpers.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-repeated-'));
const at = (...p: string[]) => path.join(tmp, ...p);
const saved = process.env.SOURCE_DATE_EPOCH;
let base = '';
let cand = '';

beforeAll(async () => {
  process.env.SOURCE_DATE_EPOCH = '1764450000';
  // The first four cases: identical, light noise (passes), slight blur (passes), heavy noise (fails), twice each.
  // Shared with the other files of the run (test/shared/fixtures.ts): generated once, read here.
  const runs = await generatedRuns({ size: 'small', sites: ['H200', 'B200'], cases: 4, repetitions: 2 });
  base = runs.runs.find((r) => r.site === 'H200')!.dir;
  cand = runs.runs.find((r) => r.site === 'B200')!.dir;
  await compare(base, [cand], { out: at('one'), threads: 1 });
  for (let k = 0; k < 3; k++) await compare(base, [cand], { out: at('parts', String(k)), shard: { index: k, count: 3 }, threads: 2 });
  await merge(base, [cand], { partials: [at('parts')], out: at('merged'), remeasure: 'all', threads: 2 });
}, 600_000);
afterAll(() => {
  if (saved === undefined) delete process.env.SOURCE_DATE_EPOCH;
  else process.env.SOURCE_DATE_EPOCH = saved;
  rmSync(tmp, { recursive: true, force: true });
});

describe('repeated cases, sharded and merged', () => {
  it('merge of 3 shards at 2 threads is byte for byte compare at 1 thread', () => {
    expect(snapshot(at('merged'))).toEqual(snapshot(at('one')));
  });

  it('each case counts its two repetitions, and the failing one fails in both at the same frame', () => {
    const report = Report.parse(JSON.parse(readFileSync(at('merged', 'report.json'), 'utf8')));
    const cases = report.comparisons[0]!.cases;
    expect(cases.map((c) => c.case_id)).toEqual(['spoken-greeting-s11', 'spoken-greeting-s29', 'night-market-s11', 'night-market-s29']);
    for (const c of cases) {
      expect(c.repetitions).toBe(2);
      expect(c.passed! + c.failed! + c.invalid!).toBe(2);
      // The synthetic differences are deterministic per case: every repetition has the same outcome.
      expect(c).toMatchObject({ consistency: 'consistent', differing: [] });
    }
    const noisy = cases.find((c) => c.case_id === 'night-market-s29')!;
    expect(noisy).toMatchObject({ status: 'failed', passed: 0, failed: 2, invalid: 0 });
    expect(noisy.reasons!.map((r) => [r.code, r.status, r.repetitions])).toContainEqual(['CHECK_FAILED_MIN_SSIM', 'failed', [0, 1]]);
    const ssim = noisy.spread!.find((s) => s.check === 'min_ssim')!;
    expect(ssim.judged).toBe(2);
    expect(ssim.min!).toBeLessThan(0.92);
    expect(ssim.min!).toBeLessThanOrEqual(ssim.max!);
    expect(noisy.worst_frame!.by_repetition.map((r) => r.repetition)).toEqual([0, 1]);
    const identical = cases.find((c) => c.case_id === 'spoken-greeting-s11')!;
    expect(identical).toMatchObject({ status: 'passed', passed: 2, failed: 0, reasons: [] });
  });
});
