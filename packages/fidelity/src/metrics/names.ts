/**
 * The names of the metrics a set may choose, the named sets, and how a
 * user's `--metrics` / `compare({ metrics })` is read. Pure data: the
 * report and policy schemas read it without loading the kernels
 * (registry.ts holds the definitions that compute them).
 */
import { z } from 'zod';
import { invalidParameter } from '../errors.js';
import { METRIC_NAMES, METRIC_SETS, type MetricName, type MetricSetName } from './set-names.js';

/**
 * The version of the metric definitions (docs/metrics.md): raised whenever a definition deliberately
 * changes a value. 2: `audio.spectral_cosine` with numpy's symmetric `np.hanning` window and `newly_silent`
 * on the RMS (both InferenceX's definitions; version 1 used the periodic window and the peak).
 * Calibrations record it: a noise floor measured with other definitions is other numbers.
 */
export const METRIC_DEFINITIONS_VERSION = 2;

export { METRIC_NAMES, METRIC_SETS, type MetricName, type MetricSetName } from './set-names.js';

/**
 * The chosen metrics, as report.json and partial.json record them: the set's name (null for a list
 * that is no named set) and the names, in {@link METRIC_NAMES} order.
 */
export const MetricSelection = z.object({
  set: z.enum(Object.keys(METRIC_SETS) as [MetricSetName, ...MetricSetName[]]).nullable(),
  list: z.array(z.enum(METRIC_NAMES)).min(1),
});
/** See {@link MetricSelection}. */
export type MetricSelection = { set: MetricSetName | null; list: MetricName[] };

/** What `compare({ metrics })` and `--metrics` take: a set name, a comma-separated list, an array of names, or a resolved selection. */
export type MetricsSpec = MetricSetName | MetricName | string | readonly string[] | MetricSelection;

const isSetName = (s: string): s is MetricSetName => Object.hasOwn(METRIC_SETS, s);
const isMetricName = (s: string): s is MetricName => (METRIC_NAMES as readonly string[]).includes(s);

/**
 * The selection a spec names; `default` when absent. A list naming exactly a
 * set's metrics is recorded as that set, so two spellings of one choice give
 * the same report bytes.
 *
 * @throws FidelityError `INVALID_ARGUMENT` for an unknown name, an empty list or a repeated name.
 */
export function resolveMetrics(spec: MetricsSpec | undefined): MetricSelection {
  if (spec === undefined) return { set: 'default', list: [...METRIC_SETS.default] };
  if (spec !== null && typeof spec === 'object' && !Array.isArray(spec) && 'list' in spec) return resolveMetrics((spec as MetricSelection).list);
  const words = typeof spec === 'string' ? spec.split(',').map((s) => s.trim()) : Array.isArray(spec) ? spec : null;
  const expected = `a metric set (${Object.keys(METRIC_SETS).join(', ')}) or a comma-separated list of ${METRIC_NAMES.join(', ')}`;
  if (!words || words.length === 0 || words.some((w) => typeof w !== 'string' || w === '')) throw invalidParameter('metrics', expected, spec);
  if (words.length === 1 && isSetName(words[0]!)) return { set: words[0], list: [...METRIC_SETS[words[0]]] };
  const unknown = words.filter((w) => !isMetricName(w));
  if (unknown.length) throw invalidParameter('metrics', expected, unknown.join(','));
  if (new Set(words).size !== words.length) throw invalidParameter('metrics', 'each metric named once', words.join(','));
  const list = METRIC_NAMES.filter((n) => words.includes(n));
  const named = (Object.keys(METRIC_SETS) as MetricSetName[]).find((s) => METRIC_SETS[s].length === list.length && METRIC_SETS[s].every((n) => list.includes(n)));
  return { set: named ?? null, list };
}

/** How the selection is written for people: the set's name, or the list. */
export function describeMetrics(selection: MetricSelection): string {
  return selection.set ?? selection.list.join(',');
}

