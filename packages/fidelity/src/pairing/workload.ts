/**
 * Two runs are comparable only when they ran the same workload
 * (docs/run-archive.md, "plan.json"): same plan_id, model id and revision, media
 * specs, repetitions and case list (ids, prompts, seeds, order). Every
 * differing field is named, so one refusal says all that differs.
 *
 * `repetitions` is part of the workload: with different counts the two runs do not plan the same slots, so
 * "planned" would have no single meaning. `warmup_runs` is not: warmups are
 * never compared.
 */
import type { Problem } from '../errors.js';
import type { PlanJson } from '../schemas/run-archive.js';

/** One field in which two plans differ, with both values. */
export interface WorkloadDifference {
  /** A JSON path into plan.json, e.g. `cases[3].seed`, `video.fps`. */
  field: string;
  baseline: unknown;
  candidate: unknown;
}

const SCALAR_FIELDS = [
  'plan_id',
  'model.id',
  'model.revision',
  'video.width',
  'video.height',
  'video.fps',
  'video.frames',
  'audio.sample_rate',
  'audio.channels',
  // The clip expectations (version 1.2): both runs' clips are judged by one plan, so they are the workload's.
  'video.requires_motion',
  'video.max_frozen_fraction',
  'video.max_blank_fraction',
  'video.duration_seconds',
  'video.duration_tolerance_seconds',
  'audio.requires_sound',
  'max_av_start_skew_seconds',
  'max_av_end_skew_seconds',
  'repetitions',
] as const;

function at(plan: PlanJson, dotted: string): unknown {
  return dotted.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], plan);
}

/**
 * Every field in which two plans are not the same workload (docs/run-archive.md, "plan.json"): plan
 * id, model, media specs, repetitions and the case list. Empty when the runs are comparable.
 */
export function workloadDifferences(baseline: PlanJson, candidate: PlanJson): WorkloadDifference[] {
  const out: WorkloadDifference[] = [];
  for (const field of SCALAR_FIELDS) {
    const a = at(baseline, field);
    const b = at(candidate, field);
    if (a !== b) out.push({ field, baseline: a, candidate: b });
  }
  const n = Math.max(baseline.cases.length, candidate.cases.length);
  if (baseline.cases.length !== candidate.cases.length) {
    out.push({ field: 'cases.length', baseline: baseline.cases.length, candidate: candidate.cases.length });
  }
  for (let i = 0; i < n; i++) {
    const a = baseline.cases[i];
    const b = candidate.cases[i];
    if (!a || !b) {
      out.push({ field: `cases[${i}]`, baseline: a?.case_id ?? null, candidate: b?.case_id ?? null });
      continue;
    }
    for (const key of ['case_id', 'prompt', 'seed'] as const) {
      if (a[key] !== b[key]) out.push({ field: `cases[${i}].${key}`, baseline: a[key], candidate: b[key] });
    }
  }
  return out;
}

function show(value: unknown): string {
  const text = value === undefined ? 'absent' : JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** One PLAN_MISMATCH problem per differing field; `label` names the candidate. */
export function workloadProblems(baseline: PlanJson, candidate: PlanJson, label: string): Problem[] {
  return workloadDifferences(baseline, candidate).map((d) => ({
    code: 'PLAN_MISMATCH',
    message: `${label}: ${d.field} differs from the baseline (baseline ${show(d.baseline)}, candidate ${show(d.candidate)})`,
    where: { file: `${label}/plan.json`, path: d.field },
  }));
}
