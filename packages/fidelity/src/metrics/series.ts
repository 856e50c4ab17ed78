/**
 * Per-pair aggregates of a per-frame series (docs/metrics.md):
 *  - p05: numpy.percentile(x, 5) with its default 'linear' method, computed
 *    the way numpy computes it (virtual index (n-1)*0.05, and numpy's lerp
 *    that interpolates from the upper neighbour when the weight is >= 0.5).
 *  - worst_frame: index of the minimum, the first one on ties.
 *  - harmonic_mean: n / sum(1/x) when every value is > 0; 0 as soon as one
 *    value is <= 0 (the limit as that value falls to 0: a frame with no
 *    structural similarity makes the harmonic mean as bad as it gets).
 */
import { FidelityError } from '../errors.js';
import type { PsnrSeries, SeriesSummary, SsimSeries } from '../schemas/measurement.js';

/** numpy.percentile(values, q) with method='linear' (the default). */
export function percentileLinear(values: readonly number[], q: number): number {
  const n = values.length;
  if (n === 0) throw new FidelityError('INVALID_ARGUMENT', 'A percentile of no values is undefined');
  const sorted = Float64Array.from(values).sort();
  const quantile = q / 100;
  const virtual = (n - 1) * quantile;
  if (virtual >= n - 1) return sorted[n - 1]!;
  if (virtual <= 0) return sorted[0]!;
  const previous = Math.floor(virtual);
  const gamma = virtual - previous;
  const a = sorted[previous]!;
  const b = sorted[previous + 1]!;
  const diff = b - a;
  return gamma >= 0.5 ? b - diff * (1 - gamma) : a + diff * gamma;
}

/**
 * The harmonic mean of positive values (0 when any value is 0 or below: one broken frame dominates, as it should).
 */
export function harmonicMean(values: readonly number[]): number {
  let inverse = 0;
  for (const v of values) {
    if (!(v > 0)) return 0;
    inverse += 1 / v;
  }
  return values.length / inverse;
}

export function summarize(values: readonly number[]): SeriesSummary {
  if (values.length === 0) throw new FidelityError('NO_FRAMES', 'A series of no frames has no summary');
  let min = Infinity;
  let max = -Infinity;
  let worst = 0;
  let sum = 0;
  values.forEach((v, i) => {
    if (v < min) {
      min = v;
      worst = i;
    }
    if (v > max) max = v;
    sum += v;
  });
  return { min, mean: sum / values.length, p05: percentileLinear(values, 5), max, worst_frame: worst };
}

/** Summarises a per-frame SSIM series: min, mean, p05, max, worst frame, harmonic mean, and the series itself. */
export function summarizeSsim(values: readonly number[]): SsimSeries {
  return { ...summarize(values), harmonic_mean: harmonicMean(values), per_frame: [...values] };
}

/** Frames with a finite PSNR are summarised; identical frames (null) are counted, and are no one's worst frame. */
export function summarizePsnr(values: readonly (number | null)[]): PsnrSeries {
  const finite: number[] = [];
  const index: number[] = [];
  values.forEach((v, i) => {
    if (v !== null) {
      finite.push(v);
      index.push(i);
    }
  });
  const identical_frames = values.length - finite.length;
  if (finite.length === 0) {
    return { min: null, mean: null, p05: null, max: null, worst_frame: null, identical_frames, per_frame: [...values] };
  }
  const s = summarize(finite);
  return { min: s.min, mean: s.mean, p05: s.p05, max: s.max, worst_frame: index[s.worst_frame]!, identical_frames, per_frame: [...values] };
}
