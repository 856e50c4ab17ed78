/**
 * The run archive's JSON files (docs/run-archive.md, version 1) as zod schemas.
 * These schemas are the types: everything else uses z.infer of them.
 * Shape rules live here; cross-file rules (ids equal, plan hash, slot order)
 * live in archive/verify.ts, where every problem can be collected.
 */
import { z } from 'zod';
import { ServerUrl } from './server-url.js';

export const Sha40 = z.string().regex(/^[0-9a-f]{40}$/i, 'expected 40 hex digits');
export const Sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 lowercase hex digits');
const PositiveInt = z.number().int().positive();
const NonEmpty = z.string().min(1);

/** ci.json: who produced a run (docs/run-archive.md, "ci.json"); the shape rules, the cross-file ones are checked by verifyRun. */
export const CiJson = z.object({
  schema_version: z.literal(1),
  server_url: ServerUrl,
  repository: z.string().regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, 'expected owner/name'),
  workflow: NonEmpty,
  job: NonEmpty,
  run_id: PositiveInt,
  run_attempt: z.number().int().min(1),
  head_sha: Sha40,
  artifact: z.object({ id: PositiveInt, name: NonEmpty }),
  hardware: z.object({
    gpu_model: NonEmpty,
    gpus_allocated: PositiveInt,
    gpus_participating: PositiveInt,
  }),
  runtime: z.record(z.string(), z.unknown()).optional(),
});
export type CiJson = z.infer<typeof CiJson>;

/** One case of a plan: its id, prompt and seed. */
export const PlanCase = z.object({
  case_id: NonEmpty,
  prompt: z.string(),
  seed: z.number().int(),
});
export type PlanCase = z.infer<typeof PlanCase>;

/** plan.json: the frozen workload (docs/run-archive.md, "plan.json"). */
export const PlanJson = z.object({
  plan_id: NonEmpty,
  model: z.object({ id: NonEmpty, revision: NonEmpty }),
  video: z.object({ width: PositiveInt, height: PositiveInt, fps: z.number().positive(), frames: PositiveInt }),
  audio: z.object({ sample_rate: PositiveInt, channels: PositiveInt }),
  warmup_runs: z.number().int().min(0),
  repetitions: PositiveInt,
  cases: z.array(PlanCase).min(1),
});
export type PlanJson = z.infer<typeof PlanJson>;

/** A time window in Unix seconds (fractions allowed). */
export const Window = z.object({ start_unix: z.number(), end_unix: z.number() });
export type Window = z.infer<typeof Window>;

/** A record's server-side stamps: one clock id and five nanosecond stamps along the pipeline. */
export const ServerTiming = z.object({
  clock_id: NonEmpty,
  http_received_ns: z.number(),
  http_accepted_ns: z.number(),
  scheduler_dispatch_ns: z.number(),
  forward_finished_ns: z.number(),
  media_ready_ns: z.number(),
});
export type ServerTiming = z.infer<typeof ServerTiming>;

/** One record of run.json: one planned slot, ok with its media or failed with its error. */
export const RunRecord = z.object({
  slot_id: NonEmpty,
  kind: z.enum(['warmup', 'measurement']),
  case_id: NonEmpty,
  prompt: z.string(),
  seed: z.number().int(),
  repetition: z.number().int().min(0),
  status: z.enum(['ok', 'failed']),
  error: z.string().nullish(),
  media: z.string().nullable(),
  latency_s: z.number().nonnegative().nullable(),
  window: Window.nullish(),
  server_timing: ServerTiming.nullish(),
});
export type RunRecord = z.infer<typeof RunRecord>;

/** run.json: one record per planned slot (docs/run-archive.md, "run.json"). */
export const RunJson = z.object({
  run_id: PositiveInt,
  run_attempt: z.number().int().min(1),
  plan_sha256: Sha256Hex,
  expected_gpu_count: PositiveInt,
  measurement_window: Window.nullish(),
  records: z.array(RunRecord),
});
export type RunJson = z.infer<typeof RunJson>;

/** measurement-r{rep:03d}-c{case:03d}: the only slot ids a measurement may have. */
export function measurementSlotId(repetition: number, caseIndex: number): string {
  return `measurement-r${String(repetition).padStart(3, '0')}-c${String(caseIndex).padStart(3, '0')}`;
}

export const WARMUP_SLOT = /^warmup-\d{3}$/;
