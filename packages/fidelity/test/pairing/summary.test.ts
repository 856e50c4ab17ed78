import { describe, expect, it } from 'vitest';
import { caseViews, summarize } from '../../src/pairing/summary.js';
import type { CheckResult } from '../../src/schemas/policy.js';
import type { PairReport, PairStatus } from '../../src/schemas/report.js';

function check(name: CheckResult['name'], outcome: CheckResult['outcome'], value: number | null, comparator: '>=' | '<=' = '>='): CheckResult {
  return { name, outcome, value, threshold: comparator === '>=' ? 0.92 : 0.1, comparator, note: null };
}

function pair(caseId: string, repetition: number, status: PairStatus, checks: CheckResult[]): PairReport {
  return {
    slot_id: `measurement-r00${repetition}-c${caseId}`,
    case_id: caseId,
    prompt: '',
    seed: 1,
    repetition,
    status,
    reasons: status === 'invalid' ? ['FAILED_CANDIDATE'] : [],
    reason_details: [],
    baseline_media: null,
    candidate_media: null,
    baseline_status: 'ok',
    candidate_status: 'ok',
    baseline_error: null,
    candidate_error: null,
    video: null,
    audio: null,
    checks,
    files: {},
  };
}

describe('summarize', () => {
  it('always adds up: valid + invalid = planned and passed + failed = valid', () => {
    const statuses: PairStatus[] = ['passed', 'failed', 'invalid'];
    let seed = 7;
    for (let n = 0; n < 50; n++) {
      const pairs = Array.from({ length: n }, () => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return { status: statuses[seed % 3]! };
      });
      const s = summarize(pairs);
      expect(s.planned).toBe(n);
      expect(s.valid_pairs + s.invalid).toBe(s.planned);
      expect(s.passed + s.failed).toBe(s.valid_pairs);
    }
    expect(summarize([{ status: 'passed' }, { status: 'failed' }, { status: 'invalid' }, { status: 'invalid' }])).toEqual({ planned: 4, valid_pairs: 2, passed: 1, failed: 1, invalid: 2 });
  });
});

describe('caseViews over repetitions', () => {
  it('fails a case when any repetition failed, even if a later one passed', () => {
    const [view] = caseViews([pair('a', 0, 'failed', [check('min_ssim', 'fail', 0.5)]), pair('a', 1, 'passed', [check('min_ssim', 'pass', 0.99)])]);
    expect(view).toMatchObject({ case_id: 'a', status: 'failed', repetitions: 2 });
    expect(view!.worst).toEqual([{ check: 'min_ssim', value: 0.5, repetition: 0, slot_id: 'measurement-r000-ca' }]);
  });

  it('is invalid only when every repetition is invalid', () => {
    const views = caseViews([
      pair('a', 0, 'invalid', [check('min_ssim', 'inconclusive', null)]),
      pair('b', 0, 'invalid', [check('min_ssim', 'inconclusive', null)]),
      pair('a', 1, 'invalid', [check('min_ssim', 'inconclusive', null)]),
      pair('b', 1, 'passed', [check('min_ssim', 'pass', 0.95)]),
    ]);
    expect(views.map((v) => [v.case_id, v.status])).toEqual([
      ['a', 'invalid'],
      ['b', 'passed'],
    ]);
    expect(views[0]!.worst).toEqual([]);
    expect(views[1]!.worst).toEqual([{ check: 'min_ssim', value: 0.95, repetition: 1, slot_id: 'measurement-r001-cb' }]);
  });

  it('picks the worst figure in the direction of each comparator, and a null failure as the worst', () => {
    const views = caseViews([
      pair('a', 0, 'passed', [check('min_ssim', 'pass', 0.97), check('rms_ratio_deviation', 'pass', 0.02, '<='), check('video_psnr_db', 'pass', null)]),
      pair('a', 1, 'passed', [check('min_ssim', 'pass', 0.95), check('rms_ratio_deviation', 'pass', 0.05, '<='), check('video_psnr_db', 'pass', 41)]),
      pair('a', 2, 'failed', [check('min_ssim', 'pass', 0.96), check('rms_ratio_deviation', 'fail', null, '<='), check('video_psnr_db', 'pass', 45)]),
    ]);
    expect(views[0]!.worst.map((w) => [w.check, w.value, w.repetition])).toEqual([
      ['min_ssim', 0.95, 1],
      ['rms_ratio_deviation', null, 2],
      ['video_psnr_db', 41, 1],
    ]);
  });
});
