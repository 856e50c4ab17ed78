import { describe, expect, it } from 'vitest';
import { resolveGeneratedAt, sourceDateEpoch } from '../src/time.js';

describe('SOURCE_DATE_EPOCH', () => {
  it('is whole seconds since 1970 UTC, and unset or empty means "not given"', () => {
    expect(sourceDateEpoch({ SOURCE_DATE_EPOCH: '1764450000' })?.toISOString()).toBe('2025-11-29T21:00:00.000Z');
    expect(sourceDateEpoch({ SOURCE_DATE_EPOCH: '0' })?.toISOString()).toBe('1970-01-01T00:00:00.000Z');
    expect(sourceDateEpoch({})).toBeUndefined();
    expect(sourceDateEpoch({ SOURCE_DATE_EPOCH: '' })).toBeUndefined();
  });

  it('refuses a malformed value instead of ignoring it', () => {
    for (const bad of ['soon', '-1', '1.5', '1e9', ' 1', '99999999999999999']) {
      expect(() => sourceDateEpoch({ SOURCE_DATE_EPOCH: bad }), bad).toThrow(expect.objectContaining({ code: 'SOURCE_DATE_EPOCH_INVALID' }));
    }
  });

  it('lets an explicit time win over the environment', () => {
    const given = new Date('2030-01-01T00:00:00Z');
    expect(resolveGeneratedAt(given, { SOURCE_DATE_EPOCH: 'soon' })).toBe(given);
    expect(resolveGeneratedAt(undefined, { SOURCE_DATE_EPOCH: '1764450000' }).toISOString()).toBe('2025-11-29T21:00:00.000Z');
  });
});
