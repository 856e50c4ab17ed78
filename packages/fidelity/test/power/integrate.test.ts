import { describe, expect, it } from 'vitest';
import { integratePower } from '../../src/power/integrate.js';
import { PowerResult } from '../../src/power/schemas.js';
import { PowerReport } from '../../src/schemas/report.js';
import { FidelityError } from '../../src/errors.js';
import { csvOf, HEADER, nvTime, series, T0, T0_MS, window10, type Row } from './helpers.js';

const S = 1000; // ms per second

/** Two GPUs at a constant 100 W, sampled every second from -0.5 s to +10.5 s around a 10 s window. */
const constantRows = series(2, T0_MS - 500, T0_MS + 10_500, S, () => 100);

function valid(csv: string | Buffer, window = window10, options = {}) {
  const result = integratePower(csv, window, { expectedGpuCount: 2, ...options });
  expect(result.report.reasons).toEqual([]);
  expect(result.report.power_valid).toBe(true);
  return result;
}

function invalid(csv: string | Buffer | null, window: { start_unix: number; end_unix: number } | null = window10, options = {}) {
  const result = integratePower(csv, window, { expectedGpuCount: 2, ...options });
  expect(result.report.power_valid).toBe(false);
  // No energy figure of any kind once anything fails.
  expect(result.report).not.toHaveProperty('total_gpu_energy_j');
  expect(result.report).not.toHaveProperty('avg_total_gpu_power_w');
  expect(result.report).not.toHaveProperty('joules_per_valid_clip');
  expect(result.audit.total_gpu_energy_j).toBeNull();
  for (const g of result.audit.per_gpu) expect(g.energy_j).toBeNull();
  return result;
}

describe('integratePower: hand-computed energy', () => {
  it('two GPUs at 100 W over 10 s make exactly 2000 J', () => {
    const { report, audit } = valid(csvOf(constantRows), window10, { validClips: 4 });
    expect(report.total_gpu_energy_j).toBe(2000);
    expect(report.avg_total_gpu_power_w).toBe(200);
    expect(report.joules_per_valid_clip).toBe(500);
    expect(report.observed_gpu_count).toBe(2);
    expect(report.method).toBe('trapezoid-linear-edges-v1');
    expect(audit.per_gpu.map((g) => [g.index, g.energy_j, g.samples_used, g.max_gap_s])).toEqual([
      [0, 1000, 12, 1],
      [1, 1000, 12, 1],
    ]);
    expect(PowerResult.parse({ report, audit })).toEqual({ report, audit });
    expect(() => PowerReport.parse(report)).not.toThrow();
  });

  it('integrates a linear ramp exactly: 100 W + 10 W/s over 10 s is 1500 J', () => {
    const rows = series(1, T0_MS - 1000, T0_MS + 11_000, S, (ms) => 100 + (10 * (ms - T0_MS)) / S);
    const { report } = valid(csvOf(rows), window10, { expectedGpuCount: 1 });
    expect(report.total_gpu_energy_j).toBeCloseTo(1500, 9);
    expect(report.avg_total_gpu_power_w).toBeCloseTo(150, 9);
  });

  it('interpolates linearly at both window edges', () => {
    // Edges at 0 s and 2 s fall midway between readings: 0 W at -1 s, 200 W at 1 s, 0 W at 3 s.
    // Interpolated: 100 W at 0 s and 100 W at 2 s; trapezoids (100+200)/2 + (200+100)/2 = 300 J.
    const rows: Row[] = [
      { ms: T0_MS - 1000, gpu: 0, w: 0 },
      { ms: T0_MS + 1000, gpu: 0, w: 200 },
      { ms: T0_MS + 3000, gpu: 0, w: 0 },
    ];
    const { report, audit } = valid(csvOf(rows), { start_unix: T0, end_unix: T0 + 2 }, { expectedGpuCount: 1 });
    expect(report.total_gpu_energy_j).toBe(300);
    expect(audit.per_gpu[0]!.max_gap_s).toBe(2);
  });

  it('uses a reading that sits exactly on an edge as it is', () => {
    const rows: Row[] = [
      { ms: T0_MS, gpu: 0, w: 50 },
      { ms: T0_MS + 1000, gpu: 0, w: 150 },
      { ms: T0_MS + 2000, gpu: 0, w: 50 },
    ];
    const { report, audit } = valid(csvOf(rows), { start_unix: T0, end_unix: T0 + 2 }, { expectedGpuCount: 1 });
    expect(report.total_gpu_energy_j).toBe(200);
    expect(audit.per_gpu[0]!.samples_used).toBe(3);
  });

  it('averages readings that share a timestamp', () => {
    // As the edge case above, but 200 W at 1 s arrives as 100 W and 300 W.
    const rows: Row[] = [
      { ms: T0_MS - 1000, gpu: 0, w: 0 },
      { ms: T0_MS + 1000, gpu: 0, w: 100 },
      { ms: T0_MS + 1000, gpu: 0, w: 300 },
      { ms: T0_MS + 3000, gpu: 0, w: 0 },
    ];
    const { report, audit } = valid(csvOf(rows), { start_unix: T0, end_unix: T0 + 2 }, { expectedGpuCount: 1 });
    expect(report.total_gpu_energy_j).toBe(300);
    expect(audit.per_gpu[0]!.duplicate_readings).toBe(1);
    expect(audit.per_gpu[0]!.samples_in_range).toBe(3);
  });

  it('ignores rows outside [start - max_gap, end + max_gap] whatever they hold', () => {
    const far: Row[] = [
      { ms: T0_MS - 3600_000, gpu: 0, w: 'garbage' },
      { ms: T0_MS - 10_000, gpu: 0, w: 9999 },
      { ms: T0_MS + 20_000, gpu: 1, w: 9999 },
    ];
    const { report, audit } = valid(csvOf([...far.slice(0, 2), ...constantRows, far[2]!]));
    expect(report.total_gpu_energy_j).toBe(2000);
    expect(audit.rows.skipped_outside_range).toBe(2);
    expect(audit.rows.malformed_outside_range).toBe(1);
    expect(audit.rows.malformed_in_range).toBe(0);
    expect(audit.malformed).toEqual([{ line: 2, problem: 'POWER', in_range: false }]);
  });

  it('gives the same figures for rows in any order, and the same JSON twice', () => {
    const shuffled = [...constantRows].reverse();
    const a = valid(csvOf(constantRows));
    const b = valid(csvOf(shuffled));
    expect(b.report).toEqual(a.report);
    expect(JSON.stringify(valid(csvOf(constantRows)))).toBe(JSON.stringify(a));
  });
});

describe('integratePower: formats', () => {
  const expectSameEnergy = (text: string) => expect(valid(text).report.total_gpu_energy_j).toBe(2000);

  it('reads ISO and epoch timestamps', () => {
    const iso = constantRows.map((r) => `${new Date(r.ms).toISOString()}, ${r.gpu}, 100 W`);
    expectSameEnergy(`${HEADER}\n${iso.join('\n')}\n`);
    const isoNoZone = constantRows.map((r) => `${new Date(r.ms).toISOString().slice(0, -1)}, ${r.gpu}, 100 W`);
    expectSameEnergy(`${HEADER}\n${isoNoZone.join('\n')}\n`);
    const epoch = constantRows.map((r) => `${(r.ms / 1000).toFixed(3)}, ${r.gpu}, 100`);
    expectSameEnergy(`timestamp, index, power.draw [W]\n${epoch.join('\n')}\n`);
  });

  it('finds columns by name in any order and ignores power limits', () => {
    const header = 'name, power.limit [W], index, enforced.power.limit [W], power.draw [W], power.max_limit [W], timestamp';
    const lines = constantRows.map((r) => `NVIDIA H200, 700.00 W, ${r.gpu}, 700.00 W, 100.00 W, 700.00 W, ${nvTime(r.ms)}`);
    const { audit } = valid(`${header}\n${lines.join('\n')}\n`);
    expect(audit.columns).toEqual({ timestamp: 'timestamp', gpu: 'index', gpu_kind: 'index', power: 'power.draw [W]' });
    expect(audit.total_gpu_energy_j).toBe(2000);
  });

  it('accepts power.draw.instant, quotes, CRLF and a byte order mark', () => {
    const lines = constantRows.map((r) => `"${nvTime(r.ms)}","${r.gpu}","100.00 W"`);
    const { audit } = valid(`\ufefftimestamp,index,power.draw.instant [W]\r\n${lines.join('\r\n')}\r\n`);
    expect(audit.columns.power).toBe('power.draw.instant [W]');
    expect(audit.total_gpu_energy_j).toBe(2000);
  });

  it('tells GPUs apart by uuid when there is no index column, numbered in sorted order', () => {
    const ids = ['GPU-bbbb', 'GPU-aaaa'];
    const lines = series(2, T0_MS - 500, T0_MS + 10_500, S, (_ms, gpu) => (gpu === 0 ? 100 : 50)).map((r) => `${nvTime(r.ms)}, ${ids[r.gpu]}, ${r.w} W`);
    const { audit } = valid(`timestamp, uuid, power.draw [W]\n${lines.join('\n')}\n`);
    expect(audit.per_gpu.map((g) => [g.index, g.id, g.energy_j])).toEqual([
      [0, 'GPU-aaaa', 500],
      [1, 'GPU-bbbb', 1000],
    ]);
  });

  it('skips a repeated header line and blank lines', () => {
    const text = csvOf(constantRows).replace(`\n${nvTime(T0_MS + 5500)}`, `\n\n${HEADER}\n${nvTime(T0_MS + 5500)}`);
    const { audit } = valid(text);
    expect(audit.rows.repeated_headers).toBe(1);
    expect(audit.rows.blank_lines).toBe(1);
  });
});

describe('integratePower: a truncated last line', () => {
  it('is dropped, not fatal', () => {
    const text = `${csvOf(constantRows)}${nvTime(T0_MS + 11_500)}, 1, 10`;
    const { report, audit } = valid(text);
    expect(report.total_gpu_energy_j).toBe(2000);
    expect(audit.rows.truncated_last_line).toBe(true);
    expect(audit.rows.data_rows).toBe(constantRows.length);
  });

  it('is not read as a short number even when it would have been the bracketing reading', () => {
    // The cut line "... 1, 10" (from "100.00 W") is GPU 1's only reading after the window end.
    const rows = constantRows.slice(0, -1);
    const text = `${csvOf(rows)}${nvTime(T0_MS + 10_500)}, 1, 10`;
    const { report, audit } = invalid(text);
    expect(report.reasons).toEqual(['WINDOW_NOT_BRACKETED']);
    expect(audit.per_gpu[1]!.reasons).toEqual(['WINDOW_NOT_BRACKETED']);
    expect(audit.per_gpu[0]!.reasons).toEqual([]);
  });

  it('may stop in the middle of a timestamp', () => {
    const { report } = valid(`${csvOf(constantRows)}2025/11/2`);
    expect(report.total_gpu_energy_j).toBe(2000);
  });
});

describe('integratePower: the gap limit', () => {
  // Readings at -1.5 s and then every 3.000 s or 3.001 s; window [0, 10].
  function gapped(stepMs: number, maxGapS?: number) {
    const rows = series(1, T0_MS - 1500, T0_MS + 10_000 + stepMs, stepMs, () => 100);
    return integratePower(csvOf(rows), window10, { expectedGpuCount: 1, ...(maxGapS === undefined ? {} : { maxGapS }) });
  }

  it('passes a gap of exactly 3 s (the default limit)', () => {
    const { report, audit } = gapped(3000);
    expect(report.power_valid).toBe(true);
    expect(report.max_gap_s).toBe(3);
    expect(audit.per_gpu[0]!.max_gap_s).toBe(3);
    expect(report.total_gpu_energy_j).toBe(1000);
  });

  it('fails a gap of 3.001 s', () => {
    const { report, audit } = gapped(3001);
    expect(report.power_valid).toBe(false);
    expect(report.reasons).toEqual(['GAP_EXCEEDED']);
    expect(audit.per_gpu[0]!.max_gap_s).toBe(3.001);
  });

  it('follows a custom limit', () => {
    expect(gapped(3001, 3.001).report.power_valid).toBe(true);
    expect(gapped(3000, 2.999).report.reasons).toEqual(['GAP_EXCEEDED']);
  });

  it('counts [N/A] readings as a gap, not as 0 W', () => {
    // Readings every second; [N/A] at 3 s and 4 s leaves a 3 s step (2 s -> 5 s): still valid, energy from the line between.
    const two = series(1, T0_MS - 1000, T0_MS + 11_000, S, (ms) => ([3000, 4000].includes(ms - T0_MS) ? '[N/A]' : 100));
    const ok = valid(csvOf(two), window10, { expectedGpuCount: 1 });
    expect(ok.report.total_gpu_energy_j).toBe(1000);
    expect(ok.audit.per_gpu[0]!.missing_readings).toBe(2);
    expect(ok.audit.per_gpu[0]!.max_gap_s).toBe(3);
    // A third [N/A] makes the step 4 s.
    const three = series(1, T0_MS - 1000, T0_MS + 11_000, S, (ms) => ([3000, 4000, 5000].includes(ms - T0_MS) ? '[N/A]' : 100));
    const bad = invalid(csvOf(three), window10, { expectedGpuCount: 1 });
    expect(bad.report.reasons).toEqual(['GAP_EXCEEDED']);
    expect(bad.audit.rows.malformed_in_range).toBe(0);
  });
});

describe('integratePower: every reason code', () => {
  const good = csvOf(constantRows);

  it('WINDOW_MISSING and WINDOW_INVALID', () => {
    expect(invalid(good, null).report.reasons).toEqual(['WINDOW_MISSING']);
    expect(invalid(good, { start_unix: T0, end_unix: T0 }).report.reasons).toEqual(['WINDOW_INVALID']);
    expect(invalid(good, { start_unix: T0 + 10, end_unix: T0 }).report.reasons).toEqual(['WINDOW_INVALID']);
    const nan = invalid(good, { start_unix: Number.NaN, end_unix: T0 });
    expect(nan.report.reasons).toEqual(['WINDOW_INVALID']);
    expect(PowerResult.parse(nan).audit.window).toBeNull();
    // Without a window the GPUs are still counted over the whole file.
    const noWindow = invalid(good, null, { expectedGpuCount: 3 });
    expect(noWindow.report.reasons).toEqual(['WINDOW_MISSING', 'GPU_COUNT_MISMATCH']);
    expect(noWindow.report.observed_gpu_count).toBe(2);
  });

  it('TELEMETRY_MISSING and TELEMETRY_EMPTY', () => {
    expect(invalid(null).report.reasons).toEqual(['TELEMETRY_MISSING']);
    expect(invalid(Buffer.alloc(0)).report.reasons).toEqual(['TELEMETRY_EMPTY']);
    expect(invalid(' \n\n').report.reasons).toEqual(['TELEMETRY_EMPTY']);
    expect(invalid(`${HEADER}\n`).report.reasons).toEqual(['TELEMETRY_EMPTY']);
    expect(invalid(HEADER).report.reasons).toEqual(['TELEMETRY_EMPTY']);
    expect(invalid(`timestamp, index\n`).report.reasons).toEqual(['TELEMETRY_EMPTY', 'COLUMN_MISSING_POWER']);
    expect(invalid(null).report.observed_gpu_count).toBe(0);
  });

  it('COLUMN_MISSING_TIMESTAMP, COLUMN_MISSING_INDEX, COLUMN_MISSING_POWER', () => {
    const drop = (header: string, keep: (cells: string[]) => string[]) => {
      const lines = good.trimEnd().split('\n').slice(1).map((l) => keep(l.split(', ')).join(', '));
      return `${header}\n${lines.join('\n')}\n`;
    };
    expect(invalid(drop('index, power.draw [W]', (c) => c.slice(1))).report.reasons).toEqual(['COLUMN_MISSING_TIMESTAMP']);
    expect(invalid(drop('timestamp, power.draw [W]', (c) => [c[0]!, c[2]!])).report.reasons).toEqual(['COLUMN_MISSING_INDEX']);
    expect(invalid(drop('timestamp, index, power.limit [W]', (c) => c)).report.reasons).toEqual(['COLUMN_MISSING_POWER']);
    expect(invalid(drop('time, gpu_name, watts', (c) => c)).report.reasons).toEqual([
      'COLUMN_MISSING_TIMESTAMP',
      'COLUMN_MISSING_INDEX',
      'COLUMN_MISSING_POWER',
    ]);
  });

  it('MALFORMED_ROW_IN_WINDOW, including rows whose timestamp cannot be read', () => {
    for (const bad of [`${nvTime(T0_MS + 5000)}, 0, lots W`, `${nvTime(T0_MS + 5000)}, x, 100 W`, `${nvTime(T0_MS + 5000)}, 0`, `not a time, 0, 100 W`, `${nvTime(T0_MS + 5000)}, 0, -5 W`]) {
      const text = good.replace(`\n${nvTime(T0_MS + 5500)}, 0`, `\n${bad}\n${nvTime(T0_MS + 5500)}, 0`);
      const { report, audit } = invalid(text);
      expect(report.reasons, bad).toEqual(['MALFORMED_ROW_IN_WINDOW']);
      expect(audit.rows.malformed_in_range).toBe(1);
      expect(audit.malformed[0]!.in_range).toBe(true);
    }
  });

  it('places a row with an unreadable timestamp by its neighbours', () => {
    // Both readable neighbours long before the window: outside, ignored.
    const early = series(2, T0_MS - 60_000, T0_MS - 50_000, S, () => 100).map((r) => `${nvTime(r.ms)}, ${r.gpu}, 100 W`);
    const rest = csvOf(constantRows).trimEnd().split('\n').slice(1);
    const { audit } = valid(`${HEADER}\n${[...early.slice(0, 4), 'garbled, 0, 1 W', ...early.slice(4), ...rest].join('\n')}\n`);
    expect(audit.rows.malformed_outside_range).toBe(1);
    // Between a row before the range and one inside it: it may be inside, so it counts.
    const straddling = invalid(`${HEADER}\n${[...early, 'garbled, 0, 1 W', ...rest].join('\n')}\n`);
    expect(straddling.report.reasons).toEqual(['MALFORMED_ROW_IN_WINDOW']);
  });

  it('NO_SAMPLES_IN_WINDOW when the telemetry covers another time', () => {
    const hourEarlier = series(2, T0_MS - 3600_000, T0_MS - 3590_000, S, () => 100);
    const { report, audit } = invalid(csvOf(hourEarlier));
    expect(report.reasons).toEqual(['NO_SAMPLES_IN_WINDOW', 'GPU_COUNT_MISMATCH']);
    expect(report.observed_gpu_count).toBe(0);
    expect(audit.rows.skipped_outside_range).toBe(hourEarlier.length);
  });

  it('GPU_COUNT_MISMATCH, with too many and too few GPUs', () => {
    const three = invalid(csvOf(series(3, T0_MS - 500, T0_MS + 10_500, S, () => 100)));
    expect(three.report.reasons).toEqual(['GPU_COUNT_MISMATCH']);
    expect(three.report.observed_gpu_count).toBe(3);
    const one = invalid(csvOf(constantRows.filter((r) => r.gpu === 0)));
    expect(one.report.reasons).toEqual(['GPU_COUNT_MISMATCH']);
    expect(one.report.observed_gpu_count).toBe(1);
    expect(one.report.expected_gpu_count).toBe(2);
  });

  it('WINDOW_NOT_BRACKETED at the start and at the end', () => {
    const lateStart = invalid(csvOf(series(2, T0_MS + 500, T0_MS + 10_500, S, () => 100)));
    expect(lateStart.report.reasons).toEqual(['WINDOW_NOT_BRACKETED']);
    expect(lateStart.audit.per_gpu.every((g) => !g.bracketed)).toBe(true);
    const earlyEnd = invalid(csvOf(series(2, T0_MS - 500, T0_MS + 9500, S, () => 100)));
    expect(earlyEnd.report.reasons).toEqual(['WINDOW_NOT_BRACKETED']);
    // A reading 5 s before the start is outside the range, so it cannot bracket the window.
    const farStart = invalid(csvOf([...series(2, T0_MS - 5000, T0_MS - 5000, S, () => 100), ...series(2, T0_MS + 500, T0_MS + 10_500, S, () => 100)]));
    expect(farStart.report.reasons).toEqual(['WINDOW_NOT_BRACKETED']);
  });

  it('GAP_EXCEEDED when a GPU drops readings mid-window', () => {
    const rows = constantRows.filter((r) => !(r.gpu === 1 && r.ms > T0_MS + 2000 && r.ms < T0_MS + 7000));
    const { report, audit } = invalid(csvOf(rows));
    expect(report.reasons).toEqual(['GAP_EXCEEDED']);
    // GPU 1 reads at 1.5 s and next at 7.5 s.
    expect(audit.per_gpu.map((g) => g.max_gap_s)).toEqual([1, 6]);
  });

  it('lists every code that applies, in catalogue order', () => {
    const rows = [...series(2, T0_MS + 500, T0_MS + 3500, S, () => 100), ...series(3, T0_MS + 8500, T0_MS + 10_500, S, () => 100)];
    const text = csvOf(rows).replace(`\n${nvTime(T0_MS + 1500)}, 0`, `\n${nvTime(T0_MS + 1000)}, 0, ???\n${nvTime(T0_MS + 1500)}, 0`);
    const { report } = invalid(text);
    expect(report.reasons).toEqual(['MALFORMED_ROW_IN_WINDOW', 'GPU_COUNT_MISMATCH', 'WINDOW_NOT_BRACKETED', 'GAP_EXCEEDED']);
  });
});

describe('integratePower: arguments', () => {
  it('refuses a bad GPU count, gap or clip count', () => {
    const good = csvOf(constantRows);
    expect(() => integratePower(good, window10, { expectedGpuCount: 0 })).toThrow(FidelityError);
    expect(() => integratePower(good, window10, { expectedGpuCount: 2, maxGapS: 0 })).toThrow(/maxGapS/);
    expect(() => integratePower(good, window10, { expectedGpuCount: 2, validClips: -1 })).toThrow(/validClips/);
  });

  it('leaves joules per valid clip out when there is no valid clip', () => {
    const { report } = valid(csvOf(constantRows), window10, { validClips: 0 });
    expect(report.total_gpu_energy_j).toBe(2000);
    expect(report).not.toHaveProperty('joules_per_valid_clip');
    expect(report.valid_clips).toBe(0);
  });
});
