/**
 * The run evidence section: board power, GPU accounting, server timing, and
 * the per-case view of plans with repetitions. Each is a side-by-side table,
 * one column per run (baseline first), so hardware compares at a glance.
 *
 * Two rules from the issue shape everything here. A missing figure reads
 * "unavailable" with the reason, never 0. And nothing in this section is a
 * pass or a fail: an invalid power result shows its reasons and no number,
 * and latency across hardware is only set side by side.
 */
import type { AccountingBasis } from '../power/accounting.js';
import type { Comparison, PowerGpuLine, Report, RunReport } from '../schemas/report.js';
import { TIMING_STAGES, type RecordTiming, type TimingStage } from '../timing/schemas.js';
import { esc } from './html-escape.js';
import { auto, duration, isNumber, kilojoules, num, shortHash } from './html-format.js';
import { badge, fileLink, headCell, numCell, pairAnchor, table, tx, txHtml } from './html-parts.js';
import { fill, type MessageKey, type Messages } from './i18n.js';

type ReasonFamily = 'power' | 'accounting' | 'timing';

/** Milliseconds to the microsecond, fixed so that runs line up column by column. */

function unavailable(m: Messages): string {
  return `<span class="muted">${esc(m.unavailable)}</span>`;
}

/** A numeric cell, or "unavailable" for null / undefined: never a 0 standing in for a missing figure. */
/** A stage time in the unit that fits (html-format.ts duration); "unavailable", never 0, when missing. */
function timeCell(ms: number | null | undefined, m: Messages): string {
  return isNumber(ms) ? numCell(esc(duration(ms))) : unavailable(m);
}

/** Energy in kJ, grouped (html-format.ts kilojoules); "unavailable", never 0, when missing. */
function energyCell(joules: number | null | undefined, m: Messages): string {
  return isNumber(joules) ? numCell(esc(kilojoules(joules))) : unavailable(m);
}

function figure(value: number | null | undefined, m: Messages, digits?: number): string {
  if (!isNumber(value)) return unavailable(m);
  return numCell(esc(digits === undefined ? auto(value) : num(value, digits, m.unavailable)));
}

/** A reason code with its sentence in the page's language; an unknown code is shown as it is. */
function reasonHtml(family: ReasonFamily, code: string, m: Messages): string {
  const key = `${family}_why_${code}`;
  const sentence = key in m ? m[key as MessageKey] : '';
  return `<code>${esc(code)}</code>${sentence ? ` ${esc(sentence)}` : ''}`;
}

function reasonList(family: ReasonFamily, codes: readonly string[], m: Messages): string {
  return codes.length ? codes.map((c) => reasonHtml(family, c, m)).join('<br>') : '—';
}

/** Who vouches for a run's identity (runs[].identity), as text: the API URL is not a link the bundle may carry. */
export function identityCell(run: RunReport, m: Messages): string {
  const p = run.identity?.provider;
  if (run.identity?.attested_by !== 'provider' || !p) return `<span class="muted">${esc(m.identity_self)}</span>`;
  const digest = `<code title="${esc(p.artifact_digest)}">sha256:${esc(shortHash(p.artifact_digest.replace(/^sha256:/, '')))}</code>`;
  return txHtml(m, 'identity_provider', { api: `<code>${esc(p.api_url)}</code>`, fetched_at: esc(p.fetched_at), digest });
}

function runHeading(run: RunReport, m: Messages): string {
  const role = run.role === 'baseline' ? m.baseline : m.candidate;
  return `${esc(run.hardware.gpu_model)}<br><span class="muted">${esc(role)} · ${esc(run.run_id)}/${esc(run.run_attempt)}</span>`;
}

function head(runs: readonly RunReport[], label: string, m: Messages): string[] {
  return [esc(label), ...runs.map((r) => runHeading(r, m))];
}

/** A row that names a group of the rows below it, across the whole table. */
function groupRow(label: string, columns: number): string[] {
  return [`<th scope="colgroup" colspan="${columns}">${esc(label)}</th>`];
}

function gpuName(g: PowerGpuLine): string {
  return g.id === String(g.index) ? String(g.index) : `${g.index} (${g.id})`;
}

function perGpuCell(run: RunReport, m: Messages): string {
  const p = run.power;
  const detail = run.power_detail;
  if (!p || !detail) return unavailable(m);
  // An invalid run shows which GPU broke which rule, and no figure at all.
  const lines = p.power_valid
    ? detail.per_gpu.map((g) =>
        tx(m, 'per_gpu_line', {
          gpu: gpuName(g),
          energy: isNumber(g.energy_j) ? kilojoules(g.energy_j) : m.unavailable,
          watts: num(g.avg_power_w, 1, m.unavailable),
          used: g.samples_used,
          gap: num(g.max_gap_s, 3, m.unavailable),
        }),
      )
    : detail.per_gpu.filter((g) => g.reasons.length > 0).map((g) => txHtml(m, 'per_gpu_reasons', { gpu: esc(gpuName(g)), reasons: g.reasons.map((c) => `<code>${esc(c)}</code>`).join(' ') }));
  if (detail.truncated_last_line) lines.push(`<span class="muted">${esc(m.truncated_last_line)}</span>`);
  return lines.length ? lines.join('<br>') : '—';
}

function windowCell(run: RunReport, m: Messages): string {
  const w = run.power_detail?.window;
  const seconds = run.power_detail?.duration_s;
  if (!w || !isNumber(seconds) || !isNumber(w.start_unix)) return unavailable(m);
  const start = new Date(w.start_unix * 1000);
  if (Number.isNaN(start.getTime())) return unavailable(m);
  return tx(m, 'power_window_value', { seconds: num(seconds, 3, m.unavailable), start: start.toISOString() });
}

function powerSection(runs: RunReport[], m: Messages): string {
  const valid = (r: RunReport): boolean => r.power?.power_valid === true;
  const onPower = (f: (p: NonNullable<RunReport['power']>) => string) => (r: RunReport) => (r.power ? f(r.power) : unavailable(m));
  const line = (label: string, cell: (r: RunReport) => string): string[] => [headCell(esc(label)), ...runs.map(cell)];
  const rows: string[][] = [
    line(m.power_valid, (r) => (r.power ? esc(r.power.power_valid ? m.yes : m.power_valid_no) : `<span class="muted">${esc(m.power_none)}</span>`)),
    line(m.energy_j, (r) => (valid(r) ? energyCell(r.power!.total_gpu_energy_j, m) : unavailable(m))),
    line(m.avg_power_w, (r) => (valid(r) ? figure(r.power!.avg_total_gpu_power_w, m, 1) : unavailable(m))),
    line(m.j_per_clip, (r) => (valid(r) ? energyCell(r.power!.joules_per_valid_clip, m) : unavailable(m))),
    line(m.per_gpu, (r) => perGpuCell(r, m)),
    line(m.power_reasons, onPower((p) => reasonList('power', p.reasons, m))),
    line(m.valid_clips, onPower((p) => figure(p.valid_clips, m))),
    line(m.expected_gpus, onPower((p) => numCell(esc(p.expected_gpu_count)))),
    line(m.observed_gpus, onPower((p) => numCell(esc(p.observed_gpu_count)))),
    line(m.power_window, (r) => windowCell(r, m)),
    line(m.max_gap_s, onPower((p) => figure(p.max_gap_s, m))),
    line(m.power_method, onPower((p) => `<code>${esc(p.method)}</code>`)),
    line(m.power_audit, (r) => (r.power_audit ? fileLink(r.power_audit, m.power_audit_link, true) : '—')),
  ];
  return `<h3>${esc(m.power)}</h3><p class="muted">${esc(m.power_intro)}</p>` + table(head(runs, m.power, m), rows);
}

function basisRows(runs: RunReport[], which: 'participating' | 'allocated', m: Messages): string[][] {
  const pick = (r: RunReport): AccountingBasis | undefined => r.accounting?.[which];
  const line = (label: string, cell: (b: AccountingBasis) => string): string[] => [
    headCell(esc(label)),
    ...runs.map((r) => {
      const b = pick(r);
      return b ? cell(b) : unavailable(m);
    }),
  ];
  return [
    groupRow(which === 'participating' ? m.basis_participating : m.basis_allocated, runs.length + 1),
    line(m.basis_gpus, (b) => numCell(esc(b.gpus))),
    line(m.gpu_seconds, (b) => figure(b.gpu_seconds, m, 1)),
    line(m.gpu_seconds_per_clip, (b) => figure(b.gpu_seconds_per_valid_clip, m, 1)),
    line(m.basis_energy, (b) => energyCell(b.energy_j, m)),
    line(m.basis_energy_per_clip, (b) => energyCell(b.energy_j_per_valid_clip, m)),
    line(m.basis_reasons, (b) => reasonList('accounting', b.reasons, m)),
  ];
}

function accountingSection(runs: RunReport[], m: Messages): string {
  const line = (label: string, cell: (r: RunReport) => string): string[] => [headCell(esc(label)), ...runs.map(cell)];
  const onAccounting = (f: (a: NonNullable<RunReport['accounting']>) => string) => (r: RunReport) => (r.accounting ? f(r.accounting) : unavailable(m));
  const rows: string[][] = [
    line(m.gpus_allocated, (r) => numCell(esc(r.hardware.gpus_allocated))),
    line(m.gpus_participating, (r) => numCell(esc(r.hardware.gpus_participating))),
    line(m.expected_gpus, onAccounting((a) => numCell(esc(a.expected_gpu_count)))),
    line(m.measured_gpus, onAccounting((a) => figure(a.measured_gpu_count, m))),
    line(m.window_s, onAccounting((a) => figure(a.window_s, m, 3))),
    line(m.valid_clips, onAccounting((a) => numCell(esc(a.valid_clips)))),
    line(m.accounting_remarks, onAccounting((a) => reasonList('accounting', a.reasons, m))),
    ...basisRows(runs, 'participating', m),
    ...basisRows(runs, 'allocated', m),
  ];
  return `<h3>${esc(m.accounting)}</h3><p class="muted">${esc(m.accounting_intro)}</p>` + table(head(runs, m.accounting, m), rows);
}

function stageLabel(stage: TimingStage, m: Messages): string {
  return m[`stage_${stage}`];
}

function recordsTable(run: RunReport, m: Messages): string {
  const records: RecordTiming[] = run.timing?.records ?? [];
  if (records.length === 0) return '';
  const rows = records.map((rec) => [
    headCell(`<code>${esc(rec.slot_id)}</code>`),
    esc(rec.status === 'ok' ? m.record_ok : m.record_failed),
    ...TIMING_STAGES.map((s) => timeCell(rec[s.name], m)),
    rec.reason ? `<code>${esc(rec.reason)}</code>` : '—',
  ]);
  const columns = [esc(m.slot), esc(m.record_status), ...TIMING_STAGES.map((s) => esc(stageLabel(s.name, m))), esc(m.power_reasons)];
  const title = tx(m, 'timing_per_record', { run: `${run.hardware.gpu_model} ${run.run_id}/${run.run_attempt}` });
  return `<details class="records"><summary>${title}</summary>${table(columns, rows)}</details>`;
}

function timingSection(runs: RunReport[], m: Messages): string {
  const line = (label: string, cell: (r: RunReport) => string): string[] => [headCell(esc(label)), ...runs.map(cell)];
  const onTiming = (f: (t: NonNullable<RunReport['timing']>) => string) => (r: RunReport) => (r.timing ? f(r.timing) : unavailable(m));
  const rows: string[][] = [
    line(
      m.timing_clock,
      onTiming((t) => (t.clock_ids.length ? t.clock_ids.map((c) => `<code>${esc(c)}</code>`).join('<br>') : unavailable(m))),
    ),
    line(m.timing_records, onTiming((t) => tx(m, 'timing_records_value', { available: t.summary.available, records: t.summary.records }))),
  ];
  for (const s of TIMING_STAGES) {
    for (const [stat, key] of [['median', 'stat_median_ms'], ['p90', 'stat_p90_ms']] as const) {
      rows.push(line(fill(m.timing_stat, { stage: stageLabel(s.name, m), stat: m[key] }), onTiming((t) => timeCell(t.summary[s.name]?.[stat], m))));
    }
  }
  rows.push(line(m.timing_reasons, onTiming((t) => reasonList('timing', t.reasons, m))));
  return (
    `<h3>${esc(m.timing)}</h3><p class="muted">${esc(m.timing_note)}</p>` +
    table(head(runs, m.timing, m), rows) +
    runs.map((r) => recordsTable(r, m)).join('')
  );
}

function casesSection(report: Report, m: Messages, checkLabel: (name: string) => string): string {
  const parts: string[] = [];
  report.comparisons.forEach((c: Comparison, ci) => {
    // With one repetition the per-case view would only repeat the pairs.
    if (!c.cases.some((cv) => cv.repetitions > 1)) return;
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
  return parts.length ? `<h3>${esc(m.cases)}</h3><p class="muted">${esc(m.cases_intro)}</p>${parts.join('')}` : '';
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
