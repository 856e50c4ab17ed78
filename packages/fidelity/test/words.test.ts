/** Counts in sentences (words.ts): the noun agrees with its number in every output that uses them. */
import { describe, expect, it } from 'vitest';
import { byCount, counted } from '../src/words.js';
import * as base from '../src/base.js';
import * as index from '../src/index.js';

describe('counted and byCount', () => {
  it('one form for exactly 1, the other for any other number, 0 included', () => {
    expect(counted(1, 'clip')).toBe('1 clip');
    expect(counted(0, 'clip')).toBe('0 clips');
    expect(counted(2, 'clip')).toBe('2 clips');
    expect(counted(1, 'match', 'matches')).toBe('1 match');
    expect(counted(3, 'match', 'matches')).toBe('3 matches');
    expect(`1 of ${counted(1, 'clip')} valid`).toBe('1 of 1 clip valid');
    expect(byCount(1, 'is', 'are')).toBe('is');
    expect(byCount(4, 'is', 'are')).toBe('are');
  });

  it('is one function for the CLI and the library: exported by both entries', () => {
    expect(base.counted).toBe(counted);
    expect(index.counted).toBe(counted);
    expect(base.byCount).toBe(byCount);
  });
});
