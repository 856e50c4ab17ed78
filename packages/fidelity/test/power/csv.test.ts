import { describe, expect, it } from 'vitest';
import { parseGpuMetricsCsv, splitCsvLine } from '../../src/power/csv.js';

describe('splitCsvLine', () => {
  it('trims cells and honours quotes, commas and doubled quotes inside them', () => {
    expect(splitCsvLine(' a , "b, c" ,"say ""hi"""')).toEqual(['a', 'b, c', 'say "hi"']);
    expect(splitCsvLine('"open, 1')).toBeNull();
  });
});

describe('parseGpuMetricsCsv', () => {
  it('prefers power.draw over power.draw.average over power.draw.instant', () => {
    const p = parseGpuMetricsCsv('timestamp, index, power.draw.instant [W], power.draw.average [W], power.draw [W]\n');
    expect(p.columns.power).toBe('power.draw [W]');
    expect(parseGpuMetricsCsv('timestamp, index, power.draw.instant [W], power.draw.average [W]\n').columns.power).toBe('power.draw.average [W]');
  });

  it('reads units from the cell, else from the header', () => {
    const p = parseGpuMetricsCsv('timestamp, index, power.draw [mW]\n1764450000, 0, 412340\n1764450001, 0, 0.5 kW\n1764450002, 0, 12 W\n');
    expect(p.rows.map((r) => r.power_w)).toEqual([412.34, 500, 12]);
  });

  it('tells missing readings from malformed ones', () => {
    const p = parseGpuMetricsCsv('timestamp, index, power.draw [W]\n1764450000, 0, [N/A]\n1764450001, 0, [Not Supported]\n1764450002, 0, twelve W\n1764450003, 0\n1764450004, -1, 5 W\n');
    expect(p.rows.map((r) => [r.missing_reading, r.problem])).toEqual([
      [true, null],
      [true, null],
      [false, 'POWER'],
      [false, 'CELL_COUNT'],
      [false, 'GPU'],
    ]);
  });

  it('drops an unterminated last data line but keeps an unterminated lone header', () => {
    expect(parseGpuMetricsCsv('timestamp, index, power.draw [W]\n1764450000, 0, 1 W\n1764450001, 0, 4').rows).toHaveLength(1);
    const lone = parseGpuMetricsCsv('timestamp, index, power.draw [W]');
    expect(lone.truncated_last_line).toBe(false);
    expect(lone.columns.gpu).toBe('index');
  });
});
