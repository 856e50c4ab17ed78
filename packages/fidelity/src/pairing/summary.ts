/**
 * The per-comparison counts and the per-case view over repetitions.
 *
 * Reading of "repeated requests": each repetition is its own pair. A case is
 * failed if any repetition failed (a later pass never hides an earlier
 * failure), invalid only if every repetition is invalid, else passed. Its
 * `worst` list keeps, per check, the worst figure over the repetitions that
 * were measured, with the repetition it came from. The rest says how the
 * case repeats: outcome counts with their reasons, each judged figure's
 * spread, the worst frame per repetition, and whether every repetition had
 * the same outcome. Everything is derived from the pairs alone, in pair
 * order, so a merge of shards derives the same cases as one compare.
 */
import type { VideoMetrics } from '../schemas/measurement.js';
import type { CheckResult } from '../schemas/policy.js';
import type { CaseReason, CaseSpread, CaseView, CaseWorst, CaseWorstFrame, ComparisonSummary, PairReport, PairStatus } from '../schemas/report.js';

export function summarize(pairs: readonly Pick<PairReport, 'status'>[]): ComparisonSummary {
  const passed = pairs.filter((p) => p.status === 'passed').length;
  const failed = pairs.filter((p) => p.status === 'failed').length;
  const invalid = pairs.filter((p) => p.status === 'invalid').length;
  return { planned: pairs.length, valid_pairs: passed + failed, passed, failed, invalid };
}

/**
 * Orders two results of one check: positive when `a` is worse. A failure is
 * worse than a pass; then the figure further on the wrong side of the
 * threshold. A null figure is infinitely good when passing (identical PSNR)
 * and infinitely bad when failing (silent baseline).
 */
function worse(a: CheckResult, b: CheckResult): number {
  const fa = a.outcome === 'fail' ? 1 : 0;
  const fb = b.outcome === 'fail' ? 1 : 0;
  if (fa !== fb) return fa - fb;
  const score = (c: CheckResult): number => {
    if (c.value === null) return c.outcome === 'fail' ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
    return c.comparator === '>=' ? -c.value : c.value;
  };
  const sa = score(a);
  const sb = score(b);
  return sa === sb ? 0 : sa > sb ? 1 : -1;
}

function caseStatus(statuses: PairStatus[]): PairStatus {
  if (statuses.includes('failed')) return 'failed';
  if (statuses.every((s) => s === 'invalid')) return 'invalid';
  return 'passed';
}

export function caseViews(pairs: readonly PairReport[]): CaseView[] {
  const groups = new Map<string, PairReport[]>();
  for (const pair of pairs) {
    const list = groups.get(pair.case_id) ?? [];
    list.push(pair);
    groups.set(pair.case_id, list);
  }
  const views: CaseView[] = [];
  for (const [caseId, list] of groups) {
    const names = [...new Set(list.flatMap((p) => p.checks.map((c) => c.name)))];
    const worst = worstChecks(list);
    const first = list[0]!;
    const count = (s: PairStatus): number => list.filter((p) => p.status === s).length;
    views.push({
      case_id: caseId,
      seed: first.seed,
      status: caseStatus(list.map((p) => p.status)),
      repetitions: list.length,
      worst,
      passed: count('passed'),
      failed: count('failed'),
      invalid: count('invalid'),
      reasons: caseReasons(list),
      spread: names.flatMap((name) => spreadOf(name, list)),
      worst_frame: worstFrame(list),
      ...consistencyOf(list),
      own_repetitions: { baseline: sameBytes(list.map((p) => p.baseline_media)), candidate: sameBytes(list.map((p) => p.candidate_media)) },
    });
  }
  return views;
}

/**
 * Per check judged (pass or fail) in at least one of `list`, in order of first appearance, the worst
 * result with the repetition and slot it came from: a case's `worst`, and the worst of the baseline's
 * own repetitions measured against each other.
 */
export function worstChecks(list: readonly { checks: readonly CheckResult[]; repetition: number; slot_id: string }[]): CaseWorst[] {
  const worst: CaseWorst[] = [];
  for (const name of new Set(list.flatMap((p) => p.checks.map((c) => c.name)))) {
    let pick: { check: CheckResult; repetition: number; slot_id: string } | undefined;
    for (const item of list) {
      const check = item.checks.find((c) => c.name === name);
      if (!check || (check.outcome !== 'pass' && check.outcome !== 'fail')) continue;
      // Strictly worse only, so ties keep the earliest repetition.
      if (!pick || worse(check, pick.check) > 0) pick = { check, repetition: item.repetition, slot_id: item.slot_id };
    }
    if (pick) worst.push({ check: name, value: pick.check.value, repetition: pick.repetition, slot_id: pick.slot_id });
  }
  return worst;
}

/** Every reason code of the failed and invalid repetitions: failed first, then by first appearance (a pair lists its root cause first). */
function caseReasons(list: readonly PairReport[]): CaseReason[] {
  const out: CaseReason[] = [];
  for (const status of ['failed', 'invalid'] as const) {
    for (const pair of list) {
      if (pair.status !== status) continue;
      for (const code of pair.reasons) {
        const known = out.find((r) => r.code === code && r.status === status);
        if (!known) out.push({ code, status, repetitions: [pair.repetition] });
        else if (!known.repetitions.includes(pair.repetition)) known.repetitions.push(pair.repetition);
      }
    }
  }
  return out;
}

/** One check's figures over the repetitions that judged it (pass or fail); none when no repetition did. */
function spreadOf(name: string, list: readonly PairReport[]): CaseSpread[] {
  const judged = list.flatMap((p) => p.checks.filter((c) => c.name === name && (c.outcome === 'pass' || c.outcome === 'fail')));
  if (judged.length === 0) return [];
  const values = judged.flatMap((c) => (c.value === null ? [] : [c.value]));
  return [{ check: name, judged: judged.length, min: values.length ? Math.min(...values) : null, max: values.length ? Math.max(...values) : null, nulls: judged.length - values.length }];
}

/**
 * The worst frame of the SSIM series the pages chart: the same order as `chartedSeries` (bundle/video-series.ts,
 * a layer above this room): the Gaussian SSIM, else FFmpeg's All, else the 7x7 RGB SSIM.
 */
function ssimWorstFrame(video: VideoMetrics): number | null {
  return (video.ssim ?? video.ssim_ffmpeg?.all ?? video.ssim_rgb7)?.worst_frame ?? null;
}

/** The worst frame of each repetition that was measured; null when none was. */
function worstFrame(list: readonly PairReport[]): CaseWorstFrame | null {
  const byRepetition = list.flatMap((p) => {
    const frame = p.status === 'invalid' || p.video === null ? null : ssimWorstFrame(p.video);
    return frame === null ? [] : [{ repetition: p.repetition, frame }];
  });
  if (byRepetition.length === 0) return null;
  const same = byRepetition.every((r) => r.frame === byRepetition[0]!.frame);
  return { same, frame: same ? byRepetition[0]!.frame : null, by_repetition: byRepetition };
}

/**
 * A case's worst frame as the texts say it (the pages' case line, the job summary, JUnit): without the
 * repetitions whose video is bit-identical, where every frame ties and none is worst (the series
 * name the first, frame 0, as a tie's index); null when no other repetition has one. `pairs` are
 * the case's pairs, which say which repetitions are identical.
 */
export function shownWorstFrame(frame: CaseWorstFrame | null | undefined, pairs: readonly Pick<PairReport, 'repetition' | 'video'>[]): CaseWorstFrame | null {
  if (!frame) return null;
  const identical = new Set(pairs.filter((p) => p.video?.identical === true).map((p) => p.repetition));
  const byRepetition = frame.by_repetition.filter((r) => !identical.has(r.repetition));
  if (byRepetition.length === 0) return null;
  const same = byRepetition.every((r) => r.frame === byRepetition[0]!.frame);
  return { same, frame: same ? byRepetition[0]!.frame : null, by_repetition: byRepetition };
}

// A tie for the most common outcome goes to the worse one, as the case's status does.
const TIE_ORDER: readonly PairStatus[] = ['failed', 'invalid', 'passed'];

/** `consistent` when every repetition has one outcome; else `varies` with the repetitions off the most common outcome. */
function consistencyOf(list: readonly PairReport[]): Pick<CaseView, 'consistency' | 'differing'> {
  const counts = TIE_ORDER.map((s) => list.filter((p) => p.status === s).length);
  const common = TIE_ORDER[counts.indexOf(Math.max(...counts))]!;
  const differing = list.filter((p) => p.status !== common).map((p) => p.repetition);
  return { consistency: differing.length === 0 ? 'consistent' : 'varies', differing };
}

/** One run's repetitions of a case by their bundle media paths (`media/<sha256>.mp4`: equal paths, equal bytes). */
function sameBytes(media: readonly (string | null)[]): 'identical' | 'differ' | null {
  const present = media.filter((m): m is string => m !== null);
  if (present.length < 2) return null;
  return present.every((m) => m === present[0]) ? 'identical' : 'differ';
}
