/**
 * report.json, schema_version 1. The paths docs/report.md lists under "The
 * stable surface" are what other tools may rely on; the rest may grow. The bundle
 * ships a JSON Schema generated from this file.
 */
import { z } from 'zod';
import { GpuAccounting } from '../power/accounting.js';
import { GpuPowerAudit, PowerSummary } from '../power/schemas.js';
import { ServerTimingReport, TimingSideBySide } from '../timing/schemas.js';
import { MetricSelection } from '../metrics/names.js';
import { AudioMetrics, InferencexFigures, PlanMismatch, VideoMetrics } from './measurement.js';
import { ClipAnalysis } from './clip.js';

/** `pairs[].clips`: each side's analysis, where its clip was analysed (both sides for a measured pair). */
export const ReportPairClips = z.object({ baseline: ClipAnalysis.optional(), candidate: ClipAnalysis.optional() });
export type ReportPairClips = z.infer<typeof ReportPairClips>;
import { CheckResult, Policy } from './policy.js';
import { Window } from './run-archive.js';
import { ComparisonNoise, PairNoise } from '../calibrate/schema.js';

export const PairStatus = z.enum(['passed', 'failed', 'invalid']);
export type PairStatus = z.infer<typeof PairStatus>;

/**
 * Why a pair is invalid: a reason code, its detail, and the side it is about (null for a difference between the two).
 * `MEDIA_PLAN_MISMATCH` adds `plan_mismatches`: every field where a side's media differ from the plan, with both values.
 */
export const Reason = z.object({
  code: z.string(),
  message: z.string(),
  side: z.enum(['baseline', 'candidate', 'both']).nullable(),
  plan_mismatches: z.array(PlanMismatch).optional(),
});
export type Reason = z.infer<typeof Reason>;

/** `runs[].plan_spec`: the plan's media spec, as plan.json states it. */
export const PlanSpec = z.object({
  video: z.object({ width: z.number().int(), height: z.number().int(), fps: z.number(), frames: z.number().int() }),
  audio: z.object({ sample_rate: z.number().int(), channels: z.number().int() }),
});
export type PlanSpec = z.infer<typeof PlanSpec>;

/** One invalid clip of a run, named: its slot and its first reason code (the root cause). */
export const InvalidClip = z.object({ slot_id: z.string(), code: z.string() });
export type InvalidClip = z.infer<typeof InvalidClip>;

/** `runs[].clips`: how many of the run's clips were analysed, how many are valid, and the invalid ones by code and by name. */
export const RunClips = z.object({
  analysed: z.number().int().min(0),
  valid: z.number().int().min(0),
  invalid_by_code: z.record(z.string(), z.number().int().min(1)),
  /** (version 1.4) Each invalid clip, in slot order: its slot and first code; absent from reports written before. */
  invalid: z.array(InvalidClip).optional(),
});
export type RunClips = z.infer<typeof RunClips>;

/** One pair in report.json (`comparisons[].pairs[]`): identity, status and reasons, media, metrics and checks. */
export const PairReport = z.object({
  slot_id: z.string(),
  case_id: z.string(),
  prompt: z.string(),
  seed: z.number().int(),
  repetition: z.number().int(),
  status: PairStatus,
  /** Reason codes: why an invalid pair is invalid, or a failed pair's failed checks (CHECK_FAILED_*); empty for a passed pair. */
  reasons: z.array(z.string()),
  reason_details: z.array(Reason),
  /** Bundle-relative paths (media/<sha256>.mp4), null when that side has no media. */
  baseline_media: z.string().nullable(),
  candidate_media: z.string().nullable(),
  baseline_status: z.enum(['ok', 'failed']),
  candidate_status: z.enum(['ok', 'failed']),
  baseline_error: z.string().nullable(),
  candidate_error: z.string().nullable(),
  /** null when the pair was not measured: it is invalid (a failed request, missing media, incompatible files such as a different frame or audio sample count). */
  video: VideoMetrics.nullable(),
  /** null: no audio (or the pair is invalid); absent: the metric set has no `audio`. */
  audio: AudioMetrics.nullable().optional(),
  /**
   * InferenceX's `compare_media` result for the pair, field for field (docs/metrics.md, "InferenceX's
   * own figures"): present in every metric set that computes `psnr_db`, `mae` and `audio`, for a
   * measured pair and for a pair refused for a reason InferenceX refuses too (then `compatible:
   * false` with the template); absent otherwise (another set, or a pair that was not measured for
   * another reason: a failed request, an undecodable file, a difference InferenceX does not check).
   */
  inferencex: InferencexFigures.optional(),
  checks: z.array(CheckResult),
  /**
   * Bundle-relative extras made for this pair, by key (docs/report-pages.md, "Per-pair assets"):
   * `frames_csv`, `baseline_worst_webp` and `candidate_worst_webp` (the same file when the video is
   * bit-identical), `abs_diff_webp` and `ssim_heatmap_png` (not for bit-identical video),
   * `audio_diff_flac` or `audio_diff_normalized_flac` (at most one; `audio_diff_wav` or `audio_diff_normalized_wav` in earlier versions), `audio_waveform_png`.
   * Bundles of earlier versions have `*_png` stills; any other key is a download.
   */
  files: z.record(z.string(), z.string()),
  /** Against the same-hardware noise sample, when the comparison was calibrated; absent for invalid pairs. */
  noise: PairNoise.optional(),
  /**
   * Each clip analysed on its own (version 1.2; docs/metrics.md, "Clip validity"). Since 1.4 every
   * side whose clip was analysed, measured or not (a pair whose partner failed carries the one side,
   * a pair refused before measuring both); absent when neither side's clip was analysed.
   */
  clips: ReportPairClips.optional(),
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

/** One reason code among a case's repetitions: the outcome it came with and the repetitions that have it. */
export const CaseReason = z.object({
  code: z.string(),
  /** `failed` for a failed check (`CHECK_FAILED_*`), `invalid` for why a pair is invalid. */
  status: z.enum(['failed', 'invalid']),
  repetitions: z.array(z.number().int()),
});
export type CaseReason = z.infer<typeof CaseReason>;

/**
 * One judged figure's spread across a case's repetitions (version 1.3): the repetitions where the
 * check was judged (pass or fail), and the least and greatest figure among them. A null figure
 * (PSNR of identical video, an RMS ratio over a silent baseline) is counted in `nulls`, not in
 * `min`/`max`, which are null when every judged figure is.
 */
export const CaseSpread = z.object({
  check: z.string(),
  judged: z.number().int().min(1),
  min: z.number().nullable(),
  max: z.number().nullable(),
  nulls: z.number().int().min(0),
});
export type CaseSpread = z.infer<typeof CaseSpread>;

/**
 * The worst SSIM frame of each measured repetition (the series the pages chart), and whether it is
 * the same frame in every one (version 1.3). `frame` is that frame when `same`, else null.
 */
export const CaseWorstFrame = z.object({
  same: z.boolean(),
  frame: z.number().int().min(0).nullable(),
  by_repetition: z.array(z.object({ repetition: z.number().int(), frame: z.number().int().min(0) })),
});
export type CaseWorstFrame = z.infer<typeof CaseWorstFrame>;

/** The worst figure of one check across repetitions: its value and the repetition and slot it came from. */
export const CaseWorst = z.object({ check: z.string(), value: z.number().nullable(), repetition: z.number().int(), slot_id: z.string() });
export type CaseWorst = z.infer<typeof CaseWorst>;

/**
 * One repetition of a case in the baseline run against repetition 0 of the same run (report version
 * 1.3; compare's and merge's `repeatability`). `identical`: the two are the same sealed bytes, not
 * measured, no checks. Otherwise measured like a pair (the same metric set, decoder and media
 * checks) and its figures judged by the policy's checks, as a diagnosis that counts nowhere else
 * (not in the summary, the case's status or the gate): `passed` or `failed` say whether the run's
 * own repetitions stay within the thresholds; `invalid` that they could not be measured or judged,
 * `reasons` saying why (`side` `baseline` is repetition 0, `candidate` the repetition measured).
 */
export const OwnRepetition = z.object({
  repetition: z.number().int().min(1),
  slot_id: z.string(),
  against_repetition: z.number().int().min(0),
  against_slot_id: z.string(),
  status: z.enum(['identical', 'passed', 'failed', 'invalid']),
  reasons: z.array(Reason),
  checks: z.array(CheckResult),
});
export type OwnRepetition = z.infer<typeof OwnRepetition>;

/**
 * The baseline run's own repetitions of a case, measured (report version 1.3, present only with the repeatability option): each repetition from 1
 * up against repetition 0, and per check judged (pass or fail) in at least one of them its worst
 * figure, picked as a case's `worst` is (empty when none was measured and judged).
 */
export const OwnRepetitionsMeasured = z.object({
  repetitions: z.array(OwnRepetition),
  worst: z.array(CaseWorst),
});
export type OwnRepetitionsMeasured = z.infer<typeof OwnRepetitionsMeasured>;

/**
 * One case (a prompt and a seed) across its repetitions, each its own pair (docs/report.md, "Repeated
 * requests"): a case fails if any repetition failed. `worst` keeps the worst figure per check; version
 * 1.3 adds the outcome counts with their reasons, each judged figure's spread, the worst frame across
 * repetitions and whether every repetition had the same outcome.
 */
export const CaseView = z.object({
  case_id: z.string(),
  seed: z.number().int(),
  status: PairStatus,
  repetitions: z.number().int(),
  worst: z.array(CaseWorst),
  /** How many repetitions passed, failed, were invalid (version 1.3): they add up to `repetitions`. */
  passed: z.number().int().min(0).optional(),
  failed: z.number().int().min(0).optional(),
  invalid: z.number().int().min(0).optional(),
  /** Every reason code of the failed and invalid repetitions, failed first, each with the repetitions that have it (version 1.3). */
  reasons: z.array(CaseReason).optional(),
  /** Per check judged in at least one repetition, in `worst`'s order (version 1.3). */
  spread: z.array(CaseSpread).optional(),
  /** null when no repetition was measured with an SSIM series (version 1.3). */
  worst_frame: CaseWorstFrame.nullable().optional(),
  /**
   * `consistent`: every repetition has the same outcome; `varies`: not, and `differing` lists the
   * repetitions whose outcome is not the most common one (a tie goes to the worse outcome: failed,
   * then invalid, then passed). Version 1.3.
   */
  consistency: z.enum(['consistent', 'varies']).optional(),
  differing: z.array(z.number().int()).optional(),
  /**
   * Each run's own repetitions of the case, from the sealed media alone: `identical` when every
   * repetition with media has the same bytes (one SHA-256), `differ` when not, null with fewer than
   * two repetitions with media. The baseline's says whether a cross-hardware difference could be
   * the baseline hardware's own nondeterminism; `own_repetitions_measured` says by how much.
   */
  own_repetitions: z.object({ baseline: z.enum(['identical', 'differ']).nullable(), candidate: z.enum(['identical', 'differ']).nullable() }).optional(),
  /**
   * The baseline run's own repetitions of the case measured against its repetition 0 (report version
   * 1.3): only when the comparison was made with `repeatability` and the plan repeats cases; absent
   * otherwise.
   */
  own_repetitions_measured: OwnRepetitionsMeasured.optional(),
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
  /** Bundle-relative extras for the whole comparison; none today (per-frame data is per pair: `pairs[].files.frames_csv`). */
  files: z.record(z.string(), z.string()).optional(),
  /** Server latency of the baseline and this candidate side by side: descriptive, it has no outcome. */
  timing: TimingSideBySide.optional(),
  /** The noise-floor verdicts' counts, when the comparison was calibrated (docs/calibration.md). */
  noise: ComparisonNoise.optional(),
});
export type Comparison = z.infer<typeof Comparison>;

/**
 * `runs[].power`: the power stage's summary. The rule is enforced
 * here so no report can carry a partial figure: energy fields appear only
 * when power_valid, and then total and average are both present.
 */
export const PowerReport = PowerSummary.superRefine((p, ctx) => {
  const figures = (['total_gpu_energy_j', 'avg_total_gpu_power_w', 'joules_per_valid_clip'] as const).filter((k) => p[k] !== undefined);
  if (!p.power_valid && figures.length > 0) ctx.addIssue({ code: 'custom', message: `an invalid power result carries no energy figure, but has ${figures.join(', ')}`, path: [figures[0]!] });
  if (p.power_valid && (p.total_gpu_energy_j === undefined || p.avg_total_gpu_power_w === undefined)) {
    ctx.addIssue({ code: 'custom', message: 'a valid power result has total_gpu_energy_j and avg_total_gpu_power_w', path: ['total_gpu_energy_j'] });
  }
  if (p.power_valid !== (p.reasons.length === 0)) ctx.addIssue({ code: 'custom', message: 'power is valid exactly when it has no reason', path: ['reasons'] });
});
export type PowerReport = z.infer<typeof PowerReport>;

/** One GPU of the power audit, as the pages list it; energy_j / avg_power_w are null unless the run's power is valid. */
export const PowerGpuLine = GpuPowerAudit.pick({
  index: true,
  id: true,
  samples_in_range: true,
  samples_used: true,
  missing_readings: true,
  max_gap_s: true,
  bracketed: true,
  energy_j: true,
  avg_power_w: true,
  reasons: true,
});
export type PowerGpuLine = z.infer<typeof PowerGpuLine>;

/** What the pages need from the audit sidecar without opening it; the sidecar (`runs[].power_audit`) has everything. */
export const PowerDetail = z.object({
  window: Window.nullable(),
  duration_s: z.number().nullable(),
  truncated_last_line: z.boolean(),
  per_gpu: z.array(PowerGpuLine),
});
export type PowerDetail = z.infer<typeof PowerDetail>;

/**
 * `runs[].identity`: who vouches for the run's identity (docs/provenance.md).
 * `provider`: the CI provider, through the provenance file fidelity fetch
 * wrote beside the zip, which the archive was checked against; `self`: the
 * archive's own files only. `provider` holds what the provider said.
 */
export const RunIdentity = z.object({
  attested_by: z.enum(['provider', 'self']),
  provider: z
    .object({
      name: z.literal('github'),
      api_url: z.string(),
      /** When fidelity fetch downloaded the artifact, and which version of it did. */
      fetched_at: z.string(),
      fetched_by: z.string(),
      run_html_url: z.string(),
      workflow_path: z.string().nullable(),
      status: z.string().nullable(),
      conclusion: z.string().nullable(),
      run_updated_at: z.string().nullable(),
      /** GitHub's digest of the zip ("sha256:<64 hex>"), which the zip was checked against. */
      artifact_digest: z.string(),
      artifact_created_at: z.string().nullable(),
      artifact_expires_at: z.string().nullable(),
    })
    .nullable(),
});
export type RunIdentity = z.infer<typeof RunIdentity>;

export const RunReport = z.object({
  role: z.enum(['baseline', 'candidate']),
  run_id: z.number().int(),
  run_attempt: z.number().int(),
  head_sha: z.string(),
  /** The CI that produced the run (docs/run-archive.md, "ci.json"); absent in reports written before providers existed, which were all GitHub. */
  provider: z.enum(['github', 'gitlab', 'other']).optional(),
  /** The CI server; null for provider `other`, which has none. */
  server_url: z.string().nullable(),
  /** GitHub `owner/name`, GitLab project path, or what an `other` ci.json says; null when it says nothing. */
  repository: z.string().nullable(),
  /** GitHub's workflow, or what an `other` ci.json says; null for GitLab, which has none. */
  workflow: z.string().nullable(),
  job: z.string(),
  /** `id` is GitHub's artifact id, null for providers without one. */
  artifact: z.object({ id: z.number().int().nullable(), name: z.string() }),
  /** GitLab only: the project and pipeline ids (the job id is run_id). */
  gitlab: z.object({ project_id: z.number().int(), pipeline_id: z.number().int() }).optional(),
  /** Provider `other` only: the free-text reference to the run, shown as text, never linked. */
  run_ref: z.string().optional(),
  hardware: z.object({ gpu_model: z.string(), gpus_allocated: z.number().int(), gpus_participating: z.number().int() }),
  runtime: z.record(z.string(), z.unknown()).nullable(),
  plan_id: z.string(),
  plan_sha256: z.string(),
  /**
   * The plan's media spec (plan.json `video` and `audio`), which every measured file was checked
   * against (`MEDIA_PLAN_MISMATCH`); absent in reports written before that check existed.
   */
  plan_spec: PlanSpec.optional(),
  /** The archive's file name only (never a machine path) and its kind. */
  source: z.object({ name: z.string(), kind: z.enum(['directory', 'zip', 'tar.gz']) }),
  digest: z.object({ checked: z.boolean(), archive_sha256: z.string().nullable(), expected: z.string().nullable() }),
  /**
   * Back to the CI run and its artifact, built per provider from its ids; null where the provider has no such page (`other`).
   * GitLab adds its pipeline.
   */
  links: z.object({ run: z.string().nullable(), artifact: z.string().nullable(), pipeline: z.string().optional() }),
  /** Provider-attested or self-attested identity; absent in reports written before it existed. */
  identity: RunIdentity.optional(),
  /** Bundle-relative folder with ci.json, plan.json, run.json, original-SHA256SUMS. */
  sources_dir: z.string(),
  /**
   * `ok` and `failed` count measurement slots; `warmup_ok` / `warmup_failed` the warm-ups' own outcome
   * (absent in reports written before it was recorded).
   */
  slots: z.object({
    warmup: z.number().int(),
    measurement: z.number().int(),
    ok: z.number().int(),
    failed: z.number().int(),
    warmup_ok: z.number().int().optional(),
    warmup_failed: z.number().int().optional(),
  }),
  /** null when the run has no telemetry at all. */
  power: PowerReport.nullable(),
  /** Bundle-relative path of the power audit sidecar (power/<run_id>-<run_attempt>.json); null when power is null. */
  power_audit: z.string().nullable().optional(),
  /** Window and per-GPU lines of that audit; null when power is null. */
  power_detail: PowerDetail.nullable().optional(),
  /** Codes of the warnings verification raised (the run was still valid), sorted. */
  warnings: z.array(z.string()).optional(),
  /** Server timing per record and summarised over ok measurement records. */
  timing: ServerTimingReport.optional(),
  /** Participating vs allocated GPUs, GPU-seconds and energy per valid clip on each basis. */
  accounting: GpuAccounting.optional(),
  /** Its clips analysed on their own (version 1.2; docs/metrics.md, "Clip validity"); absent when none was. */
  clips: RunClips.optional(),
});
export type RunReport = z.infer<typeof RunReport>;

/** One reader of the media files' containers and the files it read (report.json `decoder.container_readers`). */
export const ContainerReaderEntry = z.object({
  /** `media-fidelity`: the library's own MP4 / QuickTime reader; `ffprobe`: the resolved ffprobe. */
  reader: z.enum(['media-fidelity', 'ffprobe']),
  /** The library's version, or ffprobe's `-version` line. */
  version: z.string(),
  /** How many distinct media files (by content) it read. */
  files: z.number().int().min(0),
  /** Those files' sealed SHA-256s, sorted: listed for ffprobe, which reads only the files the library's reader leaves to it. */
  sha256: z.array(z.string()).optional(),
});
export type ContainerReaderEntry = z.infer<typeof ContainerReaderEntry>;

/** The whole result of a comparison, `report.json` (schema_version 1; docs/report.md). */
export const Report = z.object({
  schema_version: z.literal(1),
  /** The only field allowed to differ between two runs on the same inputs. */
  generated_at: z.string(),
  tool: z.object({ name: z.literal('fidelity'), version: z.string() }),
  decoder: z.object({
    ffmpeg_version: z.string(),
    sha256: z.string(),
    /** Where both binaries came from (`option`, `env`, `installer` or `path`): ffmpeg and ffprobe always share one source. */
    source: z.string(),
    ffprobe_version: z.string(),
    ffprobe_sha256: z.string(),
    /**
     * What read each media file's container (version 1.4; absent in older reports): the library's
     * own MP4 / QuickTime reader (`media-fidelity` with the library's version) or ffprobe (with its
     * version line); only readers that read at least one file are listed. docs/media.md.
     */
    container_readers: z.array(ContainerReaderEntry).optional(),
  }),
  /** The metric set every pair was measured with (docs/metrics.md, "Metric sets"); absent in reports written before sets existed, which computed every metric. */
  metrics: MetricSelection.optional(),
  /**
   * Who measured the pairs (docs/scale-out.md, "Trust"): of the `pairs` that
   * went through measuring, `measured_here` were measured by the command that
   * wrote this bundle (compare: all; merge: those it re-measured) and
   * `taken_from_shards` were measured by a shard and taken after merge's
   * checks. Absent in reports written before it was recorded.
   */
  measurement_origin: z
    .object({ pairs: z.number().int().min(0), measured_here: z.number().int().min(0), taken_from_shards: z.number().int().min(0) })
    .optional(),
  policy: Policy,
  /** Said plainly, in every report: the example thresholds are not a verdict. */
  disclaimer: z.string(),
  runs: z.array(RunReport),
  comparisons: z.array(Comparison),
});
export type Report = z.infer<typeof Report>;
