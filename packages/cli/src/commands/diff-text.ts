/**
 * The human form of `fidelity diff`, in the order a reader asks: how the two reports were made
 * differently (a plan, a version, an option: often why values moved), what was read, how many
 * differences of each kind, then the largest changes, grouped by where they are. Every line is
 * wrapped to the terminal's width; only a word longer than the line (a hash, a path) runs past it.
 * `all` lists every difference instead of the largest; `--json` has them all as data.
 */
import { byCount, counted, visibleId, type DiffChange, type DiffContext, type DiffLocation, type DiffOneSided, type DiffSide, type ReportDiff } from 'media-fidelity';
import { inline, wrapLine } from '../text.js';

/** How many changes, one-sided entries and context lines are listed without `--all`. */
export const LISTED = 20;

export interface DiffTextOptions {
  /** Columns to wrap to. */
  width: number;
  /** Every difference, not only the largest {@link LISTED} of each kind. */
  all?: boolean;
}

const run = (r: { gpu_model: string; run_id: number; run_attempt: number }): string => `${inline(r.gpu_model)} ${r.run_id}-${r.run_attempt}`;

/** "H200 30054883436-1 vs B200 30061277519-2 measurement-r000-c003", "run B200 30061277519-2" for a run. */
export function locationText(where: DiffLocation): string {
  if (where.kind === 'run') return `run ${run(where.run)}`;
  const cmp = `${run(where.baseline)} vs ${run(where.candidate)}`;
  return where.kind === 'pair' ? `${cmp} ${inline(visibleId(where.slot_id))}` : cmp;
}

/** A value as the text shows it: numbers in full (shortest round trip), everything else as JSON, long values cut. */
function valueText(v: unknown): string {
  if (v === undefined) return '-';
  const text = typeof v === 'number' ? String(v) : JSON.stringify(v);
  return inline(text.length > 80 ? `${text.slice(0, 77)}...` : text);
}

function sideText(s: DiffSide): string {
  const made = `fidelity ${inline(s.tool_version)}, generated ${inline(s.generated_at)}`;
  if (s.kind === 'bundle') return `bundle ${inline(s.input)} (seal holds: ${s.files} files re-hashed; report.json sha256 ${s.report_sha256}), ${made}`;
  if (s.kind === 'report') return `report.json ${inline(s.input)}, read as it is: not a bundle, so no seal was checked (sha256 ${s.report_sha256}), ${made}`;
  return `a report value, ${made}`;
}

/** new - old in full; for two numbers whose difference is beyond the largest double (delta null), says so rather than print Infinity. */
function deltaText(c: DiffChange): string {
  if (c.delta !== null) return String(c.delta);
  if (typeof c.old !== 'number' || typeof c.new !== 'number') return '';
  return c.new > c.old ? `>${Number.MAX_VALUE}` : `<-${Number.MAX_VALUE}`;
}

/**
 * How large a change is, to list the largest first: a change that is not between two numbers (a
 * status, a check's outcome, a reason code) before any number; numbers by their change relative
 * to the larger magnitude, then by the change itself.
 */
export function changeSize(c: DiffChange): [number, number, number] {
  if (typeof c.old !== 'number' || typeof c.new !== 'number') return [0, 0, 0];
  if (c.delta === null) return [1, -Infinity, -Infinity];
  const scale = Math.max(Math.abs(c.old), Math.abs(c.new));
  return [1, scale === 0 ? 0 : -Math.abs(c.delta) / scale, -Math.abs(c.delta)];
}

/** The changes, largest first ({@link changeSize}); equal sizes keep the report's order. */
export function largestFirst(changes: readonly DiffChange[]): DiffChange[] {
  const keyed = changes.map((c, i) => ({ c, i, k: changeSize(c) }));
  keyed.sort((a, b) => a.k[0] - b.k[0] || a.k[1] - b.k[1] || a.k[2] - b.k[2] || a.i - b.i);
  return keyed.map((e) => e.c);
}

function changeLine(c: DiffChange): string {
  const series = c.series ? ` (${c.series.differing} of ${counted(Math.max(c.series.frames_old, c.series.frames_new), 'frame')} ${byCount(c.series.differing, 'differs', 'differ')}, first ${c.series.first_frame}; this one moved most)` : '';
  const delta = deltaText(c);
  return `    ${inline(c.path)}${series}: ${valueText(c.old)} -> ${valueText(c.new)}${delta ? ` (delta ${delta})` : ''}`;
}

/** The changes under their locations, each location once, in the order the changes come. */
function groupedChanges(changes: readonly DiffChange[]): string[] {
  const groups = new Map<string, DiffChange[]>();
  for (const c of changes) {
    const key = locationText(c.where);
    const list = groups.get(key);
    if (list) list.push(c);
    else groups.set(key, [c]);
  }
  const lines: string[] = [];
  for (const [where, list] of groups) {
    lines.push(`  ${where}`);
    for (const c of list) lines.push(changeLine(c));
  }
  return lines;
}

function oneSidedLine(o: DiffOneSided): string {
  return `  ${o.side} only: ${locationText(o.where)}${o.where.kind === 'pair' ? ` (${inline(visibleId(o.where.case_id))})` : ''}${o.path === null ? '' : ` ${inline(o.path)}`}`;
}

/** Context entries with the same field and values, whatever run or comparison they are about, as one line naming them all. */
function contextLines(context: readonly DiffContext[]): string[] {
  const groups = new Map<string, { c: DiffContext; where: string[] }>();
  for (const c of context) {
    const key = `${c.path}\u0000${valueText(c.old)}\u0000${valueText(c.new)}`;
    const group = groups.get(key) ?? { c, where: [] };
    if (c.where) group.where.push(locationText(c.where));
    groups.set(key, group);
  }
  return [...groups.values()].map(({ c, where }) => `  ${inline(c.path)}${where.length ? ` (${where.join('; ')})` : ''}: ${valueText(c.old)} -> ${valueText(c.new)}`);
}

/** `lines` cut to {@link LISTED} unless `all`, with a line saying how many more there are. */
function listed(lines: readonly string[], all: boolean, what: string): string[] {
  if (all || lines.length <= LISTED) return [...lines];
  return [...lines.slice(0, LISTED), `  ... and ${lines.length - LISTED} more ${what} (--all lists every one; --json gives them as data)`];
}

function madeDifferently(d: ReportDiff, all: boolean): string[] {
  if (d.context.length === 0) return ['Made the same way: the same fidelity version, decoder, metric set, policy, plans and calibration.'];
  const lines = contextLines(d.context);
  return ['Made differently (not measured values, but often why values changed):', ...listed(lines, all, 'of how they were made')];
}

function counts(d: ReportDiff): string {
  const parts = [
    d.changes.length ? counted(d.changes.length, 'changed value') : '',
    d.pairs_only.length ? `${counted(d.pairs_only.length, 'pair')} on one side only` : '',
    d.runs_only.length ? `${counted(d.runs_only.length, 'run')} on one side only` : '',
    d.metrics_only.length ? `${counted(d.metrics_only.length, 'metric')} on one side only` : '',
  ].filter(Boolean);
  return parts.join(', ');
}

function changesSection(d: ReportDiff, all: boolean): string[] {
  if (d.changes.length === 0) return [];
  if (all || d.changes.length <= LISTED) return ['', `Changed values (${d.changes.length}), largest first:`, ...groupedChanges(largestFirst(d.changes))];
  const more = `  ... and ${d.changes.length - LISTED} more changed values (--all lists every one; --json gives them as data)`;
  return ['', `Changed values (${d.changes.length}), the largest ${LISTED}:`, ...groupedChanges(largestFirst(d.changes).slice(0, LISTED)), more];
}

function oneSidedSection(title: string, list: readonly DiffOneSided[], all: boolean, what: string): string[] {
  return list.length === 0 ? [] : ['', `${title} (${list.length}):`, ...listed(list.map(oneSidedLine), all, what)];
}

/** The human form of a diff (see the module's comment), wrapped to `options.width`. */
export function diffText(d: ReportDiff, options: DiffTextOptions): string {
  const all = options.all === true;
  const tol = d.tolerance.abs === 0 && d.tolerance.rel === 0 ? 'exact' : `equal within ${d.tolerance.abs} absolute or ${d.tolerance.rel} relative`;
  const lines = [
    ...madeDifferently(d, all),
    '',
    `old: ${sideText(d.old)}`,
    `new: ${sideText(d.new)}`,
    `compared: ${counted(d.compared.runs, 'run')}, ${counted(d.compared.comparisons, 'comparison')}, ${counted(d.compared.pairs, 'pair')}, ${counted(d.compared.values, 'value')}; ${tol}`,
    `differences: ${d.unchanged ? 'none' : counts(d)}`,
    ...changesSection(d, all),
    ...oneSidedSection('Pairs on one side only', d.pairs_only, all, 'pairs'),
    ...oneSidedSection('Runs on one side only', d.runs_only, all, 'runs'),
    ...oneSidedSection('Metrics on one side only', d.metrics_only, all, 'metrics'),
    '',
    d.unchanged ? 'Result: unchanged (exit 0)' : `Result: changed: ${counts(d)} (exit 1)`,
  ];
  const out: string[] = [];
  for (const line of lines) for (const piece of wrapLine(line, options.width)) out.push(piece);
  return `${out.join('\n')}\n`;
}
