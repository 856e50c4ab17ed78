/**
 * The contract between measuring (media/, metrics/, pool/) and its callers
 * (compare.ts, the CLI, benchmarks). A failure for one pair is a value, not
 * an exception, so a corrupt MP4 never takes the batch down with it.
 */
import type { ClipAnalysis } from '../schemas/clip.js';
import type { ClipOutcome } from '../schemas/clip.js';
import type { MeasureOutcome } from '../schemas/measurement.js';
import type { PairCapture } from '../media/frames.js';
import type { ResolveOptions } from '../media/ffmpeg.js';
import type { MediaPlanSpec } from '../media/plan-conformance.js';
import type { MetricsSpec } from '../metrics/registry.js';

/** Progress of one pair: frames decoded and measured so far, out of the video's frame count. */
export interface MeasureProgress {
  framesDone: number;
  framesTotal: number;
}

/** Options of {@link measurePair} (and of each pair in a pool). */
export interface MeasureOptions {
  /** Which ffmpeg/ffprobe to use (default: resolved as {@link resolveFfmpeg} does). */
  ffmpeg?: ResolveOptions;
  /** Cancels: the ffmpeg children are killed and the outcome is the failure `ABORTED` (measurePair resolves, it does not reject). */
  signal?: AbortSignal;
  /** Per child process wall-clock limit; a stuck decoder is killed and the pair fails with DECODE_TIMEOUT. */
  timeoutMs?: number;
  /** The pair's frames measured so far: 0 first and the total last. */
  onProgress?: (progress: MeasureProgress) => void;
  /**
   * Run the audio metrics in a helper thread, beside the video metrics, with
   * the chunks moved there (not copied). Saves about 0.3 s per 8 s pair when
   * a core is idle, at the price of a second V8 heap (about 15 MiB). Default:
   * on when the video has helper threads (videoThreads > 0), so the
   * measuring thread only moves buffers; off otherwise. The results are the
   * same bytes either way.
   */
  audioThread?: boolean;
  /**
   * Helper threads for the video metrics of this pair:
   * whole frames go to them, and one more thread runs ssim_ffmpeg, which
   * must see the frames in order. 0 computes everything in the calling
   * thread. Default: one per available core on a machine of 4 cores or more,
   * for a stream of at least about 20 frames at 1344x768; 0 for a smaller
   * stream or fewer cores (on 2 cores, the decoders need most of the machine
   * and helpers measured slower for every metric set). Left open with 2 or 3
   * cores, such a stream gets no helpers but the Gaussian SSIM of its frames
   * that differ runs in one thread of its own beside the measuring thread;
   * an explicit 0 keeps everything in the calling thread. The results are the same bytes for every value.
   */
  videoThreads?: number;
  /**
   * The metric set (docs/metrics.md, "Metric sets"): a set name (`default`, `all`, `ffmpeg`,
   * `inferencex`), a comma-separated list or an array of metric names. Default `default`. Only the
   * chosen metrics run: rgb24 is decoded only when one of them reads it, audio only with `audio`.
   */
  metrics?: MetricsSpec;
  /**
   * The plan's media spec (plan.json `video` and `audio`): each file's media are checked against it
   * after the pair checks, before any frame is decoded, and a pair whose media differ from it fails
   * with `MEDIA_PLAN_MISMATCH` (docs/media.md, "Media against the plan"). Absent: not checked.
   */
  plan?: MediaPlanSpec;
}

/** One pair for a {@link MeasurePool}: the two MP4 paths, and per-pair options. */
export interface PairJob {
  /** Caller's key, echoed in progress events (e.g. "<candidate run>/<slot_id>"). */
  id: string;
  baseline: string;
  candidate: string;
  /**
   * The caller knows both files hold the same bytes (their sealed SHA-256 agree): the file is
   * probed once and its clip analysis (docs/metrics.md, "Clip validity") made once and given to
   * both sides, which is what two analyses of the same bytes give. Its video is decoded once and
   * each frame measured against itself when the pair is measured in one thread (no video helper
   * threads), which gives what two decodes of the same bytes give; its audio is decoded twice for
   * the pair metrics, once in a set without `audio` (for that one analysis). Default false.
   */
  sameMedia?: boolean;
  /**
   * Clip analyses (docs/metrics.md, "Clip validity") this command already made of a side's bytes
   * (the same sealed SHA-256 in another pair): that side is not analysed again, and its analysis in
   * the outcome is the one given. An analysis depends only on the file's bytes and the plan, so it
   * is what a second analysis would give. Default: both sides analysed here.
   */
  known?: { baseline?: ClipAnalysis; candidate?: ClipAnalysis };
}

/** One clip for {@link MeasurePool.analyse}: analysed on its own, as {@link analyseClip} does, no pair metrics. */
export interface ClipJob {
  /** Caller's key. */
  id: string;
  file: string;
}

/** Options of {@link createMeasurePool}. */
export interface PoolOptions {
  /** Worker threads, one pair each; default defaultThreadCount(). */
  threads?: number;
  /** Cores the pool may keep busy; default defaultThreadCount(). Only sizes the default videoThreads. */
  cores?: number;
  /**
   * Helper threads per pair (MeasureOptions.videoThreads). Default: the
   * cores per pair thread (cores / threads, rounded down) when that is at
   * least 4, else none: with fewer cores per pair the decoders and the pool's
   * own threads already keep them busy, and helpers would only add messages,
   * waits and V8 heaps. None for small streams either.
   */
  videoThreads?: number;
  /** Which ffmpeg/ffprobe every pair uses (default: resolved as {@link resolveFfmpeg} does, once for the pool). */
  ffmpeg?: ResolveOptions;
  /** Wall-clock limit of each ffmpeg/ffprobe child, in milliseconds (default {@link DEFAULT_DECODE_TIMEOUT_MS}). */
  timeoutMs?: number;
  /** The metric set of every pair (MeasureOptions.metrics). */
  metrics?: MetricsSpec;
  /** The plan every pair's media are checked against (MeasureOptions.plan). */
  plan?: MediaPlanSpec;
}

/** Per-pair options of {@link MeasurePool.measure}. */
export interface MeasureRunOptions {
  /** Cancels this pair: queued, it never starts; running, its ffmpeg children are killed; either way it resolves as `ABORTED`. */
  signal?: AbortSignal;
  /** The pair's frames measured so far: 0 first and the total last, counts between at most every 40 ms (each crosses threads). */
  onProgress?: (progress: MeasureProgress) => void;
  /**
   * Also keep what a bundle shows of the pair from its measuring decode (the stills' frame, the
   * first `keep.audioSeconds` of audio) and hand it to `onCapture` before
   * `measure` resolves: null for a pair not measured. Nothing of it is in the outcome.
   */
  keep?: { audioSeconds: number };
  /** Given what `keep` kept, before `measure` resolves (null for a pair not measured). */
  onCapture?: (capture: PairCapture | null) => void;
}

/**
 * A pool of worker threads, each measuring one pair (or analysing one clip) at a time; `measure` queues a pair and resolves
 * with its {@link MeasureOutcome}. Call `destroy` when done (it waits for the workers to exit).
 */
export interface MeasurePool {
  readonly threads: number;
  measure(job: PairJob, options?: MeasureRunOptions): Promise<MeasureOutcome>;
  /**
   * Queues one clip, analysed on its own with the pool's plan, ffmpeg and time limit (docs/metrics.md,
   * "Clip validity"): the clip of a pair that was not measured. Resolves with its analysis, or why it
   * could not be decoded (`ABORTED` when `signal` fired).
   */
  analyse(job: ClipJob, options?: { signal?: AbortSignal }): Promise<ClipOutcome>;
  destroy(): Promise<void>;
}

/**
 * Reason codes a MeasureOutcome failure may carry (docs/media.md, "Decoding"):
 * the pair is `invalid` with this code in the report.
 */
export const MeasureFailureCodes = [
  'INCOMPATIBLE_SIZE',
  'INCOMPATIBLE_FRAME_COUNT',
  'INCOMPATIBLE_TIMESTAMPS',
  'INCOMPATIBLE_AUDIO_PRESENCE',
  'INCOMPATIBLE_SAMPLE_RATE',
  'INCOMPATIBLE_CHANNELS',
  'INCOMPATIBLE_SAMPLE_COUNT',
  /** Both sides are readable but their chroma layouts differ (e.g. yuv420p vs yuv444p). */
  'INCOMPATIBLE_PIXEL_FORMAT',
  /** A side is not 8-bit planar YUV; converting would change the samples the metrics are defined on. */
  'UNSUPPORTED_PIXEL_FORMAT',
  'NO_VIDEO_STREAM',
  // Stream layout, display and timing (docs/media.md, "Decoding"): a side with an unmeasured stream, a picture
  // turned differently, edit lists that show different things, audio that starts elsewhere against the video.
  'EXTRA_VIDEO_STREAM',
  'EXTRA_AUDIO_STREAM',
  'EXTRA_STREAM',
  'INCOMPATIBLE_DISPLAY_MATRIX',
  'INCOMPATIBLE_ASPECT_RATIO',
  'INCOMPATIBLE_VIDEO_EDIT_LIST',
  'INCOMPATIBLE_AUDIO_EDIT_LIST',
  'INCOMPATIBLE_AUDIO_START',
  /** Both sides are smaller than a metric window: that pair is not measured, the others are. */
  'FRAME_TOO_SMALL',
  /** A side's media differ from the plan's video / audio spec (MeasureOptions.plan), though the two sides may agree. */
  'MEDIA_PLAN_MISMATCH',
  'UNDECODABLE',
  'DECODE_TIMEOUT',
  'ABORTED',
] as const;
/** One of {@link MeasureFailureCodes}. */
export type MeasureFailureCode = (typeof MeasureFailureCodes)[number];
