/**
 * The run evidence section: power, GPU accounting, server timing, and the
 * per-case view of plans with repetitions. Another part of the library
 * computes these and their shapes are still settling (report.ts types timing
 * and accounting as unknown), so everything here is rendered defensively:
 * what is there is shown, anything missing reads "unavailable" (never 0),
 * and nothing here is ever a pass or a fail. Adjust this file, and only this
 * file, when those shapes are fixed.
 */
import { esc } from './html-escape.js';
import { auto, num } from './html-format.js';
import { badge, headCell, numCell, pairAnchor, table, txHtml } from './html-parts.js';
import type { Messages } from './i18n.js';
import type { Comparison, Report, RunReport } from '../schemas/report.js';

/** How deep and how wide free-form evidence is unfolded before it is summarised. */
const MAX_DEPTH = 4;
const MAX_ENTRIES = 200;

type Leaf = string | number | boolean | null;

/**
 * Unfolds a free-form value into dotted paths -> leaves, in key order, so
 * that several runs' values line up row by row. Arrays of scalars stay one
 * leaf; arrays of objects get [i] segments.
 */
export function flatten(value: unknown, prefix = '', out = new Map<string, Leaf>(), depth = 0): Map<string, Leaf> {
  if (out.size >= MAX_ENTRIES) return out;
  if (value === null || value === undefined) {
    if (prefix) out.set(prefix, null);
    return out;
  }
  if (typeof value === 'number') out.set(prefix, Number.isFinite(value) ? value : null);
  else if (typeof value === 'string' || typeof value === 'boolean') out.set(prefix, value);
  else if (Array.isArray(value)) {
    if (value.every((v) => v === null || ['string', 'number', 'boolean'].includes(typeof v))) {
      out.set(prefix, value.map((v) => (v === null ? 'null' : String(v))).join(', '));
    } else if (depth >= MAX_DEPTH) out.set(prefix, JSON.stringify(value));
    else value.forEach((v, i) => flatten(v, `${prefix}[${i}]`, out, depth + 1));
  } else if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    if (entries.length === 0 && prefix) out.set(prefix, null);
    for (const [k, v] of entries) {
      const key = prefix ? `${prefix}.${k}` : k;
      if (depth >= MAX_DEPTH && v !== null && typeof v === 'object') out.set(key, JSON.stringify(v));
      else flatten(v, key, out, depth + 1);
    }
  } else out.set(prefix, String(value));
  return out;
}

function leafHtml(leaf: Leaf | undefined, m: Messages): string {
  if (leaf === null || leaf === undefined || leaf === '') return `<span class="muted">${esc(m.unavailable)}</span>`;
  if (typeof leaf === 'number') return esc(auto(leaf));
  if (typeof leaf === 'boolean') return esc(leaf ? m.yes : m.no);
  return esc(leaf);
}

function runHeading(run: RunReport, m: Messages): string {
  const role = run.role === 'baseline' ? m.baseline : m.candidate;
  return `${esc(run.hardware.gpu_model)}<br><span class="muted">${esc(role)} · ${esc(run.run_id)}/${esc(run.run_attempt)}</span>`;
}

/** Rows = union of the runs' paths (sorted), columns = runs; a path a run lacks is "unavailable". */
function sideBySide(runs: RunReport[], pick: (run: RunReport) => unknown, m: Messages, label: string): string {
  const maps = runs.map((r) => flatten(pick(r)));
  const keys = [...new Set(maps.flatMap((map) => [...map.keys()]))].sort();
  const head = [esc(label), ...runs.map((r) => runHeading(r, m))];
  if (keys.length === 0) {
    return table(head, [[headCell(esc(label)), ...runs.map(() => leafHtml(null, m))]]);
  }
  const rows = keys.map((k) => [headCell(`<code>${esc(k)}</code>`), ...maps.map((map) => (typeof map.get(k) === 'number' ? numCell(leafHtml(map.get(k), m)) : leafHtml(map.get(k), m)))]);
  return table(head, rows);
}

function powerSection(runs: RunReport[], m: Messages): string {
  const missing = (): string => leafHtml(null, m);
  const cell = (run: RunReport, f: (p: NonNullable<RunReport['power']>) => string): string => (run.power ? f(run.power) : missing());
  const figure = (v: number | undefined, digits: number): string => (v === undefined ? missing() : numCell(esc(num(v, digits, m.unavailable))));
  const known = new Set(['power_valid', 'reasons', 'expected_gpu_count', 'observed_gpu_count', 'total_gpu_energy_j', 'avg_total_gpu_power_w', 'joules_per_valid_clip']);
  const rows: string[][] = [
    [headCell(esc(m.power_valid)), ...runs.map((r) => (r.power ? badge(r.power.power_valid ? 'pass' : 'fail', r.power.power_valid ? m.yes : m.no) : `<span class="muted">${esc(m.power_none)}</span>`))],
    [headCell(esc(m.power_reasons)), ...runs.map((r) => cell(r, (p) => (p.reasons.length ? p.reasons.map((c) => `<code>${esc(c)}</code>`).join(' ') : '—')))],
    [headCell(esc(m.expected_gpus)), ...runs.map((r) => cell(r, (p) => numCell(esc(p.expected_gpu_count))))],
    [headCell(esc(m.observed_gpus)), ...runs.map((r) => cell(r, (p) => numCell(esc(p.observed_gpu_count))))],
    [headCell(esc(m.energy_j)), ...runs.map((r) => cell(r, (p) => figure(p.total_gpu_energy_j, 1)))],
    [headCell(esc(m.avg_power_w)), ...runs.map((r) => cell(r, (p) => figure(p.avg_total_gpu_power_w, 1)))],
    [headCell(esc(m.j_per_clip)), ...runs.map((r) => cell(r, (p) => figure(p.joules_per_valid_clip, 1)))],
  ];
  // Fields the power stage adds later still show, under their own names.
  const extras = runs.map((r) => {
    const rest: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(r.power ?? {})) if (!known.has(k)) rest[k] = v;
    return flatten(rest);
  });
  const extraKeys = [...new Set(extras.flatMap((map) => [...map.keys()]))].sort();
  for (const k of extraKeys) rows.push([headCell(`<code>${esc(k)}</code>`), ...runs.map((r, i) => (r.power ? leafHtml(extras[i]!.get(k), m) : missing()))]);
  return `<h3>${esc(m.power)}</h3>` + table([esc(m.power), ...runs.map((r) => runHeading(r, m))], rows);
}

function accountingSection(runs: RunReport[], m: Messages): string {
  const rows: string[][] = [
    [headCell(esc(m.gpus_allocated)), ...runs.map((r) => numCell(esc(r.hardware.gpus_allocated)))],
    [headCell(esc(m.gpus_participating)), ...runs.map((r) => numCell(esc(r.hardware.gpus_participating)))],
  ];
  const maps = runs.map((r) => flatten(r.accounting));
  const keys = [...new Set(maps.flatMap((map) => [...map.keys()]))].sort();
  for (const k of keys) rows.push([headCell(`<code>${esc(k)}</code>`), ...maps.map((map) => leafHtml(map.get(k), m))]);
  return `<h3>${esc(m.accounting)}</h3>` + table([esc(m.accounting), ...runs.map((r) => runHeading(r, m))], rows);
}

function timingSection(runs: RunReport[], m: Messages): string {
  return `<h3>${esc(m.timing)}</h3><p class="muted">${esc(m.timing_note)}</p>` + sideBySide(runs, (r) => r.timing, m, m.timing);
}

function casesSection(report: Report, m: Messages, checkLabel: (name: string) => string): string {
  const parts: string[] = [];
  report.comparisons.forEach((c: Comparison, ci) => {
    if (c.cases.length === 0) return;
    const rows = c.cases.map((cv) => [
      headCell(`<code>${esc(cv.case_id)}</code>`),
      numCell(esc(cv.seed)),
      badge(cv.status, m[`status_${cv.status}`]),
      numCell(esc(cv.repetitions)),
      cv.worst.length === 0
        ? '—'
        : cv.worst
            .map((w) => {
              const value = w.value === null ? m.unavailable : auto(w.value);
              const slot = `<a href="#${pairAnchor(ci, w.slot_id)}">${esc(w.slot_id)}</a>`;
              return txHtml(m, 'worst_item', { check: esc(checkLabel(w.check)), value: esc(value), repetition: esc(w.repetition), slot });
            })
            .join('<br>'),
    ]);
    parts.push(
      `<h4>${esc(c.candidate_gpu_model)} / ${esc(c.baseline_gpu_model)}</h4>` +
        table([esc(m.case), esc(m.seed), esc(m.status), esc(m.repetitions), esc(m.worst_figures)], rows),
    );
  });
  return parts.length ? `<h3>${esc(m.cases)}</h3>${parts.join('')}` : '';
}

export function evidenceSection(report: Report, m: Messages, checkLabel: (name: string) => string): string {
  const runs = report.runs;
  return (
    `<section id="evidence"><h2>${esc(m.evidence)}</h2><p class="muted">${esc(m.evidence_intro)}</p>` +
    powerSection(runs, m) +
    accountingSection(runs, m) +
    timingSection(runs, m) +
    casesSection(report, m, checkLabel) +
    `</section>`
  );
}
