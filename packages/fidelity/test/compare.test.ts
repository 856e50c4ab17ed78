/**
 * compare() through the library API: repeated requests (each repetition its
 * own pair, the per-case view), progress events, and the argument and input
 * refusals that happen before anything is written. The full fixture set is
 * exercised through the CLI in test/e2e.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compare } from '../src/compare.js';
import type { CompareProgress, CompareResult } from '../src/comparison/types.js';
import type { GeneratedRuns } from '../src/synth/index.js';
import { generatedRuns } from '../../../test/shared/fixtures.js';
import { refusal } from './refusal.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-compare-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let runs: GeneratedRuns;
let result: CompareResult;
const events: CompareProgress[] = [];
const dir = (site: string) => runs.runs.find((r) => r.site === site)!.dir;

beforeAll(async () => {
  // Four cases x two repetitions; case 3 (night-market-s29) carries heavy noise on B200 in both repetitions.
  // Shared with the other files of the run (test/shared/fixtures.ts): generated once, read here.
  runs = await generatedRuns({ size: 'small', sites: ['H200', 'B200'], repetitions: 2, cases: 4 });
  result = await compare(dir('H200'), [dir('B200')], { out: path.join(tmp, 'bundle'), threads: 2, onProgress: (e) => events.push(e) });
});

describe('compare() with repeated requests', () => {
  it('makes every repetition its own pair: planned = repetitions x cases', () => {
    const [cmp] = result.report.comparisons;
    expect(cmp!.summary).toEqual({ planned: 8, valid_pairs: 8, passed: 6, failed: 2, invalid: 0 });
    expect(cmp!.pairs.map((p) => [p.slot_id, p.repetition, p.status])).toEqual([
      ['measurement-r000-c000', 0, 'passed'],
      ['measurement-r000-c001', 0, 'passed'],
      ['measurement-r000-c002', 0, 'passed'],
      ['measurement-r000-c003', 0, 'failed'],
      ['measurement-r001-c000', 1, 'passed'],
      ['measurement-r001-c001', 1, 'passed'],
      ['measurement-r001-c002', 1, 'passed'],
      ['measurement-r001-c003', 1, 'failed'],
    ]);
  });

  it('keeps one case view per case with the worst figure across repetitions', () => {
    const cases = result.report.comparisons[0]!.cases;
    expect(cases.map((c) => [c.case_id, c.status, c.repetitions])).toEqual([
      ['spoken-greeting-s11', 'passed', 2],
      ['spoken-greeting-s29', 'passed', 2],
      ['night-market-s11', 'passed', 2],
      ['night-market-s29', 'failed', 2],
    ]);
    const pairs = result.report.comparisons[0]!.pairs.filter((p) => p.case_id === 'night-market-s29');
    const worstSsim = Math.min(...pairs.map((p) => p.video!.ssim!.min));
    const worst = cases[3]!.worst.find((w) => w.check === 'min_ssim')!;
    expect(worst.value).toBe(worstSsim);
    expect(pairs[worst.repetition]!.video!.ssim!.min).toBe(worstSsim);
    expect(worst.slot_id).toBe(pairs[worst.repetition]!.slot_id);
  });

  it('reports progress stage by stage, ending with every pair and frame measured', () => {
    const stages = events.map((e) => e.stage).filter((s, i, all) => s !== all[i - 1]);
    expect(stages).toEqual(['verify', 'measure', 'bundle']);
    const last = events.filter((e) => e.stage === 'measure').at(-1) as Extract<CompareProgress, { stage: 'measure' }>;
    expect(last).toMatchObject({ pairsDone: 8, pairsTotal: 8 });
    expect(last.framesDone).toBe(last.framesTotal);
    expect(last.framesTotal).toBe(8 * runs.plan.frames);
  });

  it('returns where the bundle is and the digest of its seal', () => {
    expect(result.index).toBe(path.join(tmp, 'bundle', 'index.html'));
    expect(result.seal_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(result.files).toBe(readdirSync(path.join(tmp, 'bundle'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length - 1);
  });
});

describe('compare() refusals', () => {
  it('checks its arguments', async () => {
    expect((await refusal(compare('a', [], { out: path.join(tmp, 'x') }))).code).toBe('INVALID_ARGUMENT');
    expect((await refusal(compare('a', ['b'], { out: '' }))).code).toBe('INVALID_ARGUMENT');
    expect((await refusal(compare('a', ['b'], { out: path.join(tmp, 'x'), threads: 0 }))).code).toBe('INVALID_ARGUMENT');
    expect((await refusal(compare('a', ['b'], { out: path.join(tmp, 'x'), policy: { schema_version: 1 } as never }))).code).toBe('POLICY_INVALID');
  });

  it('refuses the same run given twice', async () => {
    const out = path.join(tmp, 'dup');
    const error = await refusal(compare(dir('H200'), [dir('B200'), dir('H200')], { out }));
    expect(error.code).toBe('DUPLICATE_RUN');
    expect(existsSync(out)).toBe(false);
  });

  it('refuses an --out inside an input run', async () => {
    const error = await refusal(compare(dir('H200'), [dir('B200')], { out: path.join(dir('B200'), 'bundle') }));
    expect(error.code).toBe('OUT_INSIDE_INPUT');
    expect(existsSync(path.join(dir('B200'), 'bundle'))).toBe(false);
  });
});
