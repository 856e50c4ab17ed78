/**
 * Judging a comparison against a calibration (docs/calibration.md, "The
 * decision rule"): per pair and metric a conformal p-value, per pair the
 * Bonferroni verdict, per comparison the counts and binomial tail.
 */
import { FidelityError } from '../errors.js';
import { escapeDel } from '../json-file.js';
import { METRIC_DEFINITIONS_VERSION } from '../metrics/names.js';
import type { PairMeasurement } from '../schemas/measurement.js';
import type { Policy } from '../schemas/policy.js';
import type { Comparison, Report } from '../schemas/report.js';
import type { VerifiedRun } from '../archive/types.js';
import { calibratedKeyOf } from '../policy/checks.js';
import { hardwareClass } from './pairs.js';
import { CALIBRATED_METRICS } from './metrics.js';
import { binomialTail, bonferroni, canDecide, conformalP, smallestP, worstOf } from './stats.js';
import type { Calibration, ComparisonNoise, MetricNoise, PairNoise } from './schema.js';

/** The significance level used when none is given. */
export const DEFAULT_ALPHA = 0.05;

/** Checks alpha: a probability strictly between 0 and 1. */
export function checkAlpha(alpha: number): number {
  if (typeof alpha !== 'number' || !(alpha > 0 && alpha < 1)) throw new FidelityError('INVALID_ARGUMENT', `Expected a number between 0 and 1 (exclusive) for alpha but received ${String(alpha)}`);
  return alpha;
}

/**
 * The calibrated metrics the pair verdict is over: those the policy's enabled
 * checks judge (docs/calibration.md). The others still get p-values, as
 * diagnostics: they are near-copies of the judged ones (mean vs min SSIM,
 * FFmpeg's SSIM, SNR vs rms), and Bonferroni over copies only costs power.
 */
export function verdictMetrics(policy: Policy): string[] {
  const keys = new Set<string>();
  for (const c of policy.checks) {
    if (!c.enabled) continue;
    const key = calibratedKeyOf(c.name, c.metric);
    if (CALIBRATED_METRICS.some((m) => m.key === key)) keys.add(key);
  }
  return CALIBRATED_METRICS.map((m) => m.key).filter((k) => keys.has(k));
}

/** The noise verdict of one measured pair; metrics the pair lacks, or the sample lacks, are left out. */
export function pairNoise(calibration: Calibration, measurement: PairMeasurement, alpha: number, verdictKeys: readonly string[]): PairNoise {
  const metrics: Record<string, MetricNoise> = {};
  const decidable: number[] = [];
  for (const m of CALIBRATED_METRICS) {
    const sample = calibration.metrics[m.key];
    const v = m.read(measurement);
    if (!sample || v === undefined) continue;
    const p = conformalP(v, sample.values, m.worse);
    const n = sample.values.length;
    const ok = canDecide(n, alpha);
    const worst = worstOf(sample.values, m.worse);
    metrics[m.key] = { p, beyond: ok ? p <= alpha : null, noise_worst: worst === undefined ? null : worst, n };
    if (ok && verdictKeys.includes(m.key)) decidable.push(p);
  }
  const p = bonferroni(decidable);
  return { ...metrics, pair: { p, beyond: decidable.length ? p <= alpha : null, k: decidable.length } } as PairNoise;
}

/** One metric's verdict in a pair's noise object (never the `pair` entry). */
export function metricOf(noise: PairNoise, key: string): MetricNoise | undefined {
  return key === 'pair' ? undefined : (noise[key] as MetricNoise | undefined);
}

/** The comparison's counts over its valid pairs' noise verdicts. */
export function comparisonNoise(calibration: Calibration, pairs: readonly (PairNoise | null)[], alpha: number, verdictKeys: readonly string[]): ComparisonNoise {
  const valid = pairs.filter((p): p is PairNoise => p !== null);
  const keys = CALIBRATED_METRICS.map((m) => m.key).filter((k) => calibration.metrics[k]);
  const beyondByMetric: Record<string, number> = {};
  const binomialByMetric: Record<string, number> = {};
  for (const k of keys) {
    const having = valid.filter((p) => metricOf(p, k));
    const count = having.filter((p) => metricOf(p, k)!.beyond === true).length;
    beyondByMetric[k] = count;
    binomialByMetric[k] = binomialTail(count, having.length, alpha);
  }
  const beyond = valid.filter((p) => p.pair.beyond === true).length;
  const small = keys.filter((k) => !canDecide(calibration.metrics[k]!.values.length, alpha));
  let note: string | null = null;
  if (calibration.n === 0) note = 'no same-hardware pairs: no noise verdict';
  else if (small.length === keys.length) {
    note = `noise sample too small: n = ${calibration.n}, smallest possible p = ${smallestP(calibration.n).toFixed(3)} > alpha = ${alpha}; no pair can be declared beyond noise`;
  } else if (small.length) note = `noise sample too small for ${small.join(', ')}: those metrics give p-values but no verdict`;
  else if (verdictKeys.length > 0 && verdictKeys.length * smallestP(calibration.n) > alpha) {
    const need = Math.ceil(verdictKeys.length / alpha - 1);
    note = `each metric can be beyond noise, but no pair as a whole: the pair verdict (Bonferroni over k = ${verdictKeys.length} metrics) needs p <= ${alpha} / ${verdictKeys.length}, so n >= ${need}; n = ${calibration.n}`;
  }
  return {
    alpha,
    n: calibration.n,
    metrics: keys,
    verdict_metrics: [...verdictKeys],
    valid_pairs: valid.length,
    beyond_pairs: beyond,
    beyond_by_metric: beyondByMetric,
    binomial_p: binomialTail(beyond, valid.length, alpha),
    binomial_p_by_metric: binomialByMetric,
    note,
    sources: calibration.sources.map((s) => ({ run_id: s.run_id, run_attempt: s.run_attempt, gpu_model: s.gpu_model })),
    ssim_floor_per_frame: calibration.ssim_floor_per_frame,
  };
}

/** What a comparison must share with the calibration it is judged against. */
export interface CalibrationTarget {
  decoderSha256: string;
  planSha256: string;
  /** The baseline's hardware class ("<gpu_model> x<gpus>"). */
  baselineHardware: string;
}

/** Refuses a calibration made for other decoders, definitions, workloads or hardware (exit 2, reason codes). */
export function checkCalibrationMatches(calibration: Calibration, target: CalibrationTarget): void {
  const version = calibration.definitions_version;
  if (version < METRIC_DEFINITIONS_VERSION) {
    // Its noise floor was measured with other numbers (version 1: audio.spectral_cosine's periodic window,
    // newly_silent on the peak): judging today's values against it would compare two definitions.
    throw new FidelityError(
      'CALIBRATION_DEFINITIONS_OUTDATED',
      `the calibration was measured with metric definitions version ${version}, this tool uses ${METRIC_DEFINITIONS_VERSION} (docs/metrics.md; CHANGELOG): its noise floor is of other numbers. Calibrate again with this version (fidelity calibrate)`,
    );
  }
  if (version !== METRIC_DEFINITIONS_VERSION) {
    throw new FidelityError('CALIBRATION_MISMATCH_DEFINITIONS', `the calibration was measured with metric definitions version ${version}, this tool uses ${METRIC_DEFINITIONS_VERSION}: use the fidelity version that made it`);
  }
  if (calibration.decoder.sha256 !== target.decoderSha256) {
    throw new FidelityError('CALIBRATION_MISMATCH_DECODER', `the calibration was decoded by ffmpeg ${calibration.decoder.sha256.slice(0, 12)}…, this comparison by ${target.decoderSha256.slice(0, 12)}…: decode both with the same binary`);
  }
  if (calibration.plan_sha256 !== target.planSha256) throw new FidelityError('CALIBRATION_MISMATCH_PLAN', `the calibration is of workload ${calibration.plan_sha256.slice(0, 12)}…, the comparison of ${target.planSha256.slice(0, 12)}…`);
  if (!calibration.hardware.includes(target.baselineHardware)) {
    throw new FidelityError('CALIBRATION_MISMATCH_HARDWARE', `the baseline hardware ${target.baselineHardware} is not among the calibration's (${calibration.hardware.join(', ') || 'none'})`);
  }
}

/**
 * The comparison with every valid pair's noise verdict and the comparison's
 * counts added; invalid pairs get none (nothing was measured).
 */
export function withNoise(comparison: Comparison, calibration: Calibration, alpha: number, policy: Policy): Comparison {
  const keys = verdictMetrics(policy);
  const pairs = comparison.pairs.map((p) => (p.video ? { ...p, noise: pairNoise(calibration, { video: p.video, audio: p.audio }, alpha, keys) } : p));
  return { ...comparison, pairs, noise: comparisonNoise(calibration, pairs.map((p) => p.noise ?? null), alpha, keys) };
}

/**
 * A checked calibration, ready for a comparison's report: refuses a mismatch
 * (CALIBRATION_MISMATCH_*) before any measuring, then adds the noise verdicts
 * to an assembled report and gives the calibration file the bundle seals.
 */
export function judgeNoise(
  calibration: Calibration,
  alpha: number,
  target: { decoderSha256: string; baseline: Pick<VerifiedRun, 'ci' | 'plan_sha256'> },
): { apply(report: Report): Report; file: { path: string; text: string } } {
  checkCalibrationMatches(calibration, { decoderSha256: target.decoderSha256, planSha256: target.baseline.plan_sha256, baselineHardware: hardwareClass(target.baseline) });
  return {
    apply: (report) => ({ ...report, comparisons: report.comparisons.map((c) => withNoise(c, calibration, alpha, report.policy)) }),
    // The noise sample a report was judged against travels with it, sealed, so every verdict can be recomputed.
    file: { path: 'calibration.json', text: `${escapeDel(JSON.stringify(calibration, null, 1))}\n` },
  };
}
