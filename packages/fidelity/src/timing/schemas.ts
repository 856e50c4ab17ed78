/**
 * Server timing as report.json carries it (`runs[].timing`). Every duration
 * is null when unavailable, with the record's reason; pages print
 * "unavailable" for null, never 0.
 */
import { z } from 'zod';
import type { ServerTiming } from '../schemas/run-archive.js';

type Stamp = Exclude<keyof ServerTiming, 'clock_id'>;

/** Each derived duration and the two stamps it spans, in stage order. */
export const TIMING_STAGES = [
  { name: 'prequeue_ms', from: 'http_received_ns', to: 'http_accepted_ns' },
  { name: 'queue_delay_ms', from: 'http_accepted_ns', to: 'scheduler_dispatch_ns' },
  { name: 'execution_ms', from: 'scheduler_dispatch_ns', to: 'forward_finished_ns' },
  { name: 'postprocess_ms', from: 'forward_finished_ns', to: 'media_ready_ns' },
  { name: 'server_ready_ms', from: 'http_received_ns', to: 'media_ready_ns' },
] as const satisfies readonly { name: string; from: Stamp; to: Stamp }[];

export type TimingStage = (typeof TIMING_STAGES)[number]['name'];

/** The stamps in the order they must not decrease. */
export const STAMP_ORDER = ['http_received_ns', 'http_accepted_ns', 'scheduler_dispatch_ns', 'forward_finished_ns', 'media_ready_ns'] as const satisfies readonly Stamp[];

const Ms = z.number().nullable();

/** The derived stage durations of one record, in milliseconds. */
export const RecordTiming = z.object({
  slot_id: z.string(),
  kind: z.enum(['warmup', 'measurement']),
  status: z.enum(['ok', 'failed']),
  available: z.boolean(),
  /** TimingReasons code when unavailable, else null. */
  reason: z.string().nullable(),
  clock_id: z.string().nullable(),
  prequeue_ms: Ms,
  queue_delay_ms: Ms,
  execution_ms: Ms,
  postprocess_ms: Ms,
  server_ready_ms: Ms,
});
export type RecordTiming = z.infer<typeof RecordTiming>;

/** Percentiles interpolate linearly between closest ranks (numpy's default). */
export const StageSummary = z.object({
  n: z.number().int(),
  min: z.number(),
  median: z.number(),
  p90: z.number(),
  max: z.number(),
  mean: z.number(),
});
export type StageSummary = z.infer<typeof StageSummary>;

/** The server-timing figures of one run (`runs[].timing` in the report). */
export const ServerTimingReport = z.object({
  /** True when at least one ok measurement record has figures. */
  available: z.boolean(),
  /** The run's one clock id; null when no record has timing or the ids disagree. */
  clock_id: z.string().nullable(),
  /** Every distinct clock id seen, sorted (more than one means TIMING_CLOCK_MISMATCH). */
  clock_ids: z.array(z.string()),
  /** Codes that left an ok measurement record without figures, plus TIMING_CLOCK_MISMATCH; catalogue order. */
  reasons: z.array(z.string()),
  /** What the summary is over. */
  summary_basis: z.literal('ok measurement records'),
  summary: z.object({
    records: z.number().int(),
    available: z.number().int(),
    prequeue_ms: StageSummary.nullable(),
    queue_delay_ms: StageSummary.nullable(),
    execution_ms: StageSummary.nullable(),
    postprocess_ms: StageSummary.nullable(),
    server_ready_ms: StageSummary.nullable(),
  }),
  /** Every record, in run.json order. */
  records: z.array(RecordTiming),
});
export type ServerTimingReport = z.infer<typeof ServerTimingReport>;

/** Latency across hardware, side by side; descriptive only, so there is no outcome field to misread. */
export const TimingSideBySide = z.object({
  descriptive: z.literal(true),
  runs: z.array(z.object({ run_id: z.number().int(), run_attempt: z.number().int(), gpu_model: z.string(), available: z.boolean(), reasons: z.array(z.string()) })),
  stages: z.array(
    z.object({
      stage: z.string(),
      /** One entry per run, in the runs order; null figures are unavailable. */
      values: z.array(z.object({ n: z.number().int(), median_ms: z.number().nullable(), p90_ms: z.number().nullable() })),
    }),
  ),
});
export type TimingSideBySide = z.infer<typeof TimingSideBySide>;
