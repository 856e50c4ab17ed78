/**
 * What measuring one pair produces (docs/metrics.md). These schemas are the
 * contract between metrics/, pool/ and the report: the report embeds them as
 * they are. Numbers that cannot exist (PSNR of identical frames, SNR of
 * identical channels) are null with a flag, never Infinity or NaN, because
 * JSON has neither.
 */
import { z } from 'zod';
import { PairClips } from './clip.js';

/** min, mean, p05, max and the index of the worst frame of one per-frame series. */
export const SeriesSummary = z.object({
  min: z.number(),
  mean: z.number(),
  p05: z.number(),
  max: z.number(),
  worst_frame: z.number().int().min(0),
});
export type SeriesSummary = z.infer<typeof SeriesSummary>;

/** One SSIM variant over every frame of a pair: the summary and the per-frame values. */
export const SsimSeries = SeriesSummary.extend({
  harmonic_mean: z.number(),
  per_frame: z.array(z.number()),
});
export type SsimSeries = z.infer<typeof SsimSeries>;

/**
 * PSNR on Y over every frame of a pair; identical frames have no finite PSNR and are counted instead
 * (`identical_frames`, null in `per_frame`). The summary (`min` ... `worst_frame`) is over the other
 * frames, so it is null only when every frame is identical.
 */
export const PsnrSeries = z.object({
  /** Summary over frames whose PSNR is finite; null when every frame is identical. */
  min: z.number().nullable(),
  mean: z.number().nullable(),
  p05: z.number().nullable(),
  max: z.number().nullable(),
  worst_frame: z.number().int().min(0).nullable(),
  identical_frames: z.number().int().min(0),
  /** One entry per frame: null where the frame is identical. */
  per_frame: z.array(z.number().nullable()),
});
export type PsnrSeries = z.infer<typeof PsnrSeries>;

/** Who converted the pair's rgb24 (docs/metrics.md, "RGB conversion"): our integer formula, or ffmpeg's swscale as a fallback. */
export const RgbConverter = z.enum(['fidelity', 'ffmpeg']);
export type RgbConverter = z.infer<typeof RgbConverter>;

/** The YUV -> RGB matrix of the rgb24 conversion: BT.601 always, as InferenceX's evaluator (PyAV) converts. */
export const RgbMatrix = z.enum(['bt601', 'bt709']);
export type RgbMatrix = z.infer<typeof RgbMatrix>;

/** The YUV range the conversion assumed: full only for the yuvj* pixel formats (PyAV's rule). */
export const RgbRange = z.enum(['limited', 'full']);
export type RgbRange = z.infer<typeof RgbRange>;

/**
 * A diagnosis, not a metric (docs/metrics.md, "Temporal offset"): does the candidate look shifted in
 * time against the baseline? On a few sampled frames the Gaussian SSIM on Y of candidate frame n
 * against baseline frame n + k is measured for every offset k searched (-2..+2). `frames` is the
 * offset whose mean beats offset 0 by the documented margin, else 0; positive means candidate frame
 * n shows baseline frame n + k (the candidate is ahead: a dropped frame?), negative that it is behind
 * (a repeated frame?). The pair's metrics stay frame-aligned whatever this says.
 */
export const TemporalOffset = z.object({
  /** The offset the candidate looks shifted by, or 0 when none beats offset 0 by the margin. */
  frames: z.number().int(),
  /** The mean SSIM of the sampled frames at `frames` (at 0 when `frames` is 0). */
  ssim_mean_at_offset: z.number(),
  /** The mean SSIM of the sampled frames at offset 0 (the frames as they are aligned). */
  ssim_mean_at_zero: z.number(),
  /** What was searched: the offsets, the candidate frames sampled, and the SSIM of each at each offset and their means. */
  searched: z.object({
    /** The offsets searched, ascending (-2..2; fewer for a stream under 5 frames). */
    offsets: z.array(z.number().int()),
    /** The candidate frames sampled (evenly spaced, at most 8), ascending. */
    sampled_frames: z.array(z.number().int().min(0)),
    /** Per sampled frame, the SSIM at each offset, in the order of `offsets`. */
    ssim_by_frame: z.array(z.array(z.number())),
    /** Per offset, the mean over the sampled frames, in the order of `offsets`. */
    ssim_means: z.array(z.number()),
  }),
});
export type TemporalOffset = z.infer<typeof TemporalOffset>;

/**
 * The video metrics of one pair (docs/metrics.md): geometry, the three SSIM variants, PSNR on Y, pooled RGB PSNR and MAE.
 * A metric the metric set did not choose is absent, never null (report.json's `metrics` names the set;
 * docs/metrics.md, "Metric sets"). `width`, `height`, `frames` and `identical` are always there.
 *
 * | field | `default` | `all` | `ffmpeg` | `inferencex` |
 * | --- | --- | --- | --- | --- |
 * | `ssim` | yes | yes | absent | absent |
 * | `ssim_ffmpeg` | yes | yes | yes | absent |
 * | `ssim_rgb7` | absent | yes | absent | absent |
 * | `psnr_y` | yes | yes | yes | absent |
 * | `psnr_db`, `mae` | yes | yes | absent | yes |
 *
 * A list (`ssim,psnr_y`) has exactly the fields it names. Reports written before metric sets existed have every field.
 */
export const VideoMetrics = z.object({
  width: z.number().int(),
  height: z.number().int(),
  frames: z.number().int(),
  /** Wang et al. Gaussian SSIM on Y (the default `ssim`). Absent in the `ffmpeg` and `inferencex` sets. */
  ssim: SsimSeries.optional(),
  /** FFmpeg/x264 approximation, per plane and area-weighted All. Absent in the `inferencex` set. */
  ssim_ffmpeg: z.object({ y: SsimSeries, u: SsimSeries, v: SsimSeries, all: SsimSeries }).optional(),
  /** scikit-image defaults on rgb24, channels averaged. Present only in the `all` set (or a list naming `ssim_rgb7`). */
  ssim_rgb7: SsimSeries.optional(),
  /** PSNR on Y per frame. Absent in the `inferencex` set. */
  psnr_y: PsnrSeries.optional(),
  /** Pooled over every rgb24 sample of every frame (InferenceX); null when every frame is identical (no finite PSNR). Absent in the `ffmpeg` set. */
  psnr_db: z.number().nullable().optional(),
  /** Pooled mean absolute difference over every rgb24 sample. Absent in the `ffmpeg` set. */
  mae: z.number().optional(),
  /**
   * How rgb24 was made, present when a chosen metric reads it (`ssim_rgb7`, `psnr_db`, `mae`):
   * `fidelity` (the exact integer formula, the same bytes on every CPU) or `ffmpeg` (a pixel format
   * or shape the formula does not cover), with the matrix and range used.
   */
  rgb_conversion: RgbConverter.optional(),
  rgb_matrix: RgbMatrix.optional(),
  rgb_range: RgbRange.optional(),
  identical: z.boolean(),
  /**
   * A diagnosis, not a metric: whether the candidate looks shifted in time ({@link TemporalOffset}).
   * Present when the video is not identical, every metric set alike; absent for identical video, a
   * stream of fewer than 3 frames or smaller than 11x11, and in reports written before it existed.
   */
  temporal_offset: TemporalOffset.optional(),
});
export type VideoMetrics = z.infer<typeof VideoMetrics>;

/** Why a channel's audio lag was not estimated: which side is all zeros. */
export const LagEstimateReason = z.enum(['baseline_silent', 'candidate_silent', 'both_silent']);
export type LagEstimateReason = z.infer<typeof LagEstimateReason>;

/**
 * The audio metrics of one channel of a pair (docs/metrics.md, "Audio"). Every field is always there;
 * two can be null, with the reason beside them: `snr_db` (`snr_db_reason`: `identical` when every
 * sample is equal, an infinite SNR; `baseline_silent` when there is no signal to compare with) and
 * `rms_ratio` (`rms_ratio_reason`: `baseline_silent`).
 */
export const AudioChannelMetrics = z.object({
  channel: z.number().int().min(0),
  samples: z.number().int().min(0),
  max_abs_diff: z.number(),
  mae: z.number(),
  rmse: z.number(),
  snr_db: z.number().nullable(),
  /** Set when snr_db is null: `identical` (every sample equal) or `baseline_silent` (no signal to compare with). */
  snr_db_reason: z.string().nullable().optional(),
  pearson: z.number(),
  rms_ratio: z.number().nullable(),
  /** Set when rms_ratio is null: `baseline_silent`. */
  rms_ratio_reason: z.string().nullable(),
  spectral_cosine: z.number(),
  newly_silent: z.boolean(),
  identical: z.boolean(),
  baseline_peak: z.number(),
  candidate_peak: z.number(),
  /** Diagnostic only: metrics are never re-aligned. 0 when not estimated (`lag_estimate_reason`). */
  lag_estimate_samples: z.number().int(),
  /**
   * Present only when the lag could not be estimated: a side that is all zeros (`baseline_silent`,
   * `candidate_silent`, `both_silent`) has no cross-correlation peak, and `lag_estimate_samples` is
   * then 0 by definition, not a measured lag of 0. Absent in reports written before it existed.
   */
  lag_estimate_reason: LagEstimateReason.optional(),
});
export type AudioChannelMetrics = z.infer<typeof AudioChannelMetrics>;

/** The audio metrics of one pair: every channel, and the worst channel as the pair figure. */
export const AudioMetrics = z.object({
  sample_rate: z.number().int(),
  channels: z.array(AudioChannelMetrics),
  /** The pair's aggregate is the worst channel (docs/metrics.md). */
  spectral_cosine: z.number(),
  /** The channel rms_ratio furthest from 1; null when that channel's baseline is silent. */
  rms_ratio: z.number().nullable(),
  /** Set when rms_ratio is null: that channel's reason (`baseline_silent`). */
  rms_ratio_reason: z.string().nullable().optional(),
  /** The channel the pair's rms_ratio comes from. */
  rms_ratio_channel: z.number().int().min(0).optional(),
  identical: z.boolean(),
  newly_silent_channels: z.array(z.number().int()),
});
export type AudioMetrics = z.infer<typeof AudioMetrics>;

/**
 * InferenceX's `compare_media` metric dict (evaluator v1.0.0, `vgbench.cpu_media`), every key under
 * its name (docs/metrics.md, "InferenceX's own figures"). A figure that does not exist is null, as
 * InferenceX has it: the PSNR of identical video, a ratio or cosine over a silent baseline or an
 * all-zero spectrum, a fraction over nothing. An incompatible pair has the unmeasured template:
 * nulls, zero counts, empty lists.
 */
export const InferencexMetrics = z.object({
  /** sum|x-y| / (samples*255) over every rgb24 sample of every compared frame. */
  video_mae: z.number().nullable(),
  /** -10*log10(sum(x-y)^2 / (samples*255^2)); null when every rgb24 sample is equal. */
  video_psnr_db: z.number().nullable(),
  /** Every rgb24 sample equal (null in the template). */
  video_identical: z.boolean().nullable(),
  video_compared_frames: z.number().int().min(0),
  video_total_frames: z.number().int().min(0),
  /** compared / total frames; null over zero frames. */
  video_sample_coverage_fraction: z.number().nullable(),
  /** The largest |baseline PTS - candidate PTS| of a compared frame pair, in seconds (exact, rounded once). */
  video_max_alignment_delta_seconds: z.number().nullable(),
  audio_channel_count: z.number().int().min(0),
  audio_compared_samples_per_channel: z.number().int().min(0),
  /** compared / total samples per channel; null without audio. */
  audio_sample_coverage_fraction: z.number().nullable(),
  /** |baseline audio start - candidate audio start| in seconds (the first decoded frame's timestamps); null without audio. */
  audio_max_alignment_delta_seconds: z.number().nullable(),
  /** sum|a-b| over every sample of every channel / (channels * samples). */
  audio_waveform_mae: z.number().nullable(),
  audio_waveform_mae_channels: z.array(z.number().nullable()),
  audio_waveform_rmse_channels: z.array(z.number().nullable()),
  /** Every sample of every channel equal (null without audio). */
  audio_identical: z.boolean().nullable(),
  /** sqrt(summed candidate energy / summed baseline energy); null when the baseline is silent (energy 0). */
  audio_rms_ratio: z.number().nullable(),
  /** Per channel; null for a channel whose baseline is silent (energy 0). */
  audio_rms_ratio_channels: z.array(z.number().nullable()),
  /** The channels' minimum; null when any channel's is null (or without audio). */
  audio_spectral_cosine: z.number().nullable(),
  /** Per channel, with the symmetric Hann window; null when either side's spectrum is all zeros. */
  audio_spectral_cosine_channels: z.array(z.number().nullable()),
  /** 1024-sample windows per channel (the trailing partial one counted). */
  audio_spectral_windows: z.number().int().min(0),
  /** Channels whose baseline RMS is above 1e-4 and whose candidate RMS is at most 1e-4. */
  audio_newly_silent_channels: z.array(z.number().int().min(0)),
});
export type InferencexMetrics = z.infer<typeof InferencexMetrics>;

/**
 * InferenceX's template: the metric dict its `compare_media` (evaluator v1.0.0) returns for a pair it
 * refuses, its 13 keys exactly: figures and `video_identical` null, counts and `audio_channel_count`
 * 0, `video_sample_coverage_fraction` 0.0, lists empty; no other key.
 */
export const InferencexTemplate = z.strictObject({
  video_mae: z.null(),
  video_psnr_db: z.null(),
  video_identical: z.null(),
  video_compared_frames: z.literal(0),
  video_total_frames: z.literal(0),
  video_sample_coverage_fraction: z.literal(0),
  audio_waveform_mae: z.null(),
  audio_spectral_cosine: z.null(),
  audio_rms_ratio: z.null(),
  audio_rms_ratio_channels: z.tuple([]),
  audio_spectral_cosine_channels: z.tuple([]),
  audio_waveform_mae_channels: z.tuple([]),
  audio_channel_count: z.literal(0),
});
export type InferencexTemplate = z.infer<typeof InferencexTemplate>;

/**
 * The refused pair's dict as reports of version 1.3 wrote it (without `video_identical` and
 * `audio_channel_count`, with `audio_waveform_rmse_channels` and `audio_newly_silent_channels`):
 * still read, never written.
 */
const InferencexTemplateV13 = z.strictObject({
  video_mae: z.null(),
  video_psnr_db: z.null(),
  video_compared_frames: z.literal(0),
  video_total_frames: z.literal(0),
  video_sample_coverage_fraction: z.literal(0),
  audio_waveform_mae: z.null(),
  audio_waveform_mae_channels: z.tuple([]),
  audio_waveform_rmse_channels: z.tuple([]),
  audio_rms_ratio: z.null(),
  audio_rms_ratio_channels: z.tuple([]),
  audio_spectral_cosine: z.null(),
  audio_spectral_cosine_channels: z.tuple([]),
  audio_newly_silent_channels: z.tuple([]),
});

/**
 * `pairs[].inferencex`: `compatible` (false exactly when InferenceX's `compare_media` refuses the
 * pair) and its `metrics`: every figure of an accepted pair, InferenceX's template
 * ({@link InferencexTemplate}) of a refused one.
 */
export const InferencexFigures = z.discriminatedUnion('compatible', [
  z.object({ compatible: z.literal(true), metrics: InferencexMetrics }),
  // The template; a report written before version 1.3 carried every key of an accepted pair here
  // (nulls, zero counts, a null coverage), which is still read. What this library writes is the template.
  z.object({ compatible: z.literal(false), metrics: z.union([InferencexTemplate, InferencexTemplateV13, InferencexMetrics]) }),
]);
export type InferencexFigures = z.infer<typeof InferencexFigures>;

/**
 * Everything measurePair returns for a pair that could be compared. `video` is always there (its
 * fields depend on the metric set: {@link VideoMetrics}); `audio` is null when neither file has an
 * audio stream and absent when the set has no `audio` (the `ffmpeg` set, or a list without it).
 * A pair that could not be compared has no measurement at all: {@link MeasureOutcome} `{ ok: false }`.
 */
export const PairMeasurement = z.object({
  video: VideoMetrics,
  /** null when neither side has audio; absent when the metric set has no `audio` (the `ffmpeg` set, or a list without it). */
  audio: AudioMetrics.nullable().optional(),
  /**
   * InferenceX's `compare_media` figures of the pair ({@link InferencexFigures}), from the same pass;
   * absent when the metric set does not compute `psnr_db`, `mae` and `audio` (the `ffmpeg` set, or a
   * list without them), and in measurements made before it existed.
   */
  inferencex: InferencexFigures.optional(),
  /** Each clip analysed on its own (docs/metrics.md, "Clip validity"); absent from measurements made before version 1.2. */
  clips: PairClips.optional(),
  timings_ms: z.object({ total: z.number() }).optional(),
});
export type PairMeasurement = z.infer<typeof PairMeasurement>;

/** The file a pair failure is about; absent when it is a difference between the two (the message gives both values). */
export const FailureSide = z.enum(['baseline', 'candidate', 'both']);
export type FailureSide = z.infer<typeof FailureSide>;

/**
 * A field of the plan's media spec (plan.json `video` and `audio`) that each file's media are checked
 * against. `audio_duration` is the audio's length in seconds, held to the plan's duration (frames /
 * fps) plus a slack for the encoder's priming and padding.
 */
export const PlanField = z.enum(['width', 'height', 'fps', 'frames', 'sample_rate', 'channels', 'audio_duration']);
export type PlanField = z.infer<typeof PlanField>;

/**
 * One field where a file's media differ from the plan (docs/media.md, "Media against the plan"):
 * the plan's value and the media's. `media` is null for `sample_rate` and `channels` when the file
 * has no audio stream; `fps` is the rate the frame timestamps give (frames - 1 over the span from
 * the first to the last); `audio_duration`'s `plan` is the plan's duration, its `media` the longest
 * the container says the audio lasts (its stated duration, its packets, a PCM index's sample count).
 */
export const FieldMismatch = z.object({ field: PlanField, plan: z.number(), media: z.number().nullable() });
export type FieldMismatch = z.infer<typeof FieldMismatch>;

/** A {@link FieldMismatch} of one side of a pair (`MEDIA_PLAN_MISMATCH`). */
export const PlanMismatch = FieldMismatch.extend({ side: z.enum(['baseline', 'candidate']) });
export type PlanMismatch = z.infer<typeof PlanMismatch>;

/** A pair that could not be measured: a reason code and the detail, never partial metrics. */
export const MeasureFailure = z.object({
  code: z.string(),
  message: z.string(),
  side: FailureSide.optional(),
  /** `MEDIA_PLAN_MISMATCH` only: every field where a side's media differ from the plan, baseline first. */
  plan_mismatches: z.array(PlanMismatch).optional(),
  /**
   * `MEDIA_PLAN_MISMATCH` only: the difference between the two files that the plan's explains, when
   * they also differ from each other (an `INCOMPATIBLE_*` code), listed after it; absent otherwise.
   */
  also: z.object({ code: z.string(), message: z.string(), side: FailureSide.optional() }).optional(),
});
export type MeasureFailure = z.infer<typeof MeasureFailure>;

/**
 * What {@link measurePair} (and a pool's `measure`) resolves with: `{ ok: true, measurement }` with
 * the pair's metrics, or `{ ok: false, failure }` with a reason code from {@link MeasureFailureCodes}
 * and its detail (never partial metrics).
 */
export const MeasureOutcome = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), measurement: PairMeasurement }),
  z.object({
    ok: z.literal(false),
    failure: MeasureFailure,
    /** InferenceX's figures of a pair it refuses too (`compatible: false`, the template); absent otherwise (docs/metrics.md). */
    inferencex: InferencexFigures.optional(),
  }),
]);
export type MeasureOutcome = z.infer<typeof MeasureOutcome>;
