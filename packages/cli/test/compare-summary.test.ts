/**
 * compare's terminal output speaks in cases, as the page does: the failed and invalid pairs grouped
 * by case ("failed in 4 of 4 repetitions"), a replaced bundle said in a line, and --repeatability
 * saying what it skipped when the plan has one repetition per case.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CompareResult } from 'media-fidelity';
import { caseLines, existingOut, repeatabilitySkipped, replacedLine } from '../src/commands/compare.js';

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
    expect(repeatabilitySkipped(result([1, 1]))).toMatch(/^fidelity compare: --repeatability measured nothing: every case of the plan has one repetition/);
    expect(repeatabilitySkipped(result([1, 2]))).toBeNull();
  });
});
