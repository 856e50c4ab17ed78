/**
 * The decision rule of docs/calibration.md: conformal p-values against the
 * same-hardware noise sample, Bonferroni over a pair's metrics, and the
 * binomial tail over a comparison's pairs. Pure functions over numbers.
 *
 * Values follow calibrate/metrics.ts: null is +infinity.
 */
import type { Worse } from './metrics.js';

const asNumber = (v: number | null): number => (v === null ? Number.POSITIVE_INFINITY : v);

/** Whether `s` is at least as bad as `v` (ties count). */
export function atLeastAsBad(s: number | null, v: number | null, worse: Worse): boolean {
  return worse === 'lower' ? asNumber(s) <= asNumber(v) : asNumber(s) >= asNumber(v);
}

/** p = (1 + #{i : s_i at least as bad as v}) / (n + 1). With n = 0 it is 1. */
export function conformalP(v: number | null, sample: readonly (number | null)[], worse: Worse): number {
  let count = 0;
  for (const s of sample) if (atLeastAsBad(s, v, worse)) count++;
  return (1 + count) / (sample.length + 1);
}

/** The smallest p a sample of n values can give: 1 / (n + 1). */
export function smallestP(n: number): number {
  return 1 / (n + 1);
}

/** Whether a sample of n values can ever give p <= alpha (n >= 1/alpha - 1). */
export function canDecide(n: number, alpha: number): boolean {
  return smallestP(n) <= alpha + 1e-12;
}

/** The worst value of a sample (null = +infinity), or undefined for an empty one. */
export function worstOf(sample: readonly (number | null)[], worse: Worse): number | null | undefined {
  if (sample.length === 0) return undefined;
  let worst: number | null = sample[0]!;
  for (const s of sample) if (atLeastAsBad(s, worst, worse)) worst = s;
  return worst;
}

/** Bonferroni over k metrics: min(1, k * min p). */
export function bonferroni(ps: readonly number[]): number {
  if (ps.length === 0) return 1;
  return Math.min(1, ps.length * Math.min(...ps));
}

/**
 * P(X >= x) for X ~ Binomial(n, p), summed in log space term by term from x
 * upwards so a small tail is not lost to cancellation (1 - CDF would be).
 */
export function binomialTail(x: number, n: number, p: number): number {
  if (!Number.isInteger(x) || !Number.isInteger(n) || n < 0) throw new RangeError(`binomialTail needs integers, got x=${x}, n=${n}`);
  if (x <= 0) return 1;
  if (x > n) return 0;
  if (p <= 0) return 0;
  if (p >= 1) return 1;
  const lp = Math.log(p);
  const lq = Math.log1p(-p);
  let logC = 0; // log C(n, k), built up from C(n, 0)
  for (let k = 1; k <= x; k++) logC += Math.log(n - k + 1) - Math.log(k);
  let sum = 0;
  for (let k = x; k <= n; k++) {
    sum += Math.exp(logC + k * lp + (n - k) * lq);
    logC += Math.log(n - k) - Math.log(k + 1);
  }
  return Math.min(1, sum);
}
