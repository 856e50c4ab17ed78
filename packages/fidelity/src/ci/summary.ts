/**
 * The comparison as a GitHub job summary (docs/ci.md): Markdown appended to
 * the file GITHUB_STEP_SUMMARY names. GitHub renders a subset of Markdown,
 * so this keeps to headings, lists and tables. Every text that comes from a
 * run archive (GPU model, slot, case, a failed request's error) is written
 * by whoever built the archive: it goes in a code span, where Markdown,
 * HTML, links and @mentions are inert, with its line breaks and control
 * characters made spaces and its pipes escaped so it stays in its cell.
 */
import type { Problem } from '../errors.js';
import type { Comparison, Report } from '../schemas/report.js';
import { caseText, checkFigure, clipsText, figure, runLabel } from './format.js';
import { visibleId } from '../visible.js';
import { byCount, counted } from '../words.js';

/** Rows of the failed-and-invalid table at most: GitHub caps a step's summary at 1 MiB. report.json has every pair. */
export const SUMMARY_MAX_ROWS = 200;

const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * `text` as an inert Markdown code span for a table cell or a list item. A backslash right before
 * a pipe becomes U+FF3C (a table row would read `\\|` as an escaped backslash and a cell boundary).
 */
export function mdCode(text: string, max = 200): string {
  let t = text.replace(UNSAFE, ' ');
  if (t.length > max) t = `${t.slice(0, max - 1)}…`;
  t = t.replace(/\\+(?=\|)/g, (m) => '\uff3c'.repeat(m.length)).replace(/\|/g, '\\|');
  if (t.trim() === '') return '';
  const longest = Math.max(0, ...(t.match(/`+/g) ?? []).map((m) => m.length));
  const fence = '`'.repeat(longest + 1);
  const pad = /^[` ]|[` ]$/.test(t) ? ' ' : '';
  return `${fence}${pad}${t}${pad}${fence}`;
}

/** The bundle as the summary names it; sizes in bytes. */
export interface SummaryBundle {
  path: string;
  files: number;
  seal_sha256: string;
  /** Every sealed file plus SHA256SUMS; null when unknown. */
  bytes: number | null;
  /** The part of `bytes` that is the source MP4s. */
  media_bytes: number | null;
}

const size = (bytes: number): string => (bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${(bytes / 1e3).toFixed(1)} kB`);

/** "1 more case is left out here", "3 more rows are left out here": what the summary's cap dropped. */
function leftOut(n: number, noun: string): string {
  return `${n} more ${byCount(n, `${noun} is`, `${noun}s are`)} left out here`;
}

function noiseCell(c: Comparison): string {
  if (!c.noise) return 'not calibrated';
  const n = c.noise;
  return `${n.beyond_pairs} of ${counted(n.valid_pairs, 'pair')} beyond noise (n = ${n.n}, alpha ${n.alpha}, binomial p ${figure(n.binomial_p)})${n.note ? `; ${mdCode(n.note)}` : ''}`;
}

/**
 * Markdown for a GitHub job summary (docs/ci.md): per candidate the pair counts and, when
 * calibrated, the noise verdict; a table of the cases with a failed or invalid repetition (their
 * repetition counts, docs/report.md "Repeated requests"); a table of the failed and invalid pairs (slot, case, check or
 * reason, value, threshold); the bundle's path, size and seal. Headings, lists and tables only;
 * text from the runs is escaped into inert code spans.
 *
 * @example
 * ```ts
 * appendFileSync(process.env.GITHUB_STEP_SUMMARY!, jobSummary(result.report, { path: 'bundle', files: result.files, seal_sha256: result.seal_sha256, bytes: null, media_bytes: null }));
 * ```
 */
export function jobSummary(report: Report, bundle: SummaryBundle | null): string {
  const first = report.comparisons[0];
  const baseline = first ? runLabel(first.baseline_gpu_model, first.baseline_run_id, first.baseline_run_attempt) : 'no comparison';
  const lines = [`## fidelity: ${mdCode(baseline)} against ${counted(report.comparisons.length, 'candidate')}`, ''];
  lines.push('| candidate | run | planned | valid | passed | failed | invalid | noise floor |', '| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |');
  for (const c of report.comparisons) {
    const s = c.summary;
    lines.push(`| ${mdCode(c.candidate_gpu_model)} | ${c.candidate_run_id}-${c.candidate_run_attempt} | ${s.planned} | ${s.valid_pairs} | ${s.passed} | ${s.failed} | ${s.invalid} | ${noiseCell(c)} |`);
  }
  lines.push('', `- Policy ${mdCode(report.policy.name)}, ${report.policy.calibration_status}: ${mdCode(report.disclaimer, 400)}`);
  // Each run's clips checked on their own (runs[].clips, docs/metrics.md "Clip validity"); none when no clip was analysed.
  const clipRuns = report.runs.flatMap((r) => (r.clips ? [`${mdCode(runLabel(r.hardware.gpu_model, r.run_id, r.run_attempt))} ${clipsText(r.clips)}`] : []));
  if (clipRuns.length) lines.push(`- Clips checked on their own: ${clipRuns.join('; ')}`);

  // Each case with a failed or invalid repetition, across its repetitions, before the pairs (docs/report.md, "Repeated requests").
  const caseRows = report.comparisons.flatMap((c) =>
    c.cases.filter((v) => c.pairs.some((p) => p.case_id === v.case_id && p.status !== 'passed')).map((v) => `| ${mdCode(c.candidate_gpu_model)} | ${mdCode(visibleId(v.case_id))} | ${v.status} | ${caseText(v, c.pairs)} |`),
  );
  if (caseRows.length) {
    lines.push('', '### Failed and invalid cases', '', '| candidate | case | status | repetitions |', '| --- | --- | --- | --- |', ...caseRows.slice(0, SUMMARY_MAX_ROWS));
    if (caseRows.length > SUMMARY_MAX_ROWS) lines.push('', `- ${leftOut(caseRows.length - SUMMARY_MAX_ROWS, 'case')}; report.json in the bundle has every case.`);
  }

  const rows: string[] = [];
  for (const c of report.comparisons) {
    for (const p of c.pairs) {
      const lead = `| ${mdCode(c.candidate_gpu_model)} | ${mdCode(visibleId(p.slot_id))} | ${mdCode(visibleId(p.case_id))} | ${p.status} |`;
      if (p.status === 'failed') {
        for (const k of p.checks.filter((x) => x.outcome === 'fail')) rows.push(`${lead} ${k.name}${k.note ? ` (${k.note})` : ''} | ${checkFigure(k.name, k.value, k.threshold)} | ${k.comparator} ${k.threshold} |`);
      } else if (p.status === 'invalid') {
        const details = p.reason_details.length ? p.reason_details : p.reasons.map((code) => ({ code, message: '' }));
        for (const d of details) rows.push(`${lead} ${mdCode(d.code)}${d.message ? `: ${mdCode(d.message, 160)}` : ''} |  |  |`);
      }
    }
  }
  lines.push('', '### Failed and invalid pairs', '');
  if (rows.length === 0) lines.push('- None: every planned pair was measured and passed every check.');
  else {
    lines.push('| candidate | slot | case | status | check or reason | value | threshold |', '| --- | --- | --- | --- | --- | ---: | --- |', ...rows.slice(0, SUMMARY_MAX_ROWS));
    if (rows.length > SUMMARY_MAX_ROWS) lines.push('', `- ${leftOut(rows.length - SUMMARY_MAX_ROWS, 'row')}; report.json in the bundle has every pair.`);
  }
  if (bundle) {
    lines.push('', '### Bundle', '', `- Path: ${mdCode(bundle.path, 400)}`);
    // The files SHA256SUMS seals, as the terminal counts them (SHA256SUMS itself is not among them).
    lines.push(`- Files: ${counted(bundle.files, 'file')} sealed`);
    if (bundle.bytes !== null) lines.push(`- Size: ${size(bundle.bytes)} with SHA256SUMS${bundle.media_bytes !== null ? `, of which source MP4s ${size(bundle.media_bytes)}` : ''}`);
    lines.push(`- SHA-256 of SHA256SUMS: ${mdCode(bundle.seal_sha256)}`);
  }
  return `\n${lines.join('\n')}\n`;
}

/** Markdown for a job summary when the command refused its input: the reason codes and messages. */
export function refusalSummary(command: string, problems: readonly Problem[]): string {
  const lines = [`## fidelity ${command}: refused`, '', '| code | message |', '| --- | --- |'];
  for (const p of problems.slice(0, SUMMARY_MAX_ROWS)) lines.push(`| ${mdCode(p.code)} | ${mdCode(p.message, 300)} |`);
  lines.push('', '- Nothing was written (exit 2); the codes are explained in docs/reason-codes.md.');
  return `\n${lines.join('\n')}\n`;
}

