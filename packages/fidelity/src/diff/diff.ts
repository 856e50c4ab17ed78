/**
 * diffReports(): are two reports' measurements the same? Pairs are matched by
 * baseline run + attempt, candidate run + attempt and slot; every measured
 * value of a pair, a comparison and a run is compared (docs/diff.md says
 * which fields are measured values and which are not). What usually explains
 * a change (the fidelity version, the decoder, the metric set, the policy,
 * a noise calibration on one side only) is reported as context: it never
 * makes two reports different by itself.
 */
import { invalidParameter } from '../errors.js';
import type { Report } from '../schemas/report.js';
import { DEFAULT_MAX_REPORT_BYTES, loadSide, type DiffSide, type LoadedSide } from './load.js';
import { walk, type SeriesDifference, type Tolerance, type WalkSink } from './walk.js';

export type { DiffSide } from './load.js';
export type { SeriesDifference, Tolerance } from './walk.js';

/** Options of {@link diffReports}. */
export interface DiffOptions {
  /** Two numbers closer than this are equal (default 0: exact). */
  tolerance?: number;
  /** Two numbers whose difference is at most this fraction of the larger magnitude are equal (default 0: exact). */
  relTolerance?: number;
  /** A report.json larger than this many bytes is refused unread (default 256 MiB). */
  maxReportBytes?: number;
}

/** A run as a diff names it. */
export interface DiffRun {
  run_id: number;
  run_attempt: number;
  gpu_model: string;
}

/** Where a difference is: one pair (the match key: both runs and the slot), one comparison, or one run. */
export type DiffLocation =
  | { kind: 'pair'; baseline: DiffRun; candidate: DiffRun; slot_id: string; case_id: string }
  | { kind: 'comparison'; baseline: DiffRun; candidate: DiffRun }
  | { kind: 'run'; run: DiffRun };

/** One measured value that differs. `path` is relative to the pair, comparison or run (`video.psnr_db`, `checks[<check>].outcome`). */
export interface DiffChange {
  where: DiffLocation;
  path: string;
  old: unknown;
  new: unknown;
  /** new - old for two numbers, else null; null too when the difference is beyond the largest double (-1e308 against 1e308). */
  delta: number | null;
  /** For a per-frame series: how many frames differ and the first; the change names the frame that moved most. */
  series?: SeriesDifference;
}

/** A pair, run or metric found on one side only. `path` is null for a whole pair or run. */
export interface DiffOneSided {
  side: 'old' | 'new';
  where: DiffLocation;
  path: string | null;
}

/** A difference in what the reports were made with (not a measured value): explains changes, never counts as one. */
export interface DiffContext {
  /** `tool.version`, `decoder.sha256`, `metrics.list`, `policy.checks[<check>].threshold`, `noise`, ... */
  path: string;
  /** The comparison it is about, for `noise`; null for the report as a whole. */
  where: DiffLocation | null;
  /** The value on each side; null where that side has none. */
  old: unknown;
  new: unknown;
}

/** What {@link diffReports} found. `unchanged` is true exactly when `changes`, `pairs_only`, `runs_only` and `metrics_only` are all empty. */
export interface ReportDiff {
  unchanged: boolean;
  tolerance: Tolerance;
  old: DiffSide;
  new: DiffSide;
  /** What was matched on both sides and compared. */
  compared: { runs: number; comparisons: number; pairs: number; values: number };
  changes: DiffChange[];
  pairs_only: DiffOneSided[];
  runs_only: DiffOneSided[];
  metrics_only: DiffOneSided[];
  context: DiffContext[];
}

type Raw = Record<string, unknown>;
const runKey = (id: number, attempt: number): string => `${id}-${attempt}`;

/** Pair fields that are not measured values: where files are (bundle paths), and prose (the archive's error text, a reason's message, the prompt). `noise` is compared on its own. */
const PAIR_SKIP = /^(files|baseline_media|candidate_media|baseline_error|candidate_error|prompt|noise)$|^reason_details\[\d+\]\.message$/;
/** The measured parts of a comparison (besides its pairs) and of a run; everything else names, links or locates. */
const COMPARISON_FIELDS = ['summary', 'cases', 'timing'] as const;
const RUN_FIELDS = ['power', 'power_detail', 'accounting', 'timing'] as const;

function checkTolerance(name: string, value: number | undefined): number {
  if (value === undefined) return 0;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw invalidParameter(name, 'a finite number of at least 0', value);
  return value;
}

interface IndexedComparison {
  raw: Raw;
  baseline: DiffRun;
  candidate: DiffRun;
  pairs: Map<string, Raw>;
}

function index(loaded: LoadedSide): { runs: Map<string, { raw: Raw; run: DiffRun }>; comparisons: Map<string, IndexedComparison> } {
  const models = new Map(loaded.report.runs.map((r) => [runKey(r.run_id, r.run_attempt), r.hardware.gpu_model]));
  const runs = new Map<string, { raw: Raw; run: DiffRun }>();
  const rawRuns = loaded.raw.runs as Raw[];
  loaded.report.runs.forEach((r, i) => runs.set(runKey(r.run_id, r.run_attempt), { raw: rawRuns[i]!, run: { run_id: r.run_id, run_attempt: r.run_attempt, gpu_model: r.hardware.gpu_model } }));
  const comparisons = new Map<string, IndexedComparison>();
  const rawComparisons = loaded.raw.comparisons as Raw[];
  loaded.report.comparisons.forEach((c, i) => {
    const raw = rawComparisons[i]!;
    const rawPairs = raw.pairs as Raw[];
    const baseline = { run_id: c.baseline_run_id, run_attempt: c.baseline_run_attempt, gpu_model: models.get(runKey(c.baseline_run_id, c.baseline_run_attempt)) ?? c.baseline_gpu_model };
    const candidate = { run_id: c.candidate_run_id, run_attempt: c.candidate_run_attempt, gpu_model: models.get(runKey(c.candidate_run_id, c.candidate_run_attempt)) ?? c.candidate_gpu_model };
    comparisons.set(`${runKey(baseline.run_id, baseline.run_attempt)} ${runKey(candidate.run_id, candidate.run_attempt)}`, {
      raw,
      baseline,
      candidate,
      pairs: new Map(c.pairs.map((p, j) => [p.slot_id, rawPairs[j]!])),
    });
  });
  return { runs, comparisons };
}

/**
 * Compares the measured values of two reports pair by pair: each side is a bundle folder (its
 * SHA256SUMS is checked first, as verify-bundle checks it, and a bundle whose seal does not hold is
 * refused), a report.json file (read as it is: `side.kind` says so), or a {@link Report} value.
 * Either file is bounded in size and must match the report schema. Pairs are matched by baseline
 * run + attempt, candidate run + attempt and slot; status, reason codes, check outcomes, aggregates,
 * pooled metrics, audio per channel, noise p-values (when both sides were calibrated), per-frame
 * series, and the runs' power, accounting and timing figures are compared, exactly unless a
 * tolerance is given. docs/diff.md says what counts as unchanged.
 *
 * @throws FidelityError `DIFF_INPUT_NOT_FOUND`, `DIFF_REPORT_TOO_LARGE`, `DIFF_REPORT_INVALID`,
 *   `BUNDLE_REPORT_MISSING`, the seal's codes (`BUNDLE_SEAL_MISSING`, `BUNDLE_SEAL_MALFORMED`,
 *   `BUNDLE_FILE_MISSING`, `BUNDLE_FILE_EXTRA`, `BUNDLE_FILE_CHANGED`), `INVALID_ARGUMENT`.
 * @example
 * ```ts
 * const diff = await diffReports('bundle-before', 'bundle-after');
 * if (!diff.unchanged) for (const c of diff.changes) console.log(c.where, c.path, c.old, '->', c.new);
 * ```
 */
export async function diffReports(oldInput: string | Report, newInput: string | Report, options: DiffOptions = {}): Promise<ReportDiff> {
  for (const [name, v] of [['oldInput', oldInput], ['newInput', newInput]] as const) {
    if (typeof v === 'string' ? v.length === 0 : typeof v !== 'object' || v === null) throw invalidParameter(name, 'a bundle folder, a report.json path or a report', v);
  }
  const tolerance: Tolerance = { abs: checkTolerance('options.tolerance', options.tolerance), rel: checkTolerance('options.relTolerance', options.relTolerance) };
  const maxBytes = options.maxReportBytes ?? DEFAULT_MAX_REPORT_BYTES;
  if (!Number.isInteger(maxBytes) || maxBytes < 1) throw invalidParameter('options.maxReportBytes', 'a positive whole number of bytes', maxBytes);
  const a = await loadSide(oldInput, 'old', maxBytes);
  const b = await loadSide(newInput, 'new', maxBytes);

  const result: ReportDiff = {
    unchanged: true,
    tolerance,
    old: a.side,
    new: b.side,
    compared: { runs: 0, comparisons: 0, pairs: 0, values: 0 },
    changes: [],
    pairs_only: [],
    runs_only: [],
    metrics_only: [],
    context: [],
  };
  const measured = (where: DiffLocation): WalkSink => ({
    change: (path, old, now, delta, series) => result.changes.push({ where, path, old, new: now, delta, ...(series ? { series } : {}) }),
    oneSided: (path, side) => result.metrics_only.push({ side, where, path }),
    counted: (n) => (result.compared.values += n),
  });
  const context = (where: DiffLocation | null, prefix: string): WalkSink => ({
    change: (path, old, now) => result.context.push({ path: path || prefix, where, old, new: now }),
    oneSided: (path, side, value) => result.context.push({ path: path || prefix, where, old: side === 'old' ? value : null, new: side === 'new' ? value : null }),
    counted: () => undefined,
  });

  // What the reports were made with.
  const exact: Tolerance = { abs: 0, rel: 0 };
  walk(a.raw.tool, b.raw.tool, 'tool', exact, context(null, 'tool'));
  walk(a.raw.decoder, b.raw.decoder, 'decoder', exact, context(null, 'decoder'));
  // Reports written before metric sets existed have no `metrics`: they computed every metric.
  walk(a.raw.metrics ?? null, b.raw.metrics ?? null, 'metrics', exact, context(null, 'metrics'));
  walk(a.raw.policy, b.raw.policy, 'policy', exact, context(null, 'policy'));

  const ia = index(a);
  const ib = index(b);
  for (const [k, ra] of ia.runs) {
    const rb = ib.runs.get(k);
    if (!rb) {
      result.runs_only.push({ side: 'old', where: { kind: 'run', run: ra.run }, path: null });
      continue;
    }
    result.compared.runs++;
    const where: DiffLocation = { kind: 'run', run: rb.run };
    // The plan a run followed is how it was made: another plan explains the changed values, it is not one of them.
    for (const field of ['plan_id', 'plan_sha256', 'plan_spec'] as const) walk(ra.raw[field] ?? null, rb.raw[field] ?? null, field, exact, context(where, field));
    for (const field of RUN_FIELDS) walk(ra.raw[field], rb.raw[field], field, tolerance, measured(where));
  }
  for (const [k, rb] of ib.runs) if (!ia.runs.has(k)) result.runs_only.push({ side: 'new', where: { kind: 'run', run: rb.run }, path: null });

  const pairWhere = (c: IndexedComparison, slot: string, pair: Raw): DiffLocation => ({ kind: 'pair', baseline: c.baseline, candidate: c.candidate, slot_id: slot, case_id: String(pair.case_id) });
  for (const [k, ca] of ia.comparisons) {
    const cb = ib.comparisons.get(k);
    if (!cb) {
      for (const [slot, pair] of ca.pairs) result.pairs_only.push({ side: 'old', where: pairWhere(ca, slot, pair), path: null });
      continue;
    }
    result.compared.comparisons++;
    const where: DiffLocation = { kind: 'comparison', baseline: cb.baseline, candidate: cb.candidate };
    for (const field of COMPARISON_FIELDS) walk(ca.raw[field], cb.raw[field], field, tolerance, measured(where));
    // Noise verdicts are compared when both sides were judged against a noise sample; one calibrated side is context.
    const calibrated = ca.raw.noise !== undefined && cb.raw.noise !== undefined;
    if (calibrated) walk(ca.raw.noise, cb.raw.noise, 'noise', tolerance, measured(where));
    else if (ca.raw.noise !== undefined || cb.raw.noise !== undefined) {
      const brief = (n: unknown): unknown => (n === undefined ? null : { n: (n as Raw).n, alpha: (n as Raw).alpha });
      result.context.push({ path: 'noise', where, old: brief(ca.raw.noise), new: brief(cb.raw.noise) });
    }
    for (const [slot, pa] of ca.pairs) {
      const pb = cb.pairs.get(slot);
      if (!pb) {
        result.pairs_only.push({ side: 'old', where: pairWhere(ca, slot, pa), path: null });
        continue;
      }
      result.compared.pairs++;
      const sink = measured(pairWhere(cb, slot, pb));
      walk(pa, pb, '', tolerance, sink, (p) => PAIR_SKIP.test(p));
      if (calibrated) {
        if (pa.noise !== undefined && pb.noise !== undefined) walk(pa.noise, pb.noise, 'noise', tolerance, sink);
        else if (pa.noise !== undefined) sink.oneSided('noise', 'old', pa.noise);
        else if (pb.noise !== undefined) sink.oneSided('noise', 'new', pb.noise);
      }
    }
    for (const [slot, pb] of cb.pairs) if (!ca.pairs.has(slot)) result.pairs_only.push({ side: 'new', where: pairWhere(cb, slot, pb), path: null });
  }
  for (const [k, cb] of ib.comparisons) {
    if (ia.comparisons.has(k)) continue;
    for (const [slot, pair] of cb.pairs) result.pairs_only.push({ side: 'new', where: pairWhere(cb, slot, pair), path: null });
  }
  result.unchanged = result.changes.length + result.pairs_only.length + result.runs_only.length + result.metrics_only.length === 0;
  return result;
}
