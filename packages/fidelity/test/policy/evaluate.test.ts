import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY } from '../../src/policy/default.js';
import { ReasonCodes } from '../../src/errors.js';
import { CHECKS } from '../../src/policy/checks.js';
import { evaluatePolicy, failedCheckCodes, pairStatus } from '../../src/policy/evaluate.js';
import { Policy } from '../../src/schemas/policy.js';
import { makeMeasurement } from './make-measurement.js';

const outcomes = (checks: ReturnType<typeof evaluatePolicy>) => Object.fromEntries(checks.map((c) => [c.name, [c.outcome, c.note]]));

describe('the default policy', () => {
  it('is the uncalibrated example of metrics.md and validates against its schema', () => {
    expect(Policy.parse(DEFAULT_POLICY)).toEqual(DEFAULT_POLICY);
    expect(DEFAULT_POLICY.calibration_status).toBe('uncalibrated');
    expect(DEFAULT_POLICY.checks.map((c) => [c.name, c.metric, c.comparator, c.threshold])).toEqual([
      ['min_ssim', 'video.ssim.min', '>=', 0.92],
      ['video_psnr_db', 'video.psnr_db', '>=', 30],
      ['spectral_cosine', 'audio.spectral_cosine', '>=', 0.95],
      ['rms_ratio_deviation', 'audio.rms_ratio', '<=', 0.1],
    ]);
  });
});

describe('evaluatePolicy', () => {
  it('passes a clean pair on every check', () => {
    const checks = evaluatePolicy(DEFAULT_POLICY, makeMeasurement());
    expect(checks.map((c) => c.outcome)).toEqual(['pass', 'pass', 'pass', 'pass']);
    expect(pairStatus(true, checks)).toBe('passed');
  });

  it('fails each threshold on its own figure, with the compared value', () => {
    const checks = evaluatePolicy(DEFAULT_POLICY, makeMeasurement({ ssimMin: 0.5, psnrDb: 20, spectralCosine: 0.9, rmsRatio: 0.8 }));
    expect(checks.map((c) => c.outcome)).toEqual(['fail', 'fail', 'fail', 'fail']);
    expect(checks.find((c) => c.name === 'min_ssim')?.value).toBe(0.5);
    // The deviation is what is judged, not the ratio.
    expect(checks.find((c) => c.name === 'rms_ratio_deviation')?.value).toBeCloseTo(0.2, 12);
    expect(pairStatus(true, checks)).toBe('failed');
  });

  it("gives a failed pair's reasons: one code per failed check, in the policy's order", () => {
    const checks = evaluatePolicy(DEFAULT_POLICY, makeMeasurement({ ssimMin: 0.5, psnrDb: 40, spectralCosine: 0.9, rmsRatio: 1 }));
    expect(failedCheckCodes(checks)).toEqual(['CHECK_FAILED_MIN_SSIM', 'CHECK_FAILED_SPECTRAL_COSINE']);
    expect(failedCheckCodes(evaluatePolicy(DEFAULT_POLICY, makeMeasurement()))).toEqual([]);
    // Inconclusive (an invalid pair) is not a failed check.
    expect(failedCheckCodes(evaluatePolicy(DEFAULT_POLICY, null))).toEqual([]);
    for (const declaration of Object.values(CHECKS)) expect(ReasonCodes).toHaveProperty(declaration.failCode);
  });

  it('treats the threshold itself as inside (>= and <= are inclusive)', () => {
    const checks = evaluatePolicy(DEFAULT_POLICY, makeMeasurement({ ssimMin: 0.92, psnrDb: 30, spectralCosine: 0.95, rmsRatio: 1 }));
    expect(checks.map((c) => c.outcome)).toEqual(['pass', 'pass', 'pass', 'pass']);
  });

  it('passes PSNR of identical video (null, never Infinity) with note "identical"', () => {
    const psnr = evaluatePolicy(DEFAULT_POLICY, makeMeasurement({ psnrDb: null })).find((c) => c.name === 'video_psnr_db');
    expect(psnr).toMatchObject({ outcome: 'pass', value: null, note: 'identical' });
  });

  it('marks audio checks not_applicable when neither side has audio', () => {
    const o = outcomes(evaluatePolicy(DEFAULT_POLICY, makeMeasurement({ audio: false })));
    expect(o.spectral_cosine).toEqual(['not_applicable', 'no_audio']);
    expect(o.rms_ratio_deviation).toEqual(['not_applicable', 'no_audio']);
    expect(o.min_ssim).toEqual(['pass', null]);
  });

  it('fails rms_ratio_deviation when only the baseline is silent (infinite ratio)', () => {
    const rms = evaluatePolicy(DEFAULT_POLICY, makeMeasurement({ rmsRatio: null })).find((c) => c.name === 'rms_ratio_deviation');
    expect(rms).toMatchObject({ outcome: 'fail', value: null, note: 'baseline_silent' });
  });

  it('makes every check inconclusive for a pair that was not measured', () => {
    const checks = evaluatePolicy(DEFAULT_POLICY, null);
    expect(checks.map((c) => c.outcome)).toEqual(['inconclusive', 'inconclusive', 'inconclusive', 'inconclusive']);
    expect(checks.every((c) => c.value === null)).toBe(true);
    expect(pairStatus(false, checks)).toBe('invalid');
  });

  it('reports a disabled check as not_applicable and never fails on it', () => {
    const policy = { ...DEFAULT_POLICY, checks: DEFAULT_POLICY.checks.map((c) => (c.name === 'min_ssim' ? { ...c, enabled: false } : c)) };
    const checks = evaluatePolicy(policy, makeMeasurement({ ssimMin: 0.1 }));
    expect(outcomes(checks).min_ssim).toEqual(['not_applicable', 'disabled']);
    expect(pairStatus(true, checks)).toBe('passed');
  });

  it('reads the figure a policy points at (a sibling of the same family)', () => {
    const policy = { ...DEFAULT_POLICY, checks: [{ ...DEFAULT_POLICY.checks[0]!, metric: 'video.ssim.mean', threshold: 0.5 }] };
    const [check] = evaluatePolicy(policy, makeMeasurement({ ssimMin: 0.1 }));
    expect(check).toMatchObject({ outcome: 'pass', value: (0.1 + 1 + 1) / 3 });
  });
});
