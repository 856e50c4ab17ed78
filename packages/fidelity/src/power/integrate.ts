/**
 * Board energy over the measurement window (docs/power-and-timing.md, "Board energy"). Every check
 * runs and every failing one is named; any failure withholds every energy
 * figure, because a partial sum reads like a whole one.
 */
import { invalidParameter } from '../errors.js';
import { RANGES, type Window } from '../schemas/run-archive.js';
import { parseGpuMetricsCsv, type ParsedTelemetry, type TelemetryRow } from './csv.js';
import { orderPowerReasons, type PowerReasonCode } from './reasons.js';
import { DEFAULT_MAX_GAP_S, POWER_METHOD, type GpuPowerAudit, type MalformedRow, type PowerAudit, type PowerResult } from './schemas.js';
import { coverWindow, mergeDuplicates, trapezoidJoules, type Sample } from './series.js';
import { secondsToMicros, US_PER_S } from './timestamp.js';

/** Options of {@link integratePower}. */
export interface PowerOptions {
  /** run.json expected_gpu_count: the telemetry must show exactly this many GPUs. */
  expectedGpuCount: number;
  /** Largest allowed step between consecutive readings of one GPU, seconds (default 3). A step of exactly this passes. */
  maxGapS?: number;
  /** Ok measurement records, for joules per valid clip. */
  validClips?: number;
}

const MAX_LISTED_MALFORMED = 50;
/** Unix seconds up to the year 2286, as run archives may state them (schemas/run-archive.ts RANGES). */
const MAX_UNIX_S = RANGES.unixSeconds;

interface GpuRows {
  id: string;
  rowsTotal: number;
  samplesTotal: number;
  inRange: Sample[];
  missingInRange: number;
  seenInRange: boolean;
}

function checkOptions(options: PowerOptions): { expected: number; gapUs: number; maxGapS: number; validClips: number | null } {
  const { expectedGpuCount, maxGapS = DEFAULT_MAX_GAP_S, validClips } = options;
  if (!Number.isInteger(expectedGpuCount) || expectedGpuCount < 1) throw invalidParameter('expectedGpuCount', 'a positive integer', expectedGpuCount);
  if (typeof maxGapS !== 'number' || !Number.isFinite(maxGapS) || maxGapS <= 0) throw invalidParameter('maxGapS', 'a positive number of seconds', maxGapS);
  if (validClips !== undefined && (!Number.isInteger(validClips) || validClips < 0)) throw invalidParameter('validClips', 'a non-negative integer', validClips);
  return { expected: expectedGpuCount, gapUs: secondsToMicros(maxGapS), maxGapS, validClips: validClips ?? null };
}

function windowMicros(window: Window | null | undefined): { startUs: number; endUs: number } | PowerReasonCode {
  if (!window) return 'WINDOW_MISSING';
  const { start_unix: start, end_unix: end } = window;
  // Finite is not enough: ±1.7e308 s turns into ±Infinity µs and an infinite duration.
  if (!Number.isFinite(start) || !Number.isFinite(end) || Math.abs(start) > MAX_UNIX_S || Math.abs(end) > MAX_UNIX_S) return 'WINDOW_INVALID';
  const startUs = secondsToMicros(start);
  const endUs = secondsToMicros(end);
  return endUs > startUs ? { startUs, endUs } : 'WINDOW_INVALID';
}

/**
 * A row whose timestamp cannot be read is placed by its neighbours in the
 * file (nvidia-smi writes in time order): outside only when the nearest
 * readable timestamps on both sides lie beyond the same end of the range.
 */
function rowPlacement(rows: readonly TelemetryRow[], lo: number, hi: number): boolean[] {
  const inRange = (t: number) => t >= lo && t <= hi;
  const before: (number | null)[] = [];
  let last: number | null = null;
  for (const r of rows) {
    before.push(last);
    if (r.time_us !== null) last = r.time_us;
  }
  const placed = new Array<boolean>(rows.length);
  let next: number | null = null;
  for (let i = rows.length - 1; i >= 0; i--) {
    const r = rows[i]!;
    if (r.time_us !== null) placed[i] = inRange(r.time_us);
    else {
      const prev = before[i] ?? null;
      placed[i] = !((next !== null && next < lo) || (prev !== null && prev > hi));
    }
    if (r.time_us !== null) next = r.time_us;
  }
  return placed;
}

/** GPU index per identity: the index column's value, or the position among the sorted uuids / bus ids. */
function gpuIndexer(parsed: ParsedTelemetry): (id: string) => number {
  if (parsed.columns.gpu_kind === 'index') return (id) => Number(id);
  const ids = [...new Set(parsed.rows.flatMap((r) => (r.gpu === null ? [] : [r.gpu])))].sort();
  const position = new Map(ids.map((id, i) => [id, i]));
  return (id) => position.get(id)!;
}

/**
 * Integrates board power from an nvidia-smi CSV over a measurement window (method
 * `trapezoid-linear-edges-v1`, docs/power-and-timing.md). An unusable input is not an exception: the
 * result says `power_valid: false` with its reasons ({@link PowerReasons}) and keeps the audit.
 *
 * @throws FidelityError `INVALID_ARGUMENT` for malformed options.
 */
export function integratePower(csv: string | Buffer | null | undefined, window: Window | null | undefined, options: PowerOptions): PowerResult {
  const { expected, gapUs, maxGapS, validClips } = checkOptions(options);
  const reasons = new Set<PowerReasonCode>();
  const win = windowMicros(window);
  if (typeof win === 'string') reasons.add(win);
  const range = typeof win === 'string' ? null : { lo: win.startUs - gapUs, hi: win.endUs + gapUs };

  const audit: PowerAudit = {
    method: POWER_METHOD,
    // JSON has no NaN or Infinity: a window that is not finite is shown as absent (its reason says why).
    window: window && Number.isFinite(window.start_unix) && Number.isFinite(window.end_unix) ? { start_unix: window.start_unix, end_unix: window.end_unix } : null,
    duration_s: typeof win === 'string' ? null : (win.endUs - win.startUs) / US_PER_S,
    max_gap_s: maxGapS,
    range: range ? { start_unix: range.lo / US_PER_S, end_unix: range.hi / US_PER_S } : null,
    power_valid: false,
    reasons: [],
    expected_gpu_count: expected,
    observed_gpu_count: 0,
    total_gpu_energy_j: null,
    columns: { timestamp: null, gpu: null, gpu_kind: null, power: null },
    rows: {
      data_rows: 0,
      in_range: 0,
      skipped_outside_range: 0,
      malformed_in_range: 0,
      malformed_outside_range: 0,
      missing_readings_in_range: 0,
      blank_lines: 0,
      repeated_headers: 0,
      truncated_last_line: false,
    },
    malformed: [],
    per_gpu: [],
  };

  if (csv === null || csv === undefined) reasons.add('TELEMETRY_MISSING');
  else analyse(parseGpuMetricsCsv(csv));

  function analyse(parsed: ParsedTelemetry): void {
    const rows = audit.rows;
    audit.columns = { ...parsed.columns };
    rows.data_rows = parsed.rows.length;
    rows.blank_lines = parsed.blank_lines;
    rows.repeated_headers = parsed.repeated_headers;
    rows.truncated_last_line = parsed.truncated_last_line;
    if (parsed.rows.length === 0) reasons.add('TELEMETRY_EMPTY');
    // A file with no line at all has no header to blame.
    if (parsed.header === null) return;
    if (!parsed.columns.timestamp) reasons.add('COLUMN_MISSING_TIMESTAMP');
    if (!parsed.columns.gpu) reasons.add('COLUMN_MISSING_INDEX');
    if (!parsed.columns.power) reasons.add('COLUMN_MISSING_POWER');
    // Without all three columns, or without rows, every later check would only restate that.
    if (!parsed.columns.timestamp || !parsed.columns.gpu || !parsed.columns.power || parsed.rows.length === 0) return;

    const placed = range ? rowPlacement(parsed.rows, range.lo, range.hi) : parsed.rows.map(() => true);
    const indexOf = gpuIndexer(parsed);
    const gpus = new Map<string, GpuRows>();
    parsed.rows.forEach((row, i) => {
      const inside = placed[i]!;
      if (row.problem !== null) {
        if (inside && range) rows.malformed_in_range++;
        else if (range) rows.malformed_outside_range++;
        if (audit.malformed.length < MAX_LISTED_MALFORMED) audit.malformed.push({ line: row.line, problem: row.problem, in_range: range ? inside : null } satisfies MalformedRow);
        return;
      }
      const id = row.gpu!;
      let gpu = gpus.get(id);
      if (!gpu) gpus.set(id, (gpu = { id, rowsTotal: 0, samplesTotal: 0, inRange: [], missingInRange: 0, seenInRange: false }));
      gpu.rowsTotal++;
      if (row.power_w !== null) gpu.samplesTotal++;
      if (!inside) {
        rows.skipped_outside_range++;
        return;
      }
      if (range) rows.in_range++;
      gpu.seenInRange = true;
      if (row.missing_reading) {
        gpu.missingInRange++;
        if (range) rows.missing_readings_in_range++;
      } else gpu.inRange.push({ t: row.time_us!, w: row.power_w! });
    });
    if (rows.malformed_in_range > 0) reasons.add('MALFORMED_ROW_IN_WINDOW');

    const observed = [...gpus.values()].filter((g) => g.seenInRange);
    audit.observed_gpu_count = observed.length;
    if (observed.length !== expected) reasons.add('GPU_COUNT_MISMATCH');
    if (!range) return;
    if (observed.every((g) => g.inRange.length === 0)) reasons.add('NO_SAMPLES_IN_WINDOW');

    const { startUs, endUs } = win as { startUs: number; endUs: number };
    const perGpu = observed.map((g): GpuPowerAudit & { samples: Sample[] } => {
      const { samples, merged } = mergeDuplicates(g.inRange);
      const cover = coverWindow(samples, startUs, endUs);
      const gpuReasons: PowerReasonCode[] = [];
      if (!cover.bracketed) gpuReasons.push('WINDOW_NOT_BRACKETED');
      if (cover.maxGapUs !== null && cover.maxGapUs > gapUs) gpuReasons.push('GAP_EXCEEDED');
      for (const r of gpuReasons) reasons.add(r);
      return {
        index: indexOf(g.id),
        id: g.id,
        rows_total: g.rowsTotal,
        samples_total: g.samplesTotal,
        samples_in_range: samples.length,
        samples_used: cover.used.length,
        duplicate_readings: merged,
        missing_readings: g.missingInRange,
        first_sample_unix: samples.length ? samples[0]!.t / US_PER_S : null,
        last_sample_unix: samples.length ? samples[samples.length - 1]!.t / US_PER_S : null,
        max_gap_s: cover.maxGapUs === null ? null : cover.maxGapUs / US_PER_S,
        bracketed: cover.bracketed,
        energy_j: null,
        avg_power_w: null,
        reasons: gpuReasons,
        samples: cover.used,
      };
    });
    perGpu.sort((a, b) => a.index - b.index || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const valid = reasons.size === 0;
    const durationS = (endUs - startUs) / US_PER_S;
    audit.per_gpu = perGpu.map(({ samples, ...gpu }) => {
      if (!valid) return gpu;
      const energy = trapezoidJoules(samples, startUs, endUs);
      return { ...gpu, energy_j: energy, avg_power_w: energy / durationS };
    });
  }

  const ordered = orderPowerReasons(reasons);
  audit.reasons = ordered;
  audit.power_valid = ordered.length === 0;
  const base = {
    power_valid: audit.power_valid,
    reasons: ordered,
    expected_gpu_count: expected,
    observed_gpu_count: audit.observed_gpu_count,
  };
  const tail = { valid_clips: validClips, max_gap_s: maxGapS, method: POWER_METHOD } as const;
  if (!audit.power_valid) return { report: { ...base, ...tail }, audit };

  // Summed in index order so the total's last bits never depend on the CSV's row order.
  const total = audit.per_gpu.reduce((sum, g) => sum + g.energy_j!, 0);
  audit.total_gpu_energy_j = total;
  return {
    report: {
      ...base,
      total_gpu_energy_j: total,
      avg_total_gpu_power_w: total / audit.duration_s!,
      ...(validClips ? { joules_per_valid_clip: total / validClips } : {}),
      ...tail,
    },
    audit,
  };
}
