/**
 * The per-comparison counts and the per-case view over repetitions.
 *
 * Reading of "repeated requests": each repetition is its own pair. A case is
 * failed if any repetition failed (a later pass never hides an earlier
 * failure), invalid only if every repetition is invalid, else passed. Its
 * `worst` list keeps, per check, the worst figure over the repetitions that
 * were measured, with the repetition it came from.
 */
import type { CheckResult } from '../schemas/policy.js';
import type { CaseView, ComparisonSummary, PairReport, PairStatus } from '../schemas/report.js';

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
    const worst: CaseView['worst'] = [];
    const names = [...new Set(list.flatMap((p) => p.checks.map((c) => c.name)))];
    for (const name of names) {
      let pick: { check: CheckResult; pair: PairReport } | undefined;
      for (const pair of list) {
        const check = pair.checks.find((c) => c.name === name);
        if (!check || (check.outcome !== 'pass' && check.outcome !== 'fail')) continue;
        // Strictly worse only, so ties keep the earliest repetition.
        if (!pick || worse(check, pick.check) > 0) pick = { check, pair };
      }
      if (pick) worst.push({ check: name, value: pick.check.value, repetition: pick.pair.repetition, slot_id: pick.pair.slot_id });
    }
    const first = list[0]!;
    views.push({ case_id: caseId, seed: first.seed, status: caseStatus(list.map((p) => p.status)), repetitions: list.length, worst });
  }
  return views;
}
