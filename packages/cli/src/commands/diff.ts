import { diffReports, FidelityError, visibleId, type DiffChange, type DiffLocation, type DiffOneSided, type DiffSide, type ReportDiff } from 'media-fidelity';
import { EXIT, printJson, reportFailure } from '../io.js';
import { inline } from '../text.js';
import type { CommandArgs } from './types.js';

/** A tolerance option: a number of at least 0 (`1e-9` included); anything else is a usage error. */
export function readTolerance(values: Record<string, unknown>, name: 'tolerance' | 'rel-tolerance'): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const n = typeof raw === 'string' && /^\s*[0-9.]+(e[-+]?\d+)?\s*$/i.test(raw) ? Number(raw) : NaN;
  if (!Number.isFinite(n) || n < 0) throw new FidelityError('USAGE', `Expected a number of at least 0 (e.g. 1e-9) for --${name} but received ${JSON.stringify(raw)}`);
  return n;
}

const run = (r: { gpu_model: string; run_id: number; run_attempt: number }): string => `${inline(r.gpu_model)} ${r.run_id}-${r.run_attempt}`;

/** "H200 30054883436-1 vs B200 30061277519-2 measurement-r000-c003", "B200 30061277519-2" for a run. */
export function locationText(where: DiffLocation): string {
  if (where.kind === 'run') return `run ${run(where.run)}`;
  const cmp = `${run(where.baseline)} vs ${run(where.candidate)}`;
  return where.kind === 'pair' ? `${cmp} ${inline(visibleId(where.slot_id))}` : cmp;
}

/** A value as the table shows it: numbers in full (shortest round trip), everything else as JSON, long values cut. */
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

/** Rows padded to their columns' widths. Loops, not spreads: a diff may hold any number of rows, more than a call's arguments can. */
function table(rows: string[][]): string[] {
  const widths: number[] = rows[0]!.map(() => 0);
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i]!, c.length)));
  return rows.map((r) => `  ${r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')}`.trimEnd());
}

/** Appends `more` to `lines` one by one (`push(...more)` overflows the stack for a few hundred thousand lines). */
function append(lines: string[], more: readonly string[]): void {
  for (const line of more) lines.push(line);
}

/** new - old in full; for two numbers whose difference is beyond the largest double (delta null), says so rather than print Infinity. */
function deltaText(c: DiffChange): string {
  if (c.delta !== null) return String(c.delta);
  if (typeof c.old !== 'number' || typeof c.new !== 'number') return '';
  return c.new > c.old ? `>${Number.MAX_VALUE}` : `<-${Number.MAX_VALUE}`;
}

function changeRow(c: DiffChange): string[] {
  const metric = c.series ? `${c.path} (${c.series.differing} of ${Math.max(c.series.frames_old, c.series.frames_new)} frames differ, first ${c.series.first_frame}; this one moved most)` : c.path;
  return [locationText(c.where), inline(metric), valueText(c.old), valueText(c.new), deltaText(c)];
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

function oneSidedLines(list: DiffOneSided[]): string[] {
  return list.map((o) => `  ${o.side} only  ${locationText(o.where)}${o.where.kind === 'pair' ? ` (${inline(visibleId(o.where.case_id))})` : ''}${o.path === null ? '' : `  ${inline(o.path)}`}`);
}

/** The human form of a diff: sides, changes, one-sided pairs, runs and metrics, context, and the verdict. */
export function diffText(d: ReportDiff): string {
  const lines = [`old: ${sideText(d.old)}`, `new: ${sideText(d.new)}`];
  const tol = d.tolerance.abs === 0 && d.tolerance.rel === 0 ? 'exact' : `equal within ${d.tolerance.abs} absolute or ${d.tolerance.rel} relative`;
  lines.push(`compared: ${plural(d.compared.runs, 'run')}, ${plural(d.compared.comparisons, 'comparison')}, ${plural(d.compared.pairs, 'pair')}, ${plural(d.compared.values, 'value')}; ${tol}`);
  if (d.changes.length) {
    lines.push('', `Changed values (${d.changes.length}):`);
    append(lines, table([['pair', 'metric', 'old', 'new', 'delta'], ...d.changes.map(changeRow)]));
  }
  if (d.pairs_only.length) {
    lines.push('', `Pairs on one side only (${d.pairs_only.length}):`);
    append(lines, oneSidedLines(d.pairs_only));
  }
  if (d.runs_only.length) {
    lines.push('', `Runs on one side only (${d.runs_only.length}):`);
    append(lines, oneSidedLines(d.runs_only));
  }
  if (d.metrics_only.length) {
    lines.push('', `Metrics on one side only (${d.metrics_only.length}):`);
    append(lines, oneSidedLines(d.metrics_only));
  }
  if (d.context.length) {
    lines.push('', 'What the reports were made with differs (not a measured value, but often the reason for a change):');
    for (const c of d.context) lines.push(`  ${c.where ? `${locationText(c.where)}  ` : ''}${inline(c.path)}: ${valueText(c.old)} -> ${valueText(c.new)}`);
  }
  const counts = [
    d.changes.length ? plural(d.changes.length, 'changed value') : '',
    d.pairs_only.length ? plural(d.pairs_only.length, 'pair') + ' on one side only' : '',
    d.runs_only.length ? plural(d.runs_only.length, 'run') + ' on one side only' : '',
    d.metrics_only.length ? plural(d.metrics_only.length, 'metric') + ' on one side only' : '',
  ].filter(Boolean);
  lines.push('', d.unchanged ? 'Result: unchanged (exit 0)' : `Result: changed: ${counts.join(', ')} (exit 1)`);
  return `${lines.join('\n')}\n`;
}

/** `fidelity diff`: what it does once its arguments are parsed; the command table (index.ts) loads this module then. */
export async function runCommand({ positionals, values, io }: CommandArgs): Promise<number> {
  const json = Boolean(values.json);
  try {
    if (positionals.length !== 2) throw new FidelityError('USAGE', 'diff needs exactly two sides: <old> <new>, each a bundle folder or a report.json file');
    const tolerance = readTolerance(values, 'tolerance');
    const relTolerance = readTolerance(values, 'rel-tolerance');
    const diff = await diffReports(positionals[0]!, positionals[1]!, { ...(tolerance !== undefined ? { tolerance } : {}), ...(relTolerance !== undefined ? { relTolerance } : {}) });
    if (json) printJson(io, { ok: true, ...diff });
    else io.out(diffText(diff));
    return diff.unchanged ? EXIT.ok : EXIT.changed;
  } catch (error) {
    return reportFailure(io, error, json);
  }
}
