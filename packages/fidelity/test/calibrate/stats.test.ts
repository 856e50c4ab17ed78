/**
 * The decision rule of docs/calibration.md against an independent oracle:
 * every p-value is recounted here from its definition, and the binomial tail
 * is summed with exact integer binomial coefficients (BigInt), never with the
 * log-space code under test.
 */
import { describe, expect, it } from 'vitest';
import { binomialTail, bonferroni, canDecide, conformalP, smallestP, worstOf } from '../../src/calibrate/stats.js';

/** JSON null is +infinity in every calibrated metric. */
const inf = (v: number | null): number => (v === null ? Infinity : v);

function oracleP(v: number | null, sample: (number | null)[], worse: 'lower' | 'higher'): number {
  let k = 0;
  for (const s of sample) {
    const bad = worse === 'lower' ? inf(s) <= inf(v) : inf(s) >= inf(v);
    if (bad) k += 1;
  }
  return (k + 1) / (sample.length + 1);
}

function choose(n: number, k: number): bigint {
  let r = 1n;
  for (let i = 1; i <= k; i++) r = (r * BigInt(n - k + i)) / BigInt(i);
  return r;
}

/** P(X >= x), X ~ Bin(n, num/den), as an exact fraction turned into a double at the end. */
function oracleTail(x: number, n: number, num: number, den: number): number {
  let total = 0n;
  for (let k = x; k <= n; k++) total += choose(n, k) * BigInt(num) ** BigInt(k) * BigInt(den - num) ** BigInt(n - k);
  if (total === 0n) return 0;
  const scale = BigInt(den) ** BigInt(n);
  // Keep about 20 significant digits through the division, however small the tail.
  const shift = scale.toString().length - total.toString().length + 20;
  return Number((total * 10n ** BigInt(shift)) / scale) * 10 ** -shift;
}

describe('conformal p-value', () => {
  const sample = [0.91, 0.95, 0.95, 0.97, 0.99, null];
  it('counts ties as at least as bad, for lower-is-worse', () => {
    for (const v of [0.9, 0.91, 0.95, 0.96, 0.99, 1, null]) expect(conformalP(v, sample, 'lower'), String(v)).toBe(oracleP(v, sample, 'lower'));
    expect(conformalP(0.95, sample, 'lower')).toBe(4 / 7); // 0.91, 0.95, 0.95 and itself
    expect(conformalP(0.9, sample, 'lower')).toBe(1 / 7); // worse than every same-hardware pair
  });
  it('treats null as +infinity: identical is the best value for PSNR, the worst for the rms deviation', () => {
    expect(conformalP(null, [30, 40, null], 'lower')).toBe(4 / 4); // an identical pair is never beyond noise
    expect(conformalP(45, [30, 40, null], 'lower')).toBe(3 / 4);
    expect(conformalP(null, [0.01, 0.02], 'higher')).toBe(1 / 3); // infinite deviation: worse than all
    expect(conformalP(0.015, [0.01, 0.02, null], 'higher')).toBe(3 / 4);
  });
  it('matches the oracle on random samples of both directions, with ties', () => {
    let seed = 7;
    const rnd = (): number => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (let t = 0; t < 200; t++) {
      const n = Math.floor(rnd() * 40);
      const s = Array.from({ length: n }, () => (rnd() < 0.1 ? null : Math.round(rnd() * 20) / 20));
      const v = rnd() < 0.1 ? null : Math.round(rnd() * 20) / 20;
      for (const w of ['lower', 'higher'] as const) expect(conformalP(v, s, w)).toBe(oracleP(v, s, w));
    }
  });
  it('is 1 with an empty sample (n = 0), and its floor is 1/(n+1)', () => {
    expect(conformalP(0.1, [], 'lower')).toBe(1);
    expect(smallestP(0)).toBe(1);
    expect(smallestP(19)).toBe(0.05);
  });
  it('can decide at alpha only from n >= 1/alpha - 1 (19 for 0.05)', () => {
    expect(canDecide(18, 0.05)).toBe(false);
    expect(canDecide(19, 0.05)).toBe(true);
    expect(canDecide(6, 0.05)).toBe(false);
    expect(canDecide(99, 0.01)).toBe(true);
    expect(canDecide(98, 0.01)).toBe(false);
  });
});

describe('worst value and Bonferroni', () => {
  it('worst of a sample follows the direction, null as +infinity', () => {
    expect(worstOf([0.9, 0.8, null], 'lower')).toBe(0.8);
    expect(worstOf([null, null], 'lower')).toBe(null);
    expect(worstOf([0.1, null, 0.3], 'higher')).toBe(null);
    expect(worstOf([], 'lower')).toBe(undefined);
  });
  it('p_pair = min(1, k * min p)', () => {
    expect(bonferroni([0.02, 0.5, 0.3])).toBeCloseTo(0.06, 15);
    expect(bonferroni([0.4, 0.5])).toBe(0.8);
    expect(bonferroni([0.6, 0.7])).toBe(1);
    expect(bonferroni([])).toBe(1);
  });
});

describe('binomial tail', () => {
  it('equals exact integer arithmetic', () => {
    for (const [x, n] of [[0, 10], [1, 10], [3, 14], [6, 14], [14, 14], [2, 40], [10, 40], [40, 40], [0, 0], [1, 0], [5, 200]] as const) {
      const want = oracleTail(Math.max(x, 0), n, 1, 20);
      const got = binomialTail(x, n, 0.05);
      if (want === 0) expect(got).toBe(0);
      else expect(Math.abs(got - want) / want, `${x} of ${n}`).toBeLessThan(1e-12);
    }
  });
  it('keeps tiny tails (no 1 - CDF cancellation)', () => {
    const want = oracleTail(30, 40, 1, 20);
    expect(want).toBeGreaterThan(0);
    expect(want).toBeLessThan(1e-25);
    expect(Math.abs(binomialTail(30, 40, 0.05) - want) / want).toBeLessThan(1e-10);
  });
  it('is 1 for x <= 0 and 0 for x > n', () => {
    expect(binomialTail(0, 5, 0.05)).toBe(1);
    expect(binomialTail(6, 5, 0.05)).toBe(0);
  });
});

describe('calibration.schema.json', () => {
  it('docs/schemas holds the current JSON Schema of calibration.json (npm run api rewrites it)', async () => {
    const { readFileSync } = await import('node:fs');
    const { calibrationJsonSchema } = await import('../../src/calibrate/load.js');
    const committed = readFileSync(new URL('../../../../docs/schemas/calibration.schema.json', import.meta.url), 'utf8');
    expect(committed).toBe(calibrationJsonSchema());
    expect(JSON.parse(committed).required).toEqual(expect.arrayContaining(['n', 'metrics', 'sources', 'decoder', 'plan_sha256']));
  });
});
