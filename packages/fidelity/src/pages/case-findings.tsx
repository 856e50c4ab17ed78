/**
 * The findings at the top of the page, read as a reviewer reasons: in cases (a prompt and a seed),
 * not pairs. One line per case per candidate that has a failed or invalid repetition, every one of
 * them, never cut: "night-market-s29 on B200: failed in 4 of 4 repetitions, min SSIM 0.437 (needs ≥
 * 0.92) at frame 12 each time". Each line opens to its repetitions, each a link to its pair. Past
 * `GROUP_ABOVE` lines the cases are grouped by cause (their first reason code), each group a
 * `<details>` that starts open and says how many cases it holds per candidate, so nothing is hidden
 * and a long list still reads as a handful of causes. The figures come from `comparisons[].cases[]`
 * (docs/report.md, "Repeated requests").
 */
import type { VNode } from 'preact';
import { caseViews, shownWorstFrame } from '../pairing/summary.js';
import { CHECK_NAMES, CHECKS, checkDeclaration } from '../policy/checks.js';
import type { CheckResult } from '../schemas/policy.js';
import type { CaseView, CaseWorst, Comparison, OwnRepetitionsMeasured, PairReport, Report } from '../schemas/report.js';
import { num } from './format.js';
import { countKey, fill, fillCount, type Messages } from './i18n.js';
import { badge, fillChildren, joined, pairAnchor, tx, type Child } from './parts.js';
import { pairCauses } from './cause.js';
import { clipSentence } from './clip-words.js';
import { reasonText } from './reasons.js';
import { checkDigits, checkShort, checkValueText, failedCheckText, pairHeadline } from './verdict.js';
import { visibleId } from '../visible.js';

/** Up to this many case lines are one flat list; more are grouped by cause. */
export const GROUP_ABOVE = 12;

/** One listed case: the comparison it belongs to, its view and its repetitions' pairs in slot order. */
export interface CaseFinding {
  ci: number;
  c: Comparison;
  view: CaseView;
  pairs: PairReport[];
  /** The badge: failed if any repetition failed, else invalid (a case listed for an invalid repetition). */
  status: 'failed' | 'invalid';
  /** The first reason code of its failed or invalid repetitions: what the grouping calls its cause. */
  cause: string;
}

/**
 * Every case of every comparison with a failed or invalid repetition, failed cases first, then the
 * invalid ones, each in comparison then plan order. A case whose status is `passed` but which has
 * an invalid repetition is listed too: an invalid pair is never left off the top of the page.
 */
export function caseFindings(report: Report): CaseFinding[] {
  const out: CaseFinding[] = [];
  report.comparisons.forEach((c, ci) => {
    for (const view of viewsOf(c)) {
      const pairs = c.pairs.filter((p) => p.case_id === view.case_id);
      const failed = pairs.some((p) => p.status === 'failed');
      const invalid = pairs.some((p) => p.status === 'invalid');
      if (!failed && !invalid) continue;
      const status = failed ? 'failed' : 'invalid';
      // A report before 1.3 has no case reasons: the first bad pair's first code stands in.
      const cause = view.reasons?.[0]?.code ?? pairs.find((p) => p.status === status)?.reasons[0] ?? status;
      out.push({ ci, c, view, pairs, status, cause });
    }
  });
  const rank = (f: CaseFinding): number => (f.status === 'failed' ? 0 : 1);
  // Array.prototype.sort is stable: comparison and plan order stay within each status.
  return out.sort((a, b) => rank(a) - rank(b));
}

/**
 * The comparison's cases as report.json has them; derived from its pairs (as compare derives them)
 * when they do not cover every pair's case with the version 1.3 fields, so no pair is left off.
 */
function viewsOf(c: Comparison): CaseView[] {
  const covered = new Set(c.cases.filter((v) => v.passed !== undefined).map((v) => v.case_id));
  return c.pairs.every((p) => covered.has(p.case_id)) ? c.cases : caseViews(c.pairs);
}

function repetitionList(numbers: number[]): string {
  return numbers.join(', ');
}

/** "failed in 4 of 4 repetitions, invalid in 1 of 4 repetitions": every non-zero bad outcome. */
function outcomeCounts(f: CaseFinding, m: Messages): string {
  const total = f.pairs.length;
  const parts: string[] = [];
  const failed = f.pairs.filter((p) => p.status === 'failed').length;
  const invalid = f.pairs.filter((p) => p.status === 'invalid').length;
  // The noun agrees with the count: "failed in 4 of 4 repetitions", "invalid in 1 repetition of 1".
  if (failed > 0) parts.push(total === 1 ? m.case_failed_in_only : fill(m.case_failed_in, { n: failed, total }));
  if (invalid > 0) parts.push(total === 1 ? m.case_invalid_in_only : fill(m.case_invalid_in, { n: invalid, total }));
  return parts.join(', ');
}

/** The case's failed checks at their worst across repetitions, in `worst`'s order, each with its worst figure's result. */
function failedWorst(f: CaseFinding): { worst: CaseView['worst'][number]; check: CheckResult }[] {
  return f.view.worst.flatMap((worst) => {
    const check = f.pairs.find((p) => p.slot_id === worst.slot_id)?.checks.find((c) => c.name === worst.check);
    return check?.outcome === 'fail' ? [{ worst, check }] : [];
  });
}

/** The failed checks at their worst across repetitions, with the rule, the spread and the worst frame. */
function failedFigures(f: CaseFinding, m: Messages): Child[] {
  const out: Child[] = [];
  for (const { worst, check } of failedWorst(f)) {
    const parts: Child[] = [<span class="nowrap">{failedCheckText(check, m)}</span>];
    const spread = f.view.spread?.find((s) => s.check === worst.check);
    if (spread && spread.judged > 1 && spread.min !== null && spread.max !== null && spread.min !== spread.max) {
      const digits = checkDigits(worst.check);
      parts.push(' ', fill(m.case_spread, { min: num(spread.min, digits, m.unavailable), max: num(spread.max, digits, m.unavailable) }));
    }
    // The worst frame belongs to the charted SSIM series: it says where an SSIM check failed, nothing about audio.
    // A bit-identical repetition has no worst frame: it is left out, not read as frame 0.
    const frame = shownWorstFrame(f.view.worst_frame, f.pairs);
    if (frame && checkDeclaration(worst.check)?.chartsThreshold) {
      if (frame.same) parts.push(' ', fill(frame.by_repetition.length > 1 ? m.case_frame_each_time : m.case_frame_once, { frame: frame.frame ?? 0 }));
      else parts.push(' ', fill(m.case_frames, { frames: frame.by_repetition.map((r) => fill(m.case_frame_of, { frame: r.frame, repetition: r.repetition })).join(', ') }));
    }
    out.push(parts);
  }
  return joined(out, '; ');
}

/**
 * A clip reason as the pair's section says it, from the clip's own figures and named by its run's
 * GPU ("B200's clip: the audio jumps 256 ms at 0.512 s (sample 16384)"), in the page's language;
 * null when no repetition's clip carries the code.
 */
function clipWhy(f: CaseFinding, code: string, m: Messages): string | null {
  for (const pair of f.pairs) {
    if (!pair.clips) continue;
    const clips = pair.clips;
    const sides = (['baseline', 'candidate'] as const).filter((s) => clips[s]?.reasons.some((r) => r.code === code));
    if (sides.length === 0) continue;
    const gpu = (s: 'baseline' | 'candidate'): string => (s === 'baseline' ? f.c.baseline_gpu_model : f.c.candidate_gpu_model);
    return sides.flatMap((s) => { const clip = clips[s]; return clip ? [fill(m.clip_reason, { gpu: gpu(s), reason: clipSentence(code, clip, m) })] : []; }).join('; ');
  }
  return null;
}

/** Why the invalid repetitions are invalid: each code once, in words (a clip's defect from its own figures). */
function invalidWhy(f: CaseFinding, m: Messages): Child[] {
  const codes = f.view.reasons?.filter((r) => r.status === 'invalid').map((r) => r.code) ?? [...new Set(f.pairs.filter((p) => p.status === 'invalid').flatMap((p) => p.reasons))];
  return joined(
    codes.map((code) => {
      const detail = f.pairs.flatMap((p) => p.reason_details).find((d) => d.code === code);
      return [<code>{code}</code>, ' ', (code.startsWith('CLIP_') ? clipWhy(f, code, m) : null) ?? reasonText(code, detail?.message ?? null, m)];
    }),
    '; ',
  );
}

/**
 * The cause the measurement diagnoses in the failed repetitions (cause.tsx: a channel that went
 * silent, a temporal offset), as each pair's line says it: once with "each time" when every failed
 * repetition has the same, else each with the repetitions it was seen in. Empty when none.
 */
function failedCauses(f: CaseFinding, m: Messages): Child[] {
  const failed = f.pairs.filter((p) => p.status === 'failed');
  const byKey = new Map<string, { causes: Child[]; repetitions: number[] }>();
  for (const pair of failed) {
    const causes = pairCauses(pair, m);
    if (causes.length === 0) continue;
    const key = causeKey(pair);
    const entry = byKey.get(key) ?? { causes, repetitions: [] };
    entry.repetitions.push(pair.repetition);
    byKey.set(key, entry);
  }
  if (byKey.size === 0) return [];
  const out = [...byKey.values()].map(({ causes, repetitions }) => {
    const cause = joined(causes, '; ');
    if (repetitions.length === failed.length) return failed.length > 1 ? fillChildren(m.case_cause_each_time, { cause }) : cause;
    return fillChildren(m[countKey('case_cause_in', repetitions.length)], { cause, list: repetitionList(repetitions) });
  });
  return [<span class="cause"><strong>{m.cause_label}:</strong> {joined(out, '; ')}</span>];
}

/** What pairCauses reads of a pair, as a key: the same key, the same words. */
function causeKey(pair: PairReport): string {
  return JSON.stringify([pair.audio?.newly_silent_channels ?? [], pair.video?.temporal_offset?.frames ?? 0]);
}

/** The case's one line: what, where, how often, the worst figure and the rule, the frame, and whether the repetitions agree. */
function caseLine(f: CaseFinding, m: Messages): Child[] {
  const where = tx(m, 'case_on', { case: <span class="case">{visibleId(f.view.case_id)}</span>, gpu: <strong>{f.c.candidate_gpu_model}</strong> });
  const parts: Child[] = [outcomeCounts(f, m)];
  // The repetitions' diagnosed cause first, as each pair's own line leads with it; then the figures.
  parts.push(...failedCauses(f, m));
  const figures = failedFigures(f, m);
  if (figures.length) parts.push(figures);
  if (f.pairs.some((p) => p.status === 'invalid')) parts.push(invalidWhy(f, m));
  if (f.view.consistency === 'varies' && f.view.differing?.length) parts.push(fill(m[countKey('case_varies', f.view.differing.length)], { list: repetitionList(f.view.differing) }));
  // Beside the cross-hardware finding: whether the baseline's own repetitions are the same bytes (its own noise), and by how much they differ when measured.
  const own = ownRepetitionsText(f, m);
  if (own) parts.push(own);
  return [where, ': ', joined(parts, ', ')];
}

/** One judged figure of the baseline's own repetitions: the worst `w` names, as its repetition's check has it. */
function ownFigure(measured: OwnRepetitionsMeasured, w: CaseWorst, m: Messages): string | null {
  const check = measured.repetitions.find((r) => r.slot_id === w.slot_id)?.checks.find((c) => c.name === w.check);
  return check ? checkValueText(check, m) : null;
}

/**
 * "H200's own repetitions: bit-identical", or "…: differ", and when they were measured by how much:
 * the worst figure among them of each check this case failed on the candidate (else of the first
 * check judged), so the baseline's own spread stands beside the cross-hardware figure.
 */
function ownRepetitionsText(f: CaseFinding, m: Messages): string | null {
  const own = f.view.own_repetitions?.baseline;
  if (!own) return null;
  const gpu = f.c.baseline_gpu_model;
  if (own === 'identical') return fill(m.case_own_identical, { gpu });
  const measured = f.view.own_repetitions_measured;
  if (!measured) return fill(m.case_own_differ, { gpu });
  const failed = new Set(failedWorst(f).map((x) => x.worst.check));
  const picked = measured.worst.filter((w) => failed.has(w.check));
  const figures = (picked.length > 0 ? picked : measured.worst.slice(0, 1)).flatMap((w) => ownFigure(measured, w, m) ?? []);
  if (figures.length > 0) return fill(m.case_own_differ_by, { gpu, figures: figures.join(', ') });
  const codes = [...new Set(measured.repetitions.flatMap((r) => r.reasons.map((x) => x.code)))];
  return codes.length > 0 ? fill(m.case_own_not_measured, { gpu, codes: codes.join(', ') }) : fill(m.case_own_differ, { gpu });
}

/** Each of the baseline's own repetitions against its repetition 0, when measured: bit-identical, its judged figures, or why it could not be measured. */
function ownRepetitionsList(f: CaseFinding, m: Messages): VNode | null {
  const measured = f.view.own_repetitions_measured;
  // Bit-identical throughout: the case's line already says so.
  if (!measured || measured.repetitions.every((r) => r.status === 'identical')) return null;
  return (
    <>
      <p class="muted small">{fill(m.case_own_title, { gpu: f.c.baseline_gpu_model, against: measured.repetitions[0]!.against_repetition })}</p>
      <ul class="reps">
        {measured.repetitions.map((r) => (
          <li>
            {r.status === 'identical' ? null : [badge(r.status, m[`status_${r.status}`]), ' ']}
            {fill(m.case_repetition, { n: r.repetition })} <code class="muted">{visibleId(r.slot_id)}</code>{' '}
            <span class="why">
              {r.status === 'identical'
                ? m.case_own_bit_identical
                : r.status === 'invalid'
                  ? joined(
                      r.reasons.map((x) => [<code>{x.code}</code>, ' ', reasonText(x.code, x.message, m)]),
                      '; ',
                    )
                  : joined(
                      r.checks.filter((c) => c.outcome === 'pass' || c.outcome === 'fail').map((c) => checkValueText(c, m)),
                      ', ',
                    )}
            </span>
          </li>
        ))}
      </ul>
    </>
  );
}

/** The case's repetitions, each a link to its pair with the pair's own one-line outcome. */
function repetitions(f: CaseFinding, m: Messages): VNode {
  return (
    <ul class="reps">
      {f.pairs.map((pair) => (
        <li>
          <a href={`#${pairAnchor(f.ci, pair.slot_id)}`}>
            {badge(pair.status, m[`status_${pair.status}`])} {fill(m.case_repetition, { n: pair.repetition })} <code class="muted">{visibleId(pair.slot_id)}</code>
          </a>{' '}
          <span class="why">{pairHeadline(pair, m)}</span>
        </li>
      ))}
    </ul>
  );
}

function caseItem(f: CaseFinding, m: Messages): VNode {
  return (
    <li>
      <details class="case-line">
        <summary>
          {badge(f.status, m[`status_${f.status}`])} <span class="why">{caseLine(f, m)}</span>
        </summary>
        {repetitions(f, m)}
        {ownRepetitionsList(f, m)}
      </details>
    </li>
  );
}

/** A cause in words: a failed check by its short name, a reason code by its sentence. */
function causeText(code: string, m: Messages): Child {
  const check = CHECK_NAMES.find((name) => CHECKS[name].failCode === code);
  if (check) return fill(m.case_cause_check, { check: checkShort(m, check) });
  return reasonText(code, null, m);
}

/** Groups in order of their first case; each says how many cases it holds per candidate. */
function groups(findings: CaseFinding[], m: Messages, many: boolean): VNode[] {
  const byCause = new Map<string, CaseFinding[]>();
  for (const f of findings) byCause.set(f.cause, [...(byCause.get(f.cause) ?? []), f]);
  return [...byCause].map(([cause, list]) => {
    const perGpu = new Map<string, number>();
    for (const f of list) perGpu.set(f.c.candidate_gpu_model, (perGpu.get(f.c.candidate_gpu_model) ?? 0) + 1);
    const split = many ? [' (', [...perGpu].map(([gpu, n]) => `${gpu} ${n}`).join(' · '), ')'] : null;
    return (
      <details class="cause-group" open>
        <summary>
          {badge(list[0]!.status, m[`status_${list[0]!.status}`])} <code>{cause}</code> {causeText(cause, m)}: {fillCount(m, 'case_group', list.length)}
          {split}
        </summary>
        <ul class="problems">{list.map((f) => caseItem(f, m))}</ul>
      </details>
    );
  });
}

/** The top list: every failed or invalid case, flat up to `GROUP_ABOVE` lines, grouped by cause beyond. */
export function CaseFindings({ report, m }: { report: Report; m: Messages }): VNode | null {
  const findings = caseFindings(report);
  if (findings.length === 0) return null;
  const gpus = new Set(report.comparisons.map((c) => c.candidate_gpu_model));
  return (
    <div class="findings">
      <h2 class="h-small">{m.problems_title}</h2>
      <p class="muted small">{m.case_problems_intro}</p>
      {findings.length > GROUP_ABOVE ? groups(findings, m, gpus.size > 1) : <ul class="problems">{findings.map((f) => caseItem(f, m))}</ul>}
    </div>
  );
}
