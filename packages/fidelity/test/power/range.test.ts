/**
 * Finite numbers that overflow: a 1e308 W reading or a ±1.7e308 s window are
 * valid CSV / JSON numbers, and the trapezoid of them is Infinity. Power is
 * then not valid (with a reason), never "Infinity J", and the result still
 * fits report.json's schema (which has no Infinity).
 */
import { describe, expect, it } from 'vitest';
import { integratePower } from '../../src/power/integrate.js';
import { PowerResult } from '../../src/power/schemas.js';
import { csvOf, series, T0_MS, window10 } from './helpers.js';

const S = 1000;

describe('power readings and windows outside sane ranges', () => {
  it('one 1e308 W reading in the window: not valid, MALFORMED_ROW_IN_WINDOW, the row marked POWER_RANGE', () => {
    const rows = series(2, T0_MS - 500, T0_MS + 10_500, S, (t, gpu) => (gpu === 1 && t === T0_MS + 4500 ? 1e308 : 100));
    const result = integratePower(csvOf(rows), window10, { expectedGpuCount: 2 });
    expect(result.report.power_valid).toBe(false);
    expect(result.report.reasons).toEqual(['MALFORMED_ROW_IN_WINDOW']);
    expect(result.report).not.toHaveProperty('total_gpu_energy_j');
    expect(result.audit.malformed.map((m) => m.problem)).toEqual(['POWER_RANGE']);
    // JSON.stringify would print Infinity as null: the schema (no Infinity in report.json) is the real check.
    expect(PowerResult.safeParse(result).success).toBe(true);
  });

  it('100 kW is the most one reading may show', () => {
    const at = (w: number) => integratePower(csvOf(series(2, T0_MS - 500, T0_MS + 10_500, S, () => w)), window10, { expectedGpuCount: 2 });
    expect(at(100_000).report.total_gpu_energy_j).toBe(2_000_000);
    const over = at(100_001);
    expect(over.report.reasons).toContain('MALFORMED_ROW_IN_WINDOW');
    expect(new Set(over.audit.malformed.map((m) => m.problem))).toEqual(new Set(['POWER_RANGE']));
  });

  it('a window of ±1.7e308 s is WINDOW_INVALID, not an infinite duration', () => {
    const rows = series(2, T0_MS - 500, T0_MS + 10_500, S, () => 100);
    const result = integratePower(csvOf(rows), { start_unix: -1.7e308, end_unix: 1.7e308 }, { expectedGpuCount: 2 });
    expect(result.report.power_valid).toBe(false);
    expect(result.report.reasons).toContain('WINDOW_INVALID');
    expect(result.audit.duration_s).toBeNull();
    expect(PowerResult.safeParse(result).success).toBe(true);
  });
});
