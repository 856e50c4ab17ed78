/**
 * nvidia-smi's CSV (`--query-gpu=timestamp,index,power.draw,... --format=csv`)
 * read into typed rows. Columns are found by header name, never by position,
 * because the query order is the CI job's choice. Nothing is judged here:
 * integrate.ts decides which problems matter (only those inside the window).
 */
import { parseTimestampMicros } from './timestamp.js';

export type GpuKeyKind = 'index' | 'uuid' | 'pci.bus_id';

export interface TelemetryColumns {
  /** Header names as written (trimmed), null when absent. */
  timestamp: string | null;
  gpu: string | null;
  gpu_kind: GpuKeyKind | null;
  power: string | null;
}

export type RowProblem = 'UNBALANCED_QUOTES' | 'CELL_COUNT' | 'TIMESTAMP' | 'GPU' | 'POWER' | 'POWER_RANGE';

export interface TelemetryRow {
  /** 1-based line number in the file. */
  line: number;
  time_us: number | null;
  /** The GPU's identity as written (an index like "0", or a uuid / bus id). */
  gpu: string | null;
  /** Watts; null for a missing reading (`[N/A]`) or a malformed row. */
  power_w: number | null;
  missing_reading: boolean;
  /** Set when the row cannot be used; the first problem found. */
  problem: RowProblem | null;
}

export interface ParsedTelemetry {
  /** The header cells as written; null when the file has no non-blank line. */
  header: string[] | null;
  columns: TelemetryColumns;
  /** Data rows in file order, blank lines and repeated headers left out. */
  rows: TelemetryRow[];
  blank_lines: number;
  repeated_headers: number;
  /** The file ended without a newline: its last line was cut off and is dropped. */
  truncated_last_line: boolean;
}

const INDEX_NAMES = ['index', 'gpu_index', 'gpu index', 'gpu'];
const UUID_NAMES = ['uuid', 'gpu_uuid', 'gpu uuid'];
const BUS_NAMES = ['pci.bus_id', 'pci.bus', 'gpu_bus_id'];
// Most to least preferred. power.draw.average is a 1 s mean, a better trapezoid input than one instant.
const POWER_NAMES = ['power.draw', 'power.draw.average', 'power.draw.instant'];

/** Splits one CSV line, honouring double quotes; null when a quote is left open. */
export function splitCsvLine(line: string): string[] | null {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      cells.push(cell.trim());
      cell = '';
    } else cell += ch;
  }
  if (quoted) return null;
  cells.push(cell.trim());
  return cells;
}

interface HeaderName {
  name: string;
  unit: string | null;
}

function headerName(cell: string): HeaderName {
  const m = /^(.*?)\s*(?:\[([^\]]*)\])?$/.exec(cell.trim().toLowerCase().replace(/\s+/g, ' '));
  return { name: (m?.[1] ?? '').trim(), unit: m?.[2]?.trim() ?? null };
}

function findColumn(names: HeaderName[], wanted: string[]): number {
  for (const w of wanted) {
    const i = names.findIndex((h) => h.name === w);
    if (i >= 0) return i;
  }
  return -1;
}

// Division for mW: 412340 / 1000 is 412.34, 412340 * 1e-3 is not.
const TO_WATTS: Record<string, (v: number) => number> = { w: (v) => v, mw: (v) => v / 1000, kw: (v) => v * 1000 };

/** `[N/A]`, `[Not Supported]`, `[Unknown Error]`, `N/A`: the GPU answered, without a number. */
function isMissingReading(cell: string): boolean {
  return /^\[.*\]$/.test(cell) || /^n\/?a$/i.test(cell);
}

/**
 * Most watts one reading may show. A GPU board draws a few hundred to a few
 * thousand; 1e308 W is a finite number whose integral is Infinity J.
 */
export const MAX_READING_W = 100_000;

function parsePower(cell: string, headerUnit: string | null): number | 'POWER_RANGE' | null {
  const m = /^([+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)\s*(m?w|kw)?$/i.exec(cell);
  if (!m) return null;
  const unit = (m[2] ?? headerUnit ?? 'w').toLowerCase();
  const convert = TO_WATTS[unit];
  const value = convert ? convert(Number(m[1])) : NaN;
  if (Number.isFinite(value) && value > MAX_READING_W) return 'POWER_RANGE';
  return Number.isFinite(value) && value >= 0 ? value : null;
}

function parseGpu(cell: string, kind: GpuKeyKind): string | null {
  if (kind === 'index') return /^\d+$/.test(cell) ? String(Number(cell)) : null;
  return cell === '' || isMissingReading(cell) ? null : cell;
}

function detectColumns(header: HeaderName[], raw: string[]): { columns: TelemetryColumns; at: { t: number; g: number; p: number } } {
  const t = findColumn(header, ['timestamp']);
  let g = findColumn(header, INDEX_NAMES);
  let kind: GpuKeyKind | null = g >= 0 ? 'index' : null;
  // Without an index the uuid or bus id still tells the GPUs apart; integrate.ts numbers them in sorted order.
  if (g < 0 && (g = findColumn(header, UUID_NAMES)) >= 0) kind = 'uuid';
  if (g < 0 && (g = findColumn(header, BUS_NAMES)) >= 0) kind = 'pci.bus_id';
  const p = findColumn(header, POWER_NAMES);
  return {
    columns: {
      timestamp: t >= 0 ? raw[t]! : null,
      gpu: g >= 0 ? raw[g]! : null,
      gpu_kind: kind,
      power: p >= 0 ? raw[p]! : null,
    },
    at: { t, g, p },
  };
}

const NO_COLUMNS: TelemetryColumns = { timestamp: null, gpu: null, gpu_kind: null, power: null };

export function parseGpuMetricsCsv(input: string | Buffer): ParsedTelemetry {
  let text = typeof input === 'string' ? input : input.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const lines = text.split('\n');
  // split leaves '' after a final newline; anything else there is a line the writer never finished.
  const unterminated = lines.pop() ?? '';
  let truncated = false;
  if (unterminated.trim() !== '') {
    // A header is never a cut-off sample, so a lone unterminated header still names the columns.
    if (lines.every((l) => l.trim() === '')) lines.push(unterminated);
    else truncated = true;
  }
  const result: ParsedTelemetry = { header: null, columns: NO_COLUMNS, rows: [], blank_lines: 0, repeated_headers: 0, truncated_last_line: truncated };
  const first = lines.findIndex((l) => l.trim() !== '');
  if (first < 0) return result;
  const headerRaw = splitCsvLine(lines[first]!.replace(/\r$/, '')) ?? [];
  result.header = headerRaw;
  const header = headerRaw.map(headerName);
  const { columns, at } = detectColumns(header, headerRaw);
  result.columns = columns;
  const headerText = headerRaw.join(',');
  for (let i = 0; i < first; i++) result.blank_lines++;
  for (let i = first + 1; i < lines.length; i++) {
    const line = lines[i]!.replace(/\r$/, '');
    if (line.trim() === '') {
      result.blank_lines++;
      continue;
    }
    const cells = splitCsvLine(line);
    // Concatenated nvidia-smi logs repeat the header; it is not a sample and not malformed.
    if (cells && cells.join(',') === headerText) {
      result.repeated_headers++;
      continue;
    }
    result.rows.push(parseRow(i + 1, cells, header.length, at, header[at.p]?.unit ?? null, columns.gpu_kind));
  }
  return result;
}

function parseRow(
  line: number,
  cells: string[] | null,
  width: number,
  at: { t: number; g: number; p: number },
  powerUnit: string | null,
  kind: GpuKeyKind | null,
): TelemetryRow {
  const row: TelemetryRow = { line, time_us: null, gpu: null, power_w: null, missing_reading: false, problem: null };
  if (!cells) return { ...row, problem: 'UNBALANCED_QUOTES' };
  if (at.t >= 0 && at.t < cells.length) row.time_us = parseTimestampMicros(cells[at.t]!);
  if (cells.length !== width) return { ...row, problem: 'CELL_COUNT' };
  if (at.t < 0 || at.g < 0 || at.p < 0 || kind === null) return row;
  if (row.time_us === null) return { ...row, problem: 'TIMESTAMP' };
  row.gpu = parseGpu(cells[at.g]!, kind);
  if (row.gpu === null) return { ...row, problem: 'GPU' };
  const powerCell = cells[at.p]!;
  if (isMissingReading(powerCell)) return { ...row, missing_reading: true };
  const power = parsePower(powerCell, powerUnit);
  if (power === 'POWER_RANGE') return { ...row, problem: 'POWER_RANGE' };
  if (power === null) return { ...row, problem: 'POWER' };
  row.power_w = power;
  return row;
}
