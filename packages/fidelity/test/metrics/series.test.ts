import { describe, expect, it } from 'vitest';
import { harmonicMean, percentileLinear, summarizePsnr, summarizeSsim } from '../../src/metrics/series.js';
import { goldenPair, PAIR_NAMES } from './oracle.js';

// Oracle: numpy.percentile (default linear), numpy mean/min/max/argmin and
// scipy.stats.hmean, computed by make_golden.py on the golden per-frame values.
describe('series summaries against numpy/scipy', () => {
  for (const name of PAIR_NAMES) {
    for (const metric of ['ssim', 'ssim_rgb7'] as const) {
      it(`summarises the ${name} ${metric} series as numpy does`, () => {
        const golden = goldenPair(name)[metric];
        const s = summarizeSsim(golden.per_frame);
        expect(s.min).toBe(golden.min);
        expect(s.max).toBe(golden.max);
        expect(s.worst_frame).toBe(golden.worst_frame);
        expect(s.p05).toBeCloseTo(golden.p05, 14);
        expect(s.mean).toBeCloseTo(golden.mean, 14);
        expect(s.harmonic_mean).toBeCloseTo(golden.harmonic_mean, 14);
        expect(s.per_frame).toEqual(golden.per_frame);
      });
    }
  }
});

describe('percentileLinear', () => {
  it('interpolates at (n-1)*q like numpy', () => {
    // np.percentile([1, 2, 3, 4], 5) = 1.15; np.percentile([10, 0], 5) = 0.5
    expect(percentileLinear([4, 3, 2, 1], 5)).toBeCloseTo(1.15, 15);
    expect(percentileLinear([10, 0], 5)).toBeCloseTo(0.5, 15);
    expect(percentileLinear([7], 5)).toBe(7);
    // 21 values: the 5th percentile is exactly the second smallest
    expect(percentileLinear(Array.from({ length: 21 }, (_, i) => 20 - i), 5)).toBe(1);
  });
});

describe('harmonicMean', () => {
  it('is n / sum(1/x) for positive values', () => {
    expect(harmonicMean([1, 0.5, 0.25])).toBeCloseTo(3 / 7, 15);
  });

  it('is 0 as soon as one value is zero or negative (the limit as it falls to 0)', () => {
    expect(harmonicMean([0.9, 0])).toBe(0);
    expect(harmonicMean([0.9, -0.2, 0.8])).toBe(0);
  });
});

describe('summaries', () => {
  it('names the first worst frame on ties', () => {
    expect(summarizeSsim([0.9, 0.5, 0.7, 0.5]).worst_frame).toBe(1);
  });

  it('summarises PSNR over finite frames and counts identical ones', () => {
    const s = summarizePsnr([40, null, 30, null, 35]);
    expect(s).toMatchObject({ min: 30, max: 40, mean: 35, worst_frame: 2, identical_frames: 2 });
    expect(s.p05).toBeCloseTo(30.5, 12);
    expect(s.per_frame).toEqual([40, null, 30, null, 35]);
  });

  it('has no PSNR summary when every frame is identical', () => {
    expect(summarizePsnr([null, null])).toEqual({ min: null, mean: null, p05: null, max: null, worst_frame: null, identical_frames: 2, per_frame: [null, null] });
  });
});
