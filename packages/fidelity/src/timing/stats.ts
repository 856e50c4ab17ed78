import type { StageSummary } from './schemas.js';

/** numpy's default ("linear"): interpolate between the two closest ranks. */
export function quantile(sorted: readonly number[], q: number): number {
  const pos = q * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

export function summarize(values: readonly number[]): StageSummary | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return {
    n: sorted.length,
    min: sorted[0]!,
    median: quantile(sorted, 0.5),
    p90: quantile(sorted, 0.9),
    max: sorted[sorted.length - 1]!,
    // Summed in sorted order so the mean does not depend on record order.
    mean: sorted.reduce((a, b) => a + b, 0) / sorted.length,
  };
}
