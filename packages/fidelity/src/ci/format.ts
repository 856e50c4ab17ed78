/** Numbers as the CI reports show them, shared by the JUnit file and the job summary. */
import { nullFigureText } from '../policy/checks.js';
import { byClipOrder } from '../schemas/clip.js';
import { shownWorstFrame } from '../pairing/summary.js';
import type { CaseView, PairReport } from '../schemas/report.js';
import { byCount, counted } from '../words.js';

/** A check's judged figure: `∞` for a null that means infinite (PSNR of identical frames, nullFigureText), else {@link figure}. */
export function checkFigure(name: string, value: number | null, threshold?: number): string {
  return value === null ? nullFigureText(name, 'null') : figure(value, threshold);
}

/**
 * Six significant digits, or every digit when six would make a value look equal to its threshold
 * (0.9199999 is never shown as 0.92 next to ">= 0.92"); null is `null`.
 */
export function figure(value: number | null, threshold?: number): string {
  if (value === null) return 'null';
  const short = String(Number(value.toPrecision(6)));
  return threshold !== undefined && Number(short) === threshold && value !== threshold ? String(value) : short;
}

/** "<check> 0.85 not >= 0.92", "<check> null (baseline_silent) not <= 0.1": the name, the value, its note and the rule. */
export function failedCheckText(k: { name: string; value: number | null; comparator: string; threshold: number; note: string | null }): string {
  return `${k.name} ${checkFigure(k.name, k.value, k.threshold)}${k.note ? ` (${k.note})` : ''} not ${k.comparator} ${k.threshold}`;
}

/** "H200 run 30054883436-1". */
export function runLabel(gpu: string, id: number, attempt: number): string {
  return `${gpu} run ${id}-${attempt}`;
}

/**
 * "10 of 10 valid", "5 of 7 valid; <code> 1, <code> 1; invalid: <slot> <code>, <slot> <code>": a
 * run's clips checked on their own (`runs[].clips`, docs/metrics.md "Clip validity"), the invalid
 * ones by reason code in the order report.json lists them (the clip codes' own order, root cause
 * first, then the others by name), then each invalid clip by its slot and first code where the
 * report names them (version 1.4). The one text of these counts in the terminal, JUnit and the job summary.
 *
 * @example clipsText(report.runs[1].clips) // "7 of 9 valid; MEDIA_PLAN_MISMATCH 2; invalid: measurement-r000-c007 MEDIA_PLAN_MISMATCH, measurement-r000-c008 MEDIA_PLAN_MISMATCH"
 */
export function clipsText(clips: { analysed: number; valid: number; invalid_by_code: Record<string, number>; invalid?: readonly { slot_id: string; code: string }[] | undefined }): string {
  // Ordered again, not trusted as given: the report may be one this tool did not write.
  const by = Object.entries(byClipOrder(clips.invalid_by_code)).map(([code, n]) => `${code} ${n}`).join(', ');
  const named = (clips.invalid ?? []).map((c) => `${c.slot_id} ${c.code}`).join(', ');
  return `${clips.valid} of ${clips.analysed} valid${by ? `; ${by}` : ''}${named ? `; invalid: ${named}` : ''}`;
}


/** "repetition 2 differs", "repetitions 1, 3 differ": the repetitions whose outcome differs from the others'. */
function differingText(list: readonly number[]): string {
  return `${byCount(list.length, 'repetition', 'repetitions')} ${list.join(', ')} ${byCount(list.length, 'differs', 'differ')}`;
}

/**
 * One case across its repetitions (`comparisons[].cases[]`, docs/report.md "Repeated requests"):
 * "passed 0, failed 4, invalid 0 of 4 repetitions; consistent; CHECK_FAILED_MIN_SSIM in 0, 1, 2, 3;
 * <figure> 0.437 to 0.452; worst frame 12 in every repetition; baseline's own repetitions identical" (or "…
 * differ: <figure> 0.991, …" when they were measured). A report before version 1.3 gives its status and
 * repetitions only. `pairs` (the comparison's) say which repetitions are bit-identical: those have no
 * worst frame and are left out of it.
 */
export function caseText(v: CaseView, pairs: readonly Pick<PairReport, 'case_id' | 'repetition' | 'video'>[] = []): string {
  if (v.passed === undefined || v.failed === undefined || v.invalid === undefined) return `${v.status}, ${counted(v.repetitions, 'repetition')}`;
  const parts = [`passed ${v.passed}, failed ${v.failed}, invalid ${v.invalid} of ${counted(v.repetitions, 'repetition')}`];
  if (v.consistency) parts.push(v.consistency === 'varies' ? `varies: ${differingText(v.differing ?? [])}` : 'consistent');
  for (const r of v.reasons ?? []) parts.push(`${r.code} in ${r.repetitions.join(', ')}`);
  // A null figure as every output writes it: ∞ for PSNR of identical frames (nullFigureText), else null.
  for (const s of v.spread ?? []) {
    const none = nullFigureText(s.check, 'null');
    parts.push(`${s.check} ${s.min === null ? none : figure(s.min)}${s.max !== s.min && s.max !== null ? ` to ${figure(s.max)}` : ''}${s.nulls ? ` (${s.nulls} ${none})` : ''}`);
  }
  // Without the bit-identical repetitions (`pairs`, the comparison's): they have no worst frame.
  const frame = shownWorstFrame(v.worst_frame, pairs.filter((p) => p.case_id === v.case_id));
  if (frame) parts.push(frame.same ? `worst frame ${frame.frame} in every measured repetition` : `worst frames ${frame.by_repetition.map((r) => `${r.frame} (repetition ${r.repetition})`).join(', ')}`);
  if (v.own_repetitions?.baseline) parts.push(`baseline's own repetitions ${v.own_repetitions.baseline}${ownMeasuredText(v)}`);
  return parts.join('; ');
}

/**
 * ": <figure> 0.991, <figure> 44.2, …": the worst figure of each check across the baseline's own
 * repetitions measured against its repetition 0 (`own_repetitions_measured`), or ", not measured
 * (<codes>)" when none could be; nothing when they were not measured (no `repeatability`) or are
 * bit-identical.
 */
function ownMeasuredText(v: CaseView): string {
  const measured = v.own_repetitions_measured;
  if (!measured || v.own_repetitions?.baseline !== 'differ') return '';
  if (measured.worst.length > 0) {
    return `: ${measured.worst
      .map((w) => {
        const note = measured.repetitions.find((r) => r.slot_id === w.slot_id)?.checks.find((c) => c.name === w.check)?.note;
        return `${w.check} ${figure(w.value)}${w.value === null && note ? ` (${note})` : ''}`;
      })
      .join(', ')}`;
  }
  const codes = [...new Set(measured.repetitions.flatMap((r) => r.reasons.map((x) => x.code)))];
  return codes.length > 0 ? `, not measured (${codes.join(', ')})` : '';
}
