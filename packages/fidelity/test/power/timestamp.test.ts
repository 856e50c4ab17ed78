import { describe, expect, it } from 'vitest';
import { parseTimestampMicros, secondsToMicros } from '../../src/power/timestamp.js';

const T0_US = 1_764_450_000 * 1_000_000; // 2025-11-29T21:00:00Z

describe('parseTimestampMicros', () => {
  it('reads nvidia-smi timestamps as UTC with their milliseconds', () => {
    expect(parseTimestampMicros('2025/11/29 21:00:00.000')).toBe(T0_US);
    expect(parseTimestampMicros(' 2025/11/29 21:00:01.123 ')).toBe(T0_US + 1_123_000);
    expect(parseTimestampMicros('2025/11/29 21:00:01')).toBe(T0_US + 1_000_000);
  });

  it('reads ISO 8601 with Z, with an offset, and without a zone as UTC', () => {
    expect(parseTimestampMicros('2025-11-29T21:00:02.5Z')).toBe(T0_US + 2_500_000);
    expect(parseTimestampMicros('2025-11-29T21:00:02.5')).toBe(T0_US + 2_500_000);
    expect(parseTimestampMicros('2025-11-29 21:00:02.500000')).toBe(T0_US + 2_500_000);
    expect(parseTimestampMicros('2025-11-30T05:00:02.5+08:00')).toBe(T0_US + 2_500_000);
    expect(parseTimestampMicros('2025-11-29T16:30:00-0430')).toBe(T0_US);
  });

  it('reads epoch seconds to the microsecond', () => {
    expect(parseTimestampMicros('1764450000')).toBe(T0_US);
    expect(parseTimestampMicros('1764450000.000001')).toBe(T0_US + 1);
    expect(parseTimestampMicros('1764450003.123')).toBe(T0_US + 3_123_000);
  });

  it('keeps a 3.000 s step exact where float seconds would not', () => {
    const a = parseTimestampMicros('2025/11/29 21:00:01.123')!;
    const b = parseTimestampMicros('2025/11/29 21:00:04.123')!;
    expect(b - a).toBe(3_000_000);
    expect(secondsToMicros(T0_US / 1e6 + 0.123)).toBe(T0_US + 123_000);
  });

  it('refuses impossible dates, epoch milliseconds and text', () => {
    for (const bad of ['2026/02/30 10:00:00.000', '2026/13/01 10:00:00', '2026/01/01 24:00:00', '1764450000000', 'yesterday', '', '[N/A]', '2026/01/01']) {
      expect(parseTimestampMicros(bad), bad).toBeNull();
    }
  });
});
