/**
 * report.json, schema_version 1 (cli-and-report.md). The paths that spec
 * names are the stable surface; the rest is ours and may grow. The bundle
 * ships a JSON Schema generated from this file.
 */
import { z } from 'zod';
import { AudioMetrics, VideoMetrics } from './measurement.js';
import { CheckResult, Policy } from './policy.js';

export const PairStatus = z.enum(['passed', 'failed', 'invalid']);
export type PairStatus = z.infer<typeof PairStatus>;

export const Reason = z.object({ code: z.string(), message: z.string(), side: z.enum(['baseline', 'candidate', 'both']).nullable() });
export type Reason = z.infer<typeof Reason>;

export const PairReport = z.object({
  slot_id: z.string(),
  case_id: z.string(),
  prompt: z.string(),
  seed: z.number().int(),
  repetition: z.number().int(),
  status: PairStatus,
  /** Reason codes (empty for a valid pair). */
  reasons: z.array(z.string()),
  reason_details: z.array(Reason),
  /** Bundle-relative paths (media/<sha256>.mp4), null when that side has no media. */
  baseline_media: z.string().nullable(),
  candidate_media: z.string().nullable(),
  baseline_status: z.enum(['ok', 'failed']),
  candidate_status: z.enum(['ok', 'failed']),
  baseline_error: z.string().nullable(),
  candidate_error: z.string().nullable(),
  video: VideoMetrics.nullable(),
  audio: AudioMetrics.nullable(),
  checks: z.array(CheckResult),
  /** Bundle-relative extras made for this pair (per-frame CSV, stills, heat map, difference WAV). */
  files: z.record(z.string(), z.string()),
});
export type PairReport = z.infer<typeof PairReport>;

export const ComparisonSummary = z.object({
  planned: z.number().int(),
  valid_pairs: z.number().int(),
  passed: z.number().int(),
  failed: z.number().int(),
  invalid: z.number().int(),
});
export type ComparisonSummary = z.infer<typeof ComparisonSummary>;

/** Plans with repetitions > 1: the worst figure across repetitions per case, and a case fails if any repetition failed. */
export const CaseView = z.object({
  case_id: z.string(),
  seed: z.number().int(),
  status: PairStatus,
  repetitions: z.number().int(),
  worst: z.array(z.object({ check: z.string(), value: z.number().nullable(), repetition: z.number().int(), slot_id: z.string() })),
});
export type CaseView = z.infer<typeof CaseView>;

export const Comparison = z.object({
  baseline_run_id: z.number().int(),
  baseline_run_attempt: z.number().int(),
  candidate_run_id: z.number().int(),
  candidate_run_attempt: z.number().int(),
  baseline_gpu_model: z.string(),
  candidate_gpu_model: z.string(),
  summary: ComparisonSummary,
  pairs: z.array(PairReport),
  cases: z.array(CaseView),
  /** Bundle-relative extras for the whole comparison (e.g. `frames_csv`: every measured frame of every pair). */
  files: z.record(z.string(), z.string()).optional(),
});
export type Comparison = z.infer<typeof Comparison>;

export const PowerReport = z.object({
  power_valid: z.boolean(),
  reasons: z.array(z.string()),
  expected_gpu_count: z.number().int(),
  observed_gpu_count: z.number().int(),
  total_gpu_energy_j: z.number().optional(),
  avg_total_gpu_power_w: z.number().optional(),
  joules_per_valid_clip: z.number().optional(),
}).catchall(z.unknown());
export type PowerReport = z.infer<typeof PowerReport>;

export const RunReport = z.object({
  role: z.enum(['baseline', 'candidate']),
  run_id: z.number().int(),
  run_attempt: z.number().int(),
  head_sha: z.string(),
  server_url: z.string(),
  repository: z.string(),
  workflow: z.string(),
  job: z.string(),
  artifact: z.object({ id: z.number().int(), name: z.string() }),
  hardware: z.object({ gpu_model: z.string(), gpus_allocated: z.number().int(), gpus_participating: z.number().int() }),
  runtime: z.record(z.string(), z.unknown()).nullable(),
  plan_id: z.string(),
  plan_sha256: z.string(),
  /** The archive's file name only (never a machine path) and its kind. */
  source: z.object({ name: z.string(), kind: z.enum(['directory', 'zip', 'tar.gz']) }),
  digest: z.object({ checked: z.boolean(), archive_sha256: z.string().nullable(), expected: z.string().nullable() }),
  links: z.object({ run: z.string(), artifact: z.string() }),
  /** Bundle-relative folder with ci.json, plan.json, run.json, original-SHA256SUMS. */
  sources_dir: z.string(),
  slots: z.object({ warmup: z.number().int(), measurement: z.number().int(), ok: z.number().int(), failed: z.number().int() }),
  power: PowerReport.nullable(),
  /** Codes of the warnings verification raised (the run was still valid), sorted. */
  warnings: z.array(z.string()).optional(),
  /** Server timing and GPU accounting (issue 6); free-form until that lands. */
  timing: z.unknown().optional(),
  accounting: z.unknown().optional(),
});
export type RunReport = z.infer<typeof RunReport>;

export const Report = z.object({
  schema_version: z.literal(1),
  /** The only field allowed to differ between two runs on the same inputs. */
  generated_at: z.string(),
  tool: z.object({ name: z.literal('fidelity'), version: z.string() }),
  decoder: z.object({
    ffmpeg_version: z.string(),
    sha256: z.string(),
    source: z.string(),
    ffprobe_version: z.string(),
    ffprobe_sha256: z.string(),
  }),
  policy: Policy,
  /** Said plainly, in every report: the example thresholds are not a verdict. */
  disclaimer: z.string(),
  runs: z.array(RunReport),
  comparisons: z.array(Comparison),
});
export type Report = z.infer<typeof Report>;
