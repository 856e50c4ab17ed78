/**
 * A policy against a metric set: a check can only be judged on a metric
 * that was computed, so an enabled check on any other is refused before any
 * work (it would otherwise read as "inconclusive" on every pair). The
 * built-in example policy is the exception: it is nobody's explicit choice,
 * so with a set that leaves a metric out its checks on that metric are
 * switched off (enabled: false, judged `not_applicable` / `disabled`) and
 * the report says so.
 */
import { FidelityError, type Problem } from '../errors.js';
import { describeMetrics } from '../metrics/names.js';
import type { MetricName, MetricSelection } from '../metrics/names.js';
import type { Policy } from '../schemas/policy.js';

/** The selectable metric a check figure reads (`video.ssim_ffmpeg.all.min` -> `ssim_ffmpeg`, `audio.*` -> `audio`). */
export function metricOfFigure(figure: string): MetricName | null {
  const [root, name] = figure.split('.');
  if (root === 'audio') return 'audio';
  if (root === 'video' && name) return name as MetricName;
  return null;
}

const computed = (figure: string, selection: MetricSelection): boolean => {
  const metric = metricOfFigure(figure);
  return metric !== null && selection.list.includes(metric);
};

/**
 * Refuses a policy with an enabled check on a metric the selection does not compute.
 *
 * @throws FidelityError `POLICY_METRIC_NOT_COMPUTED`, one problem per such check.
 */
export function checkPolicyMetrics(policy: Policy, selection: MetricSelection, label = 'policy'): void {
  const problems: Problem[] = [];
  policy.checks.forEach((check, i) => {
    if (!check.enabled || computed(check.metric, selection)) return;
    problems.push({
      code: 'POLICY_METRIC_NOT_COMPUTED',
      message: `${label}: checks[${i}] (${check.name}) reads ${check.metric}, which the metric set ${describeMetrics(selection)} does not compute: choose a set with ${metricOfFigure(check.metric) ?? check.metric} (--metrics) or disable the check`,
      where: { file: label, path: `checks[${i}].metric` },
    });
  });
  if (problems.length) {
    const first = problems[0]!.message;
    throw new FidelityError('POLICY_METRIC_NOT_COMPUTED', problems.length === 1 ? first : `${first} (and ${problems.length - 1} more checks)`, { problems });
  }
}

/** The example policy for a selection: checks on metrics it does not compute are switched off, nothing else changes. */
export function examplePolicyFor(policy: Policy, selection: MetricSelection): Policy {
  if (policy.checks.every((c) => !c.enabled || computed(c.metric, selection))) return policy;
  return { ...policy, checks: policy.checks.map((c) => (c.enabled && !computed(c.metric, selection) ? { ...c, enabled: false } : c)) };
}
