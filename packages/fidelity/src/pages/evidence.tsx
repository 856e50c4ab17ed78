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
import { nullFigureText } from '../policy/checks.js';
import type { AccountingBasis } from '../power/accounting.js';
import type { Comparison, PowerGpuLine, Report, RunReport } from '../schemas/report.js';
import { TIMING_STAGES, type RecordTiming, type TimingStage } from '../timing/schemas.js';
import type { VNode } from 'preact';
import { auto, duration, isNumber, kilojoules, num, runRef, shortHash } from './format.js';
import { badge, fileLink, headCell, lines, numCell, pairAnchor, Table, tx, type Child } from './parts.js';
import { countKey, fill, fillCount, type MessageKey, type Messages } from './i18n.js';
import { checkDigits } from './verdict.js';
import { visibleId } from '../visible.js';

type ReasonFamily = 'power' | 'accounting' | 'timing';

function unavailable(m: Messages): VNode {
  return <span class="muted">{m.unavailable}</span>;
}

/** A stage time in the unit that fits (format.ts duration); "unavailable", never 0, when missing. */
function timeCell(ms: number | null | undefined, m: Messages): VNode {
  return isNumber(ms) ? numCell(duration(ms)) : unavailable(m);
}

/** Energy in kJ, grouped (format.ts kilojoules); "unavailable", never 0, when missing. */
function energyCell(joules: number | null | undefined, m: Messages): VNode {
  return isNumber(joules) ? numCell(kilojoules(joules)) : unavailable(m);
}

/** A numeric cell, or "unavailable" for null / undefined: never a 0 standing in for a missing figure. */
function figure(value: number | null | undefined, m: Messages, digits?: number): VNode {
  if (!isNumber(value)) return unavailable(m);
  return numCell(digits === undefined ? auto(value) : num(value, digits, m.unavailable));
}

/** A reason code with its sentence in the page's language; an unknown code is shown as it is. */
function reasonItem(family: ReasonFamily, code: string, m: Messages): Child {
  const key = `${family}_why_${code}`;
  const sentence = key in m ? m[key as MessageKey] : '';
  return [<code>{code}</code>, sentence ? ` ${sentence}` : ''];
}

function reasonList(family: ReasonFamily, codes: readonly string[], m: Messages): Child {
  return codes.length ? lines(codes.map((c) => reasonItem(family, c, m))) : '—';
}

/** Who vouches for a run's identity (runs[].identity), as text: the API URL is not a link the bundle may carry. */
export function identityCell(run: RunReport, m: Messages): Child {
  const p = run.identity?.provider;
  if (run.identity?.attested_by !== 'provider' || !p) return <span class="muted">{m.identity_self}</span>;
  const digest = <code title={p.artifact_digest}>sha256:{shortHash(p.artifact_digest.replace(/^sha256:/, ''))}</code>;
  return tx(m, 'identity_provider', { api: <code>{p.api_url}</code>, fetched_at: p.fetched_at, digest });
}

function runHeading(run: RunReport, m: Messages): Child {
  const role = run.role === 'baseline' ? m.baseline : m.candidate;
  return [
    run.hardware.gpu_model,
    <br />,
    <span class="muted">
      {role} · {runRef(run.run_id, run.run_attempt)}
    </span>,
  ];
}

function head(runs: readonly RunReport[], label: string, m: Messages): Child[] {
  return [label, ...runs.map((r) => runHeading(r, m))];
}

/** A row that names a group of the rows below it, across the whole table. */
function groupRow(label: string, columns: number): Child[] {
  return [
    <th scope="colgroup" colspan={columns}>
      {label}
    </th>,
  ];
}

function gpuName(g: PowerGpuLine): string {
  return g.id === String(g.index) ? String(g.index) : `${g.index} (${g.id})`;
}

function perGpuCell(run: RunReport, m: Messages): Child {
  const p = run.power;
  const detail = run.power_detail;
  if (!p || !detail) return unavailable(m);
  // An invalid run shows which GPU broke which rule, and no figure at all.
  const items: Child[] = p.power_valid
    ? detail.per_gpu.map((g) =>
        tx(m, countKey('per_gpu_line', g.samples_used), {
          gpu: gpuName(g),
          energy: isNumber(g.energy_j) ? kilojoules(g.energy_j) : m.unavailable,
          watts: num(g.avg_power_w, 1, m.unavailable),
          n: g.samples_used,
          gap: num(g.max_gap_s, 3, m.unavailable),
        }),
      )
    : detail.per_gpu
        .filter((g) => g.reasons.length > 0)
        .map((g) => tx(m, 'per_gpu_reasons', { gpu: gpuName(g), reasons: g.reasons.flatMap((c, i) => (i === 0 ? [<code>{c}</code>] : [' ', <code>{c}</code>])) }));
  if (detail.truncated_last_line) items.push(<span class="muted">{m.truncated_last_line}</span>);
  return items.length ? lines(items) : '—';
}

function windowCell(run: RunReport, m: Messages): Child {
  const w = run.power_detail?.window;
  const seconds = run.power_detail?.duration_s;
  if (!w || !isNumber(seconds) || !isNumber(w.start_unix)) return unavailable(m);
  const start = new Date(w.start_unix * 1000);
  if (Number.isNaN(start.getTime())) return unavailable(m);
  return tx(m, 'power_window_value', { seconds: num(seconds, 3, m.unavailable), start: start.toISOString() });
}

function powerSection(runs: RunReport[], m: Messages): Child {
  const valid = (r: RunReport): boolean => r.power?.power_valid === true;
  const onPower = (f: (p: NonNullable<RunReport['power']>) => Child) => (r: RunReport) => (r.power ? f(r.power) : unavailable(m));
  const line = (label: string, cell: (r: RunReport) => Child): Child[] => [headCell(label), ...runs.map(cell)];
  const rows: Child[][] = [
    line(m.power_valid, (r) => (r.power ? (r.power.power_valid ? m.yes : m.power_valid_no) : <span class="muted">{m.power_none}</span>)),
    line(m.energy_j, (r) => (valid(r) ? energyCell(r.power!.total_gpu_energy_j, m) : unavailable(m))),
    line(m.avg_power_w, (r) => (valid(r) ? figure(r.power!.avg_total_gpu_power_w, m, 1) : unavailable(m))),
    line(m.j_per_clip, (r) => (valid(r) ? energyCell(r.power!.joules_per_valid_clip, m) : unavailable(m))),
    line(m.per_gpu, (r) => perGpuCell(r, m)),
    line(m.power_reasons, onPower((p) => reasonList('power', p.reasons, m))),
    line(m.valid_clips, onPower((p) => figure(p.valid_clips, m))),
    line(m.expected_gpus, onPower((p) => numCell(String(p.expected_gpu_count)))),
    line(m.observed_gpus, onPower((p) => numCell(String(p.observed_gpu_count)))),
    line(m.power_window, (r) => windowCell(r, m)),
    line(m.max_gap_s, onPower((p) => figure(p.max_gap_s, m))),
    line(m.power_method, onPower((p) => <code>{p.method}</code>)),
    line(m.power_audit, (r) => (r.power_audit ? fileLink(r.power_audit, m.power_audit_link, true) : '—')),
  ];
  return [<h3>{m.power}</h3>, <p class="muted">{m.power_intro}</p>, <Table head={head(runs, m.power, m)} rows={rows} />];
}

function basisRows(runs: RunReport[], which: 'participating' | 'allocated', m: Messages): Child[][] {
  const pick = (r: RunReport): AccountingBasis | undefined => r.accounting?.[which];
  const line = (label: string, cell: (b: AccountingBasis) => Child): Child[] => [
    headCell(label),
    ...runs.map((r) => {
      const b = pick(r);
      return b ? cell(b) : unavailable(m);
    }),
  ];
  return [
    groupRow(which === 'participating' ? m.basis_participating : m.basis_allocated, runs.length + 1),
    line(m.basis_gpus, (b) => numCell(String(b.gpus))),
    line(m.gpu_seconds, (b) => figure(b.gpu_seconds, m, 1)),
    line(m.gpu_seconds_per_clip, (b) => figure(b.gpu_seconds_per_valid_clip, m, 1)),
    line(m.basis_energy, (b) => energyCell(b.energy_j, m)),
    line(m.basis_energy_per_clip, (b) => energyCell(b.energy_j_per_valid_clip, m)),
    line(m.basis_reasons, (b) => reasonList('accounting', b.reasons, m)),
  ];
}

function accountingSection(runs: RunReport[], m: Messages): Child {
  const line = (label: string, cell: (r: RunReport) => Child): Child[] => [headCell(label), ...runs.map(cell)];
  const onAccounting = (f: (a: NonNullable<RunReport['accounting']>) => Child) => (r: RunReport) => (r.accounting ? f(r.accounting) : unavailable(m));
  const rows: Child[][] = [
    line(m.gpus_allocated, (r) => numCell(String(r.hardware.gpus_allocated))),
    line(m.gpus_participating, (r) => numCell(String(r.hardware.gpus_participating))),
    line(m.expected_gpus, onAccounting((a) => numCell(String(a.expected_gpu_count)))),
    line(m.measured_gpus, onAccounting((a) => figure(a.measured_gpu_count, m))),
    line(m.window_s, onAccounting((a) => figure(a.window_s, m, 3))),
    line(m.valid_clips, onAccounting((a) => numCell(String(a.valid_clips)))),
    line(m.accounting_remarks, onAccounting((a) => reasonList('accounting', a.reasons, m))),
    ...basisRows(runs, 'participating', m),
    ...basisRows(runs, 'allocated', m),
  ];
  return [<h3>{m.accounting}</h3>, <p class="muted">{m.accounting_intro}</p>, <Table head={head(runs, m.accounting, m)} rows={rows} />];
}

function stageLabel(stage: TimingStage, m: Messages): string {
  return m[`stage_${stage}`];
}

function recordsTable(run: RunReport, m: Messages): Child {
  const records: RecordTiming[] = run.timing?.records ?? [];
  if (records.length === 0) return null;
  const rows = records.map((rec) => [
    headCell(<code>{visibleId(rec.slot_id)}</code>),
    rec.status === 'ok' ? m.record_ok : m.record_failed,
    ...TIMING_STAGES.map((s) => timeCell(rec[s.name], m)),
    rec.reason ? <code>{rec.reason}</code> : '—',
  ]);
  const columns = [m.slot, m.record_status, ...TIMING_STAGES.map((s) => stageLabel(s.name, m)), m.power_reasons];
  const title = tx(m, 'timing_per_record', { run: `${run.hardware.gpu_model} ${runRef(run.run_id, run.run_attempt)}` });
  return (
    <details class="records">
      <summary>{title}</summary>
      <Table head={columns} rows={rows} />
    </details>
  );
}

function timingSection(runs: RunReport[], m: Messages): Child {
  const line = (label: string, cell: (r: RunReport) => Child): Child[] => [headCell(label), ...runs.map(cell)];
  const onTiming = (f: (t: NonNullable<RunReport['timing']>) => Child) => (r: RunReport) => (r.timing ? f(r.timing) : unavailable(m));
  const rows: Child[][] = [
    line(
      m.timing_clock,
      onTiming((t) => (t.clock_ids.length ? lines(t.clock_ids.map((c) => <code>{c}</code>)) : unavailable(m))),
    ),
    line(m.timing_records, onTiming((t) => tx(m, 'timing_records_value', { available: t.summary.available, records: t.summary.records }))),
  ];
  for (const s of TIMING_STAGES) {
    for (const [stat, key] of [['median', 'stat_median_ms'], ['p90', 'stat_p90_ms']] as const) {
      rows.push(line(fill(m.timing_stat, { stage: stageLabel(s.name, m), stat: m[key] }), onTiming((t) => timeCell(t.summary[s.name]?.[stat], m))));
    }
  }
  rows.push(line(m.timing_reasons, onTiming((t) => reasonList('timing', t.reasons, m))));
  return [<h3>{m.timing}</h3>, <p class="muted">{m.timing_note}</p>, <Table head={head(runs, m.timing, m)} rows={rows} />, runs.map((r) => recordsTable(r, m))];
}

function casesSection(report: Report, m: Messages, checkLabel: (name: string) => string): Child {
  const parts: Child[] = [];
  report.comparisons.forEach((c: Comparison, ci) => {
    // With one repetition the per-case view would only repeat the pairs.
    if (!c.cases.some((cv) => cv.repetitions > 1)) return;
    const rows = c.cases.map((cv) => [
      headCell(<code>{visibleId(cv.case_id)}</code>),
      numCell(String(cv.seed)),
      badge(cv.status, m[`status_${cv.status}`]),
      numCell(String(cv.repetitions)),
      cv.worst.length === 0
        ? '—'
        : lines(
            cv.worst.map((w) => {
              // ∞ for PSNR of identical frames, as the pairs table writes it; else the check's own
              // precision, as everywhere else on the page (0.437206 beside 0.437206, never 0.4372).
              const value = w.value === null ? nullFigureText(w.check, m.unavailable) : num(w.value, checkDigits(w.check), m.unavailable);
              const slot = <a href={`#${pairAnchor(ci, w.slot_id)}`}>{visibleId(w.slot_id)}</a>;
              return tx(m, 'worst_item', { check: checkLabel(w.check), value, repetition: String(w.repetition), slot });
            }),
          ),
    ]);
    // Closed: the failed and invalid cases are at the top of the page already; this is the whole table.
    parts.push(
      <details class="noise-box">
        <summary>
          {c.candidate_gpu_model} / {c.baseline_gpu_model}: {fillCount(m, 'cases_count', c.cases.length)}
        </summary>
        <Table head={[m.case, m.seed, m.status, m.repetitions, m.worst_figures]} rows={rows} />
      </details>,
    );
  });
  return parts.length ? [<h3>{m.cases}</h3>, <p class="muted">{m.cases_intro}</p>, parts] : null;
}

export function EvidenceSection({ report, m, checkLabel }: { report: Report; m: Messages; checkLabel: (name: string) => string }): VNode {
  const runs = report.runs;
  return (
    <section id="evidence">
      <h2>{m.evidence}</h2>
      <p class="muted">{m.evidence_intro}</p>
      {powerSection(runs, m)}
      {accountingSection(runs, m)}
      {timingSection(runs, m)}
      {casesSection(report, m, checkLabel)}
    </section>
  );
}
