/**
 * Thresholds -> check outcomes for one pair (metrics.md, "Example
 * thresholds"). A null figure is never judged as a number: what it means
 * depends on the check (identical streams, no audio, a silent baseline).
 */
import type { KnownReasonCode } from '../errors.js';
import type { PairMeasurement } from '../schemas/measurement.js';
import type { CheckResult, Policy, PolicyCheck } from '../schemas/policy.js';
import type { PairStatus } from '../schemas/report.js';
import { CHECKS } from './checks.js';
import { readPath } from './metrics.js';

function result(check: PolicyCheck, outcome: CheckResult['outcome'], value: number | null, note: string | null): CheckResult {
  return { name: check.name, outcome, value, threshold: check.threshold, comparator: check.comparator, note };
}

function compareValue(check: PolicyCheck, value: number): boolean {
  return check.comparator === '>=' ? value >= check.threshold : value <= check.threshold;
}

function judge(check: PolicyCheck, measurement: PairMeasurement): CheckResult {
  const declared = CHECKS[check.name];
  if (declared.stream === 'audio' && measurement.audio === null) return result(check, 'not_applicable', null, 'no_audio');
  const raw = readPath(measurement, check.metric);
  if (raw === null) {
    if (!('whenNull' in declared)) return result(check, 'inconclusive', null, 'no_value');
    const { outcome, note } = declared.whenNull(measurement, compareValue(check, Number.POSITIVE_INFINITY));
    return result(check, outcome, null, note);
  }
  if (typeof raw !== 'number' || !Number.isFinite(raw)) return result(check, 'inconclusive', null, 'no_value');
  const value = 'value' in declared ? declared.value(raw) : raw;
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

/**
 * A failed pair's reasons: one code per failed check, in the policy's order, so
 * `reasons` says why for every pair that did not pass (the figures stay in `checks`).
 */
export function failedCheckCodes(checks: readonly CheckResult[]): KnownReasonCode[] {
  return checks.filter((c) => c.outcome === 'fail').map((c) => CHECKS[c.name].failCode);
}
