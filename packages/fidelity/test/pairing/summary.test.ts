import { describe, expect, it } from 'vitest';
import { caseViews, summarize } from '../../src/pairing/summary.js';
import type { CheckResult } from '../../src/schemas/policy.js';
import type { PairReport, PairStatus } from '../../src/schemas/report.js';

function check(name: CheckResult['name'], outcome: CheckResult['outcome'], value: number | null, comparator: '>=' | '<=' = '>='): CheckResult {
  return { name, outcome, value, threshold: comparator === '>=' ? 0.92 : 0.1, comparator, note: null };
}

function pair(caseId: string, repetition: number, status: PairStatus, checks: CheckResult[], extra: Partial<PairReport> = {}): PairReport {
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
    ...extra,
  };
}

/** A measured pair's video with only the Gaussian SSIM series, its worst frame `worst`. */
function video(worst: number): PairReport['video'] {
  return { ssim: { min: 0.5, mean: 0.9, worst_frame: worst, per_frame: [] } } as unknown as PairReport['video'];
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

describe('how a case repeats (version 1.3)', () => {
  const failedSsim = (rep: number, value: number, frame: number): PairReport =>
    pair('a', rep, 'failed', [check('min_ssim', 'fail', value), check('video_psnr_db', 'pass', null)], { reasons: ['CHECK_FAILED_MIN_SSIM'], video: video(frame) });

  it('counts the outcomes, spreads each judged figure and finds the same worst frame in every repetition', () => {
    const [view] = caseViews([failedSsim(0, 0.437, 12), failedSsim(1, 0.45, 12), failedSsim(2, 0.44, 12), failedSsim(3, 0.5, 12)]);
    expect(view).toMatchObject({ status: 'failed', repetitions: 4, passed: 0, failed: 4, invalid: 0, consistency: 'consistent', differing: [] });
    expect(view!.reasons).toEqual([{ code: 'CHECK_FAILED_MIN_SSIM', status: 'failed', repetitions: [0, 1, 2, 3] }]);
    expect(view!.spread).toEqual([
      { check: 'min_ssim', judged: 4, min: 0.437, max: 0.5, nulls: 0 },
      { check: 'video_psnr_db', judged: 4, min: null, max: null, nulls: 4 },
    ]);
    expect(view!.worst_frame).toEqual({ same: true, frame: 12, by_repetition: [0, 1, 2, 3].map((repetition) => ({ repetition, frame: 12 })) });
  });

  it('varies: lists the repetitions off the most common outcome, with each outcome\'s reasons', () => {
    const [view] = caseViews([
      pair('a', 0, 'passed', [check('min_ssim', 'pass', 0.99)], { video: video(3) }),
      failedSsim(1, 0.8, 7),
      pair('a', 2, 'passed', [check('min_ssim', 'pass', 0.97)], { video: video(3) }),
      pair('a', 3, 'invalid', [check('min_ssim', 'inconclusive', null)], { reasons: ['FAILED_CANDIDATE'] }),
    ]);
    expect(view).toMatchObject({ status: 'failed', passed: 2, failed: 1, invalid: 1, consistency: 'varies', differing: [1, 3] });
    expect(view!.reasons).toEqual([
      { code: 'CHECK_FAILED_MIN_SSIM', status: 'failed', repetitions: [1] },
      { code: 'FAILED_CANDIDATE', status: 'invalid', repetitions: [3] },
    ]);
    // The invalid repetition is not judged: three figures, no frame of its own.
    expect(view!.spread).toEqual([
      { check: 'min_ssim', judged: 3, min: 0.8, max: 0.99, nulls: 0 },
      { check: 'video_psnr_db', judged: 1, min: null, max: null, nulls: 1 },
    ]);
    expect(view!.worst_frame).toEqual({ same: false, frame: null, by_repetition: [{ repetition: 0, frame: 3 }, { repetition: 1, frame: 7 }, { repetition: 2, frame: 3 }] });
  });

  it('breaks a tie for the most common outcome toward the worse one', () => {
    const [view] = caseViews([pair('a', 0, 'passed', []), pair('a', 1, 'invalid', [], { reasons: ['FAILED_BASELINE'] })]);
    expect(view).toMatchObject({ status: 'passed', consistency: 'varies', differing: [0], worst_frame: null, spread: [] });
  });
});

describe("each run's own repetitions (sealed bytes)", () => {
  it('identical when every repetition with media has the same file, differ when not, null under two', () => {
    const [view] = caseViews([
      pair('a', 0, 'passed', [], { baseline_media: 'media/aa.mp4', candidate_media: 'media/bb.mp4' }),
      pair('a', 1, 'passed', [], { baseline_media: 'media/aa.mp4', candidate_media: 'media/cc.mp4' }),
      pair('a', 2, 'invalid', [], { baseline_media: 'media/aa.mp4', candidate_media: null }),
    ]);
    expect(view!.own_repetitions).toEqual({ baseline: 'identical', candidate: 'differ' });
    const [single] = caseViews([pair('b', 0, 'passed', [], { baseline_media: 'media/aa.mp4', candidate_media: 'media/aa.mp4' })]);
    expect(single!.own_repetitions).toEqual({ baseline: null, candidate: null });
  });
});
