/**
 * The check of MeasureOptions.plan and PoolOptions.plan against plan.json's schema, apart from the
 * other pair options (pair-options.ts): the schema module (schemas/run-archive.ts, every field of
 * ci.json, plan.json and run.json) is loaded by the thread that checks, the caller's, and never by
 * a pool's worker threads, whose pool checked the plan before handing it to them.
 */
import { invalidParameter } from '../errors.js';
import { PlanJson } from '../schemas/run-archive.js';

/** The part of plan.json MeasureOptions.plan takes. */
const MediaPlanSpecSchema = PlanJson.pick({ video: true, audio: true, max_av_start_skew_seconds: true, max_av_end_skew_seconds: true });

/** MeasureOptions.plan and PoolOptions.plan: absent, or plan.json's `video` and `audio` as its schema has them. */
export function checkPlanSpec(plan: unknown): void {
  if (plan !== undefined && !MediaPlanSpecSchema.safeParse(plan).success) {
    throw invalidParameter('options.plan', 'plan.json\'s { video: { width, height, fps, frames }, audio: { sample_rate, channels } }', plan);
  }
}
