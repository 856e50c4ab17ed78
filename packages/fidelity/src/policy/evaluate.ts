/**
 * Thresholds -> check outcomes for one pair (metrics.md, "Example
 * thresholds"). A null figure is never judged as a number: what it means
 * depends on the check (identical streams, no audio, a silent baseline).
 */
import type { KnownReasonCode } from '../errors.js';
import type { PairMeasurement } from '../schemas/measurement.js';
import type { CheckName, CheckResult, Policy, PolicyCheck } from '../schemas/policy.js';
import type { PairStatus } from '../schemas/report.js';
import { readPath } from './metrics.js';

const AUDIO_CHECKS = new Set(['spectral_cosine', 'rms_ratio_deviation']);

function result(check: PolicyCheck, outcome: CheckResult['outcome'], value: number | null, note: string | null): CheckResult {
  return { name: check.name, outcome, value, threshold: check.threshold, comparator: check.comparator, note };
}

function compareValue(check: PolicyCheck, value: number): boolean {
  return check.comparator === '>=' ? value >= check.threshold : value <= check.threshold;
}

function judge(check: PolicyCheck, measurement: PairMeasurement): CheckResult {
  if (AUDIO_CHECKS.has(check.name) && measurement.audio === null) return result(check, 'not_applicable', null, 'no_audio');
  const raw = readPath(measurement, check.metric);
  if (raw === null) {
    if (check.name === 'rms_ratio_deviation') {
      // Only a silent baseline leaves the ratio undefined: the candidate added energy from nothing, an infinite deviation.
      const reason = measurement.audio?.channels.find((c) => c.rms_ratio === null)?.rms_ratio_reason ?? 'baseline_silent';
      return result(check, 'fail', null, reason);
    }
    if (check.name === 'video_psnr_db') {
      // PSNR is null only where the compared frames are identical: an infinite PSNR, above any floor.
      return result(check, compareValue(check, Number.POSITIVE_INFINITY) ? 'pass' : 'fail', null, 'identical');
    }
    return result(check, 'inconclusive', null, 'no_value');
  }
  if (typeof raw !== 'number' || !Number.isFinite(raw)) return result(check, 'inconclusive', null, 'no_value');
  const value = check.name === 'rms_ratio_deviation' ? Math.abs(raw - 1) : raw;
  return result(check, compareValue(check, value) ? 'pass' : 'fail', value, null);
}

/**
 * Every check of the policy, in the policy's order. `measurement` is null for
 * an invalid pair: then every enabled check is inconclusive, since nothing
 * was compared.
 */
export function evaluatePolicy(policy: Policy, measurement: PairMeasurement | null): CheckResult[] {
  return policy.checks.map((check) => {
    if (!check.enabled) return result(check, 'not_applicable', null, 'disabled');
    if (measurement === null) return result(check, 'inconclusive', null, 'pair_invalid');
    return judge(check, measurement);
  });
}

/** invalid if not measured, failed if any check failed, else passed. */
export function pairStatus(measured: boolean, checks: readonly CheckResult[]): PairStatus {
  if (!measured) return 'invalid';
  return checks.some((c) => c.outcome === 'fail') ? 'failed' : 'passed';
}

/** The reason code of each check when it fails (docs/reason-codes.md, "Pair reasons"). */
export const CHECK_FAILED_CODES: Readonly<Record<CheckName, KnownReasonCode>> = {
  min_ssim: 'CHECK_FAILED_MIN_SSIM',
  video_psnr_db: 'CHECK_FAILED_VIDEO_PSNR_DB',
  spectral_cosine: 'CHECK_FAILED_SPECTRAL_COSINE',
  rms_ratio_deviation: 'CHECK_FAILED_RMS_RATIO_DEVIATION',
};

/**
 * A failed pair's reasons: one code per failed check, in the policy's order, so
 * `reasons` says why for every pair that did not pass (the figures stay in `checks`).
 */
export function failedCheckCodes(checks: readonly CheckResult[]): KnownReasonCode[] {
  return checks.filter((c) => c.outcome === 'fail').map((c) => CHECK_FAILED_CODES[c.name]);
}
