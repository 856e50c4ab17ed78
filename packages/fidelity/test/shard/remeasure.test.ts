/** merge's re-measure sample: how many pairs, and which values it accepts. */
import { describe, expect, it } from 'vitest';
import type { PairRef } from '../../src/comparison/plan.js';
import { checkRemeasure, chooseAtRandom } from '../../src/shard/remeasure.js';

const refs = (n: number): PairRef[] => Array.from({ length: n }, (_, i) => ({ index: n - 1 - i }) as PairRef);

describe('remeasure', () => {
  it('takes any safe whole number; more than the pairs means every pair, in index order', () => {
    expect(checkRemeasure(1_000_000_000)).toBe(1_000_000_000);
    expect(checkRemeasure(Number.MAX_SAFE_INTEGER)).toBe(Number.MAX_SAFE_INTEGER);
    expect(chooseAtRandom(refs(5), 1_000_000_000).map((r) => r.index)).toEqual([0, 1, 2, 3, 4]);
    expect(chooseAtRandom(refs(5), Number.MAX_SAFE_INTEGER)).toHaveLength(5);
    expect(chooseAtRandom(refs(5), 2)).toHaveLength(2);
    expect(chooseAtRandom(refs(5), 0)).toEqual([]);
  });

  it('refuses what is not a whole number of at least 0, or beyond 2^53 - 1', () => {
    for (const bad of [-1, 1.5, Number.MAX_SAFE_INTEGER + 1, Number.NaN, '1', 'some']) expect(() => checkRemeasure(bad), String(bad)).toThrow(/options\.remeasure/);
  });
});
