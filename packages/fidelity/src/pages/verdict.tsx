/**
 * The top of the page a reviewer reads first: the outcome counts per
 * candidate, the failed and invalid cases (case-findings.tsx), and the
 * overview of every pair, worst first, with status filters that work
 * without a script (radio buttons and `:has()`).
 */
import type { VNode } from 'preact';
import { chartedSeries } from '../bundle/video-series.js';
import type { CheckResult } from '../schemas/policy.js';
import type { Comparison, PairReport, Report } from '../schemas/report.js';
import { num } from './format.js';
import { badge, checkLabel, joined, numCell, pairAnchor, Row as TableRow, type Child } from './parts.js';
import { causeLead } from './cause.js';
import { reasonText } from './reasons.js';
import { clipSentence } from './clip-words.js';
import { countKey, fill, fillCount, langOf, type MessageKey, type Messages } from './i18n.js';
import { checkDeclaration } from '../policy/checks.js';
import { visibleId } from '../visible.js';

/** One precision per check, everywhere on the page (its declaration's digits); 4 for a check this tool does not know. */
export function checkDigits(name: string): number {
  return checkDeclaration(name)?.digits ?? 4;
}
const SSIM_DIGITS = 6;

/** The short name of a check for one-line summaries ("audio |RMS ratio − 1|"); an unknown one as it is. */
export function checkShort(m: Messages, name: string): string {
  return checkDeclaration(name)?.words[langOf(m)].short ?? checkLabel(m, name);
}

/** A check's note ("identical", "baseline_silent" …) in the page's language; an unknown note as it is. */
export function checkNoteText(m: Messages, note: string): string {
  const key = `checknote_${note}`;
  return key in m ? m[key as MessageKey] : note;
}

/** "audio |RMS ratio − 1| 0.2005": a check's short name and its judged value (a null one by its note, "identical"). */
export function checkValueText(c: CheckResult, m: Messages): string {
  const value = c.value === null && c.note !== null ? checkNoteText(m, c.note) : num(c.value, checkDigits(c.name), m.unavailable);
  return `${checkShort(m, c.name)} ${value}`;
}

/** "audio |RMS ratio − 1| 0.2005 (needs ≤ 0.1)": what failed, its value and the rule. */
export function failedCheckText(c: CheckResult, m: Messages): string {
  // "needs ≥ 0.92": the rule the value is held to, not a claim about the value.
  return `${checkValueText(c, m)} (${m.check_needs} ${c.comparator === '>=' ? '≥' : '≤'} ${String(c.threshold)})`;
}

/** Both sides bit-identical: every video frame and every audio sample (or no audio on either side). */
export function isIdentical(pair: PairReport): boolean {
  return pair.status !== 'invalid' && pair.video !== null && pair.video.identical && (pair.audio == null || pair.audio.identical);
}

/** The pair's one-line outcome: what failed, why it is invalid, "identical", or its key figures (empty when there is nothing to say). */
export function pairHeadline(pair: PairReport, m: Messages): Child[] {
  if (pair.status === 'failed') {
    const failed = pair.checks.filter((c) => c.outcome === 'fail');
    const checks = joined(
      failed.map((c) => <span class="nowrap">{failedCheckText(c, m)}</span>),
      '; ',
    );
    // The cause first where the measurement diagnoses one, then the metrics that failed.
    const cause = causeLead(pair, m);
    return cause === null ? checks : [cause, ' — ', ...checks];
  }
  if (pair.status === 'invalid') {
    const code = pair.reason_details[0]?.code ?? pair.reasons[0];
    if (code === undefined) return [];
    const detail = pair.reason_details.find((d) => d.code === code);
    // A clip's defect in its own sentence, from the clip's figures, in the page's language (clip-words.ts).
    const clips = pair.clips;
    const own = clips && code.startsWith('CLIP_') ? [clips.baseline, clips.candidate].flatMap((clip) => (clip?.reasons.some((r) => r.code === code) ? [clipSentence(code, clip, m)] : [])) : [];
    return [<code>{code}</code>, ' ', own.length ? own.join('; ') : reasonText(code, detail?.message ?? null, m)];
  }
  if (isIdentical(pair)) return [<strong>{m.identical_pair}</strong>];
  const parts: Child[] = [];
  if (pair.video) {
    // Only what the metric set computed (video-series.ts picks the SSIM series shown).
    const ssim = chartedSeries(pair.video);
    if (ssim) parts.push([m.col_ssim_min, ' ', num(ssim.series.min, SSIM_DIGITS, m.unavailable)]);
    if (pair.video.psnr_db !== undefined) parts.push(pair.video.psnr_db === null ? m.psnr_identical : ['PSNR ', num(pair.video.psnr_db, 2, m.unavailable), ' dB']);
  }
  return joined(parts, ' · ');
}

const RANK: Record<PairReport['status'], number> = { failed: 0, invalid: 1, passed: 2 };

interface Row {
  ci: number;
  c: Comparison;
  pair: PairReport;
}

/** Worst first: failed, then invalid, then passed; within each, lowest min SSIM first, then slot order. */
function worstFirst(report: Report): Row[] {
  const rows: Row[] = [];
  report.comparisons.forEach((c, ci) => c.pairs.forEach((pair) => rows.push({ ci, c, pair })));
  const ssim = (p: PairReport): number => (p.video ? chartedSeries(p.video)?.series.min : undefined) ?? 2;
  return rows.sort((x, y) => RANK[x.pair.status] - RANK[y.pair.status] || ssim(x.pair) - ssim(y.pair) || x.ci - y.ci || (x.pair.slot_id < y.pair.slot_id ? -1 : x.pair.slot_id > y.pair.slot_id ? 1 : 0));
}

function countChip(n: number, kind: 'passed' | 'failed' | 'invalid', label: string): VNode {
  // A zero is not an alarm: only a non-zero failed or invalid count gets its colour.
  return (
    <span class={`count ${n === 0 ? 'zero' : kind}`}>
      <b>{String(n)}</b> {label}
    </span>
  );
}

/**
 * Outcome counts per candidate, then the failing and invalid cases (`findings`, case-findings.tsx,
 * null when there are none: then the all-good line).
 */
export function VerdictBlock({ report, m, runLabel, findings }: { report: Report; m: Messages; runLabel: (c: Comparison, side: 'baseline' | 'candidate') => Child; findings: VNode | null }): VNode {
  const cards = report.comparisons.map((c) => {
    const s = c.summary;
    return (
      <div class="card">
        <p class="card-title">
          {runLabel(c, 'baseline')} <span class="muted">{m.versus}</span> <strong>{runLabel(c, 'candidate')}</strong>
        </p>
        <p class="counts">
          {countChip(s.failed, 'failed', m.failed)} {countChip(s.invalid, 'invalid', m.invalid)} {countChip(s.passed, 'passed', m.passed)}{' '}
          <span class="muted nowrap">{fill(m.of_planned, { planned: s.planned })}</span>
        </p>
        {c.noise ? (
          <>
            <p class="muted small">{fill(m[countKey('verdict_noise', c.noise.valid_pairs)], { beyond: c.noise.beyond_pairs, n: c.noise.valid_pairs })}</p>
            {/* What "beyond noise" means, where the count is read first: a p-value against the same hardware's spread, not its worst value. */}
            <p class="muted small noise-how">{fill(m.verdict_noise_how, { alpha: c.noise.alpha, pairs: fillCount(m, 'same_hw_pairs', c.noise.n) })}</p>
          </>
        ) : null}
      </div>
    );
  });
  return (
    <section id="verdict" aria-label={m.verdict}>
      <div class="cards">{cards}</div>
      {findings ?? <p class="allgood">{m.no_problems}</p>}
    </section>
  );
}

function worstAudio(pair: PairReport): { snr: number | null; cos: number | null; identical: boolean } | null {
  const a = pair.audio;
  if (!a) return null;
  let snr: number | null = null;
  for (const ch of a.channels) if (ch.snr_db !== null && (snr === null || ch.snr_db < snr)) snr = ch.snr_db;
  return { snr, cos: a.spectral_cosine, identical: a.identical };
}

/** Every pair in one table, worst first, with All / Failed / Invalid / Passed filters. */
export function OverviewBlock({ report, m }: { report: Report; m: Messages }): VNode {
  const rows = worstFirst(report);
  const many = report.comparisons.length > 1;
  const count = (s: PairReport['status'] | 'all'): number => (s === 'all' ? rows.length : rows.filter((r) => r.pair.status === s).length);
  const filters = (['all', 'failed', 'invalid', 'passed'] as const).map((s) => {
    const label = s === 'all' ? m.filter_all : m[s];
    return [
      <input type="radio" name="status-filter" id={`flt-${s}`} value={s} checked={s === 'all'} />,
      <label for={`flt-${s}`}>
        {label} <span class="muted">{String(count(s))}</span>
      </label>,
    ];
  });
  const body = rows.map(({ ci, c, pair }) => {
    // An invalid pair was not judged: its figures (measured anyway, as a diagnosis) are "—" here like any pair not judged.
    const judged = pair.status !== 'invalid';
    const v = judged ? pair.video : null;
    const au = judged ? worstAudio(pair) : null;
    const what: Child = pair.status === 'passed' ? (isIdentical(pair) ? m.identical_pair : '') : pairHeadline(pair, m);
    // The row's class is what the status filters select (style.ts).
    return (
      <tr class={`st-${pair.status}`}>
        <td class="nowrap">
          {badge(pair.status, m[`status_${pair.status}`])}{' '}
          <a href={`#${pairAnchor(ci, pair.slot_id)}`}>
            <code>{visibleId(pair.slot_id)}</code>
          </a>
        </td>
        <td class="small nowrap">
          {visibleId(pair.case_id)}
          {many ? [' · ', c.candidate_gpu_model] : null}
        </td>
        <td class="why">{what}</td>
        {numCell(v ? num(chartedSeries(v)?.series.min, SSIM_DIGITS, m.unavailable) : '—')}
        {numCell(v && v.psnr_db !== undefined ? (v.psnr_db === null ? '∞' : num(v.psnr_db, 2, m.unavailable)) : '—')}
        {numCell(au ? (au.identical ? '∞' : num(au.snr, 2, m.unavailable)) : '—')}
        {numCell(au ? num(au.cos, 6, m.unavailable) : '—')}
      </tr>
    );
  });
  const head = [m.pair_col, m.case, m.what_failed, m.col_ssim_min, m.col_psnr, m.col_snr, m.col_cos];
  return (
    <section id="overview">
      <h2>{m.overview}</h2>
      <p class="muted">{m.overview_intro}</p>
      <div class="filters" role="radiogroup" aria-label={m.filter_label}>
        {filters}
      </div>
      <div class="scroll">
        <table>
          <thead>
            <TableRow cells={head} header />
          </thead>
          <tbody>{body}</tbody>
        </table>
      </div>
    </section>
  );
}
