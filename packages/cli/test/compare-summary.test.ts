/**
 * compare's terminal output speaks in cases, as the page does: the failed and invalid pairs grouped
 * by case ("failed in 4 of 4 repetitions"), a replaced bundle said in a line, --repeatability
 * saying what it skipped when the plan has one repetition per case (merge too), an --alpha with
 * no noise sample said, and every count in agreement with its noun.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CompareResult } from 'media-fidelity';
import { alphaSkipped, caseLines, existingOut, gateVerdict, humanSummary, repeatabilitySkipped, replacedLine } from '../src/commands/compare.js';
import { calibrateAlphaSkipped } from '../src/commands/calibrate.js';
import { decodeTimeoutSkipped } from '../src/commands/power.js';

type Pair = Parameters<typeof caseLines>[0][number];

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-cli-summary-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const ssimFail = (value: number) => ({ name: 'min_ssim', metric: 'video.ssim.min', comparator: '>=', threshold: 0.92, value, outcome: 'fail', note: null });

function pair(caseId: string, repetition: number, status: 'passed' | 'failed' | 'invalid', why: { ssim?: number; code?: string } = {}): Pair {
  return {
    slot_id: `measurement-r00${repetition}-${caseId}`,
    case_id: caseId,
    repetition,
    status,
    checks: status === 'failed' ? [ssimFail(why.ssim ?? 0.4372)] : [],
    reason_details: status === 'invalid' ? [{ code: why.code ?? 'FAILED_CANDIDATE', side: 'candidate', message: 'request timed out after 75 s' }] : [],
  } as unknown as Pair;
}

describe('caseLines', () => {
  it('groups the repetitions of a case into one line when they fail alike, failed cases first', () => {
    const pairs = [0, 1, 2, 3].flatMap((r) => [pair('c1', r, 'passed'), pair('c2', r, 'invalid'), pair('c3', r, 'failed')]);
    expect(caseLines(pairs)).toEqual([
      '  failed   c3: failed in 4 of 4 repetitions: min_ssim 0.4372 not >= 0.92',
      '  invalid  c2: invalid in 4 of 4 repetitions: FAILED_CANDIDATE: request timed out after 75 s',
    ]);
  });

  it('gives repetitions that fail differently lines of their own, named by repetition, in number', () => {
    const pairs = [pair('c1', 0, 'failed', { ssim: 0.5 }), pair('c1', 1, 'failed', { ssim: 0.6 }), pair('c1', 2, 'failed', { ssim: 0.5 }), pair('c1', 3, 'invalid')];
    expect(caseLines(pairs)).toEqual([
      '  failed   c1: failed in repetitions 0, 2 of 4: min_ssim 0.5 not >= 0.92',
      '  failed   c1: failed in repetition 1 of 4: min_ssim 0.6 not >= 0.92',
      '  invalid  c1: invalid in repetition 3 of 4: FAILED_CANDIDATE: request timed out after 75 s',
    ]);
  });

  it('names a case of one repetition by its slot, as a plan without repetitions reads', () => {
    expect(caseLines([pair('c1', 0, 'invalid'), pair('c2', 0, 'passed')])).toEqual(['  invalid  measurement-r000-c1 c1: FAILED_CANDIDATE: request timed out after 75 s']);
  });
});

describe('what a command replaced or skipped', () => {
  it('says that a bundle, or a folder given with --force, was replaced; nothing for an absent or empty folder', () => {
    const bundle = path.join(tmp, 'bundle');
    mkdirSync(bundle);
    writeFileSync(path.join(bundle, 'report.json'), '{}');
    writeFileSync(path.join(bundle, 'SHA256SUMS'), '');
    const other = path.join(tmp, 'other');
    mkdirSync(other);
    writeFileSync(path.join(other, 'notes.txt'), 'x');
    const empty = path.join(tmp, 'empty');
    mkdirSync(empty);
    expect(existingOut(bundle)).toBe('bundle');
    expect(existingOut(other)).toBe('folder');
    expect(existingOut(empty)).toBeNull();
    expect(existingOut(path.join(tmp, 'absent'))).toBeNull();
    expect(replacedLine('compare', bundle, 'bundle')).toBe(`fidelity compare: replaced the bundle that was in ${bundle}\n`);
    expect(replacedLine('compare', other, 'folder')).toBe(`fidelity compare: replaced the folder ${other} and what it held (--force)\n`);
    expect(replacedLine('compare', empty, null)).toBeNull();
  });

  it('says that --repeatability measured nothing when every case has one repetition, and nothing otherwise', () => {
    const result = (repetitions: number[]) => ({ report: { comparisons: [{ cases: repetitions.map((r) => ({ repetitions: r })) }] } }) as unknown as CompareResult;
    expect(repeatabilitySkipped('compare', result([1, 1]))).toMatch(/^fidelity compare: --repeatability measured nothing: every case of the plan has one repetition/);
    expect(repeatabilitySkipped('compare', result([1, 2]))).toBeNull();
    // merge says the same sentence, from the same function, under its own name.
    expect(repeatabilitySkipped('merge', result([1, 1]))).toBe(repeatabilitySkipped('compare', result([1, 1]))!.replace('fidelity compare:', 'fidelity merge:'));
  });

  it('says that --alpha changed nothing without a noise sample, in compare, merge and calibrate', () => {
    expect(alphaSkipped('compare', { alpha: '0.01' })).toBe('fidelity compare: --alpha 0.01 changed nothing: without a noise sample (--calibration or --noise) no pair has a noise verdict for it to be the level of\n');
    expect(alphaSkipped('merge', { alpha: '0.01' })).toMatch(/^fidelity merge: --alpha 0\.01 changed nothing: without a noise sample \(--calibration\)/);
    expect(alphaSkipped('compare', { alpha: '0.01', calibration: 'c.json' })).toBeNull();
    expect(alphaSkipped('compare', { alpha: '0.01', noise: ['runs/h200-rerun'] })).toBeNull();
    expect(alphaSkipped('compare', {})).toBeNull();
    expect(calibrateAlphaSkipped({ alpha: '0.01' })).toMatch(/^fidelity calibrate: --alpha 0\.01 changed nothing: .*without --policy-out no policy is written/);
    expect(calibrateAlphaSkipped({ alpha: '0.01', 'policy-out': 'p.json' })).toBeNull();
    expect(calibrateAlphaSkipped({})).toBeNull();
  });

  it('says that power --decode-timeout changed nothing with --ok-records', () => {
    expect(decodeTimeoutSkipped({ 'ok-records': true, 'decode-timeout': '30' })).toBe('fidelity power: --decode-timeout 30 changed nothing: with --ok-records no clip is decoded\n');
    expect(decodeTimeoutSkipped({ 'decode-timeout': '30' })).toBeNull();
    expect(decodeTimeoutSkipped({ 'ok-records': true })).toBeNull();
  });
});

describe('counts in the summary and the gate agree in number', () => {
  /** A result of one comparison with one planned pair, merged from shards, one file sealed, judged against one same-hardware pair. */
  function onePair(status: 'passed' | 'invalid'): CompareResult {
    const p = pair('c1', 0, status);
    const comparison = {
      baseline_gpu_model: 'H200', baseline_run_id: 1, baseline_run_attempt: 1, candidate_gpu_model: 'B200', candidate_run_id: 2, candidate_run_attempt: 1,
      summary: { planned: 1, valid_pairs: status === 'passed' ? 1 : 0, passed: status === 'passed' ? 1 : 0, failed: 0, invalid: status === 'invalid' ? 1 : 0 },
      noise: { n: 1, alpha: 0.05, metrics: [], beyond_by_metric: {}, beyond_pairs: 0, valid_pairs: 1, note: null },
      pairs: [{ ...p, video: null }],
      cases: [],
    };
    const report = { comparisons: [comparison], runs: [], measurement_origin: { pairs: 1, measured_here: 0, taken_from_shards: 1 }, disclaimer: 'x' };
    return { report, out: path.join(tmp, 'absent-bundle'), index: 'index.html', files: 1, seal_sha256: 'ab' } as unknown as CompareResult;
  }

  it('one pair, one file, one same-hardware pair: the noun in the singular', () => {
    const text = humanSummary(onePair('passed'));
    expect(text).toContain('noise floor: n = 1 same-hardware pair, alpha 0.05');
    expect(text).toContain('Measured: 0 of 1 pair re-measured by merge');
    expect(text).toContain('(1 file sealed, SHA256SUMS');
    expect(text).not.toMatch(/\b1 (pairs|files|same-hardware pairs)\b/);
  });

  it('the gate counts one planned pair and one invalid pair in the singular', () => {
    expect(gateVerdict(onePair('passed'), { failOnThreshold: true, allowInvalid: false }).message).toBe('passed: 1 of 1 planned pair measured and judged, every one passed every check');
    expect(gateVerdict(onePair('invalid'), { failOnThreshold: true, allowInvalid: false }).message).toBe('no pair was measured: the 1 planned pair is invalid (1 with nothing measured to judge it by)');
  });
});
