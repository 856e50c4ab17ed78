/**
 * One clip analysed on its own (docs/metrics.md, "Clip validity"): InferenceX's `analyze_media`
 * figures under its names, plus where a blank, frozen or silent stretch lies (which InferenceX does
 * not give), the checks' reason codes and whether the clip is valid. report.json carries it as
 * `pairs[].clips.{baseline,candidate}`; `fidelity verify RUN --clips` prints it per slot.
 */
import { z } from 'zod';
import { CLIP_REASON_CODES, REASONS, type ClipReasonCode, type ReasonDeclaration } from '../errors.js';

/** An inclusive `[first, last]` range of frame or sample indices. */
export const IndexRange = z.tuple([z.number().int().min(0), z.number().int().min(0)]);
export type IndexRange = z.infer<typeof IndexRange>;

/** A fraction over zero frames or samples is null (docs/metrics.md). */
const Fraction = z.number().min(0).max(1).nullable();

/** The video of one clip, from every decoded frame as rgb24 and every frame's presentation timestamp. */
export const ClipVideo = z.object({
  frame_count: z.number().int().min(0),
  width: z.number().int().min(0),
  height: z.number().int().min(0),
  /** Frames whose maximum rgb24 sample is <= 3 (black) or whose minimum is >= 252 (white), over the frame count. */
  blank_fraction: Fraction,
  black_fraction: Fraction,
  white_fraction: Fraction,
  /** Adjacent frames byte-equal in rgb24, over n - 1. */
  duplicate_fraction: Fraction,
  /** Per adjacent pair sum|a - b| / (samples * 255), averaged over n - 1; null for fewer than two frames. */
  mean_adjacent_frame_mae: z.number().min(0).nullable(),
  /** Adjacent pairs whose MAE is <= 1/1024, over n - 1. */
  frozen_fraction: Fraction,
  min_frame_interval_seconds: z.number().nullable(),
  max_frame_interval_seconds: z.number().nullable(),
  missing_timestamps: z.number().int().min(0),
  nonincreasing_timestamps: z.number().int().min(0),
  /** Frames the decoder flagged corrupt (its frame error flags, ffmpeg's per-frame log line); null where this ffmpeg build does not log the flag (docs/metrics.md). */
  corrupt_frame_count: z.number().int().min(0).nullable(),
  /**
   * Every decoded frame has the first frame's size; null where the decoder's log showed no frame
   * size (docs/metrics.md). Always written; absent only from a report written before the check
   * existed, which is read as not checked.
   */
  geometry_stable: z.boolean().nullable().optional(),
  /** The stream's time base in seconds (the unit of its timestamps). */
  time_base_seconds: z.number().positive(),
  /** First presentation timestamp, and the last one plus that frame's duration, in seconds; null without timestamps. */
  start_seconds: z.number().nullable(),
  end_seconds: z.number().nullable(),
  /** Runs of consecutive blank frames. */
  blank_runs: z.array(IndexRange),
  /** Runs of frames each within MAE 1/1024 of the one before: `[i, j]` covers the adjacent pairs (i, i+1) .. (j-1, j). */
  frozen_runs: z.array(IndexRange),
});
export type ClipVideo = z.infer<typeof ClipVideo>;

/** The audio of one clip, from every decoded sample as float64 of the float32 PCM, per channel. */
export const ClipAudio = z.object({
  sample_rate: z.number().int().positive(),
  channel_count: z.number().int().min(0),
  /** Samples per channel. */
  sample_count: z.number().int().min(0),
  rms_channels: z.array(z.number().min(0).nullable()),
  /** 20 * log10(rms); null at rms 0 (and for an empty channel). */
  rms_dbfs_channels: z.array(z.number().nullable()),
  peak_channels: z.array(z.number().min(0).nullable()),
  dc_offset_channels: z.array(z.number().nullable()),
  clipping_fraction_channels: z.array(Fraction),
  silence_fraction_channels: z.array(Fraction),
  /** Channels whose RMS is <= 1e-4. */
  silent_channels: z.array(z.number().int().min(0)),
  /** Channel pairs [i, j] (i < j) whose mean squared difference, computed from the sums as InferenceX does, is <= 1e-16. */
  identical_channel_pairs: z.array(z.tuple([z.number().int().min(0), z.number().int().min(0)])),
  /** Largest |frame PTS - previous frame's end| in seconds; null for fewer than two timed frames. */
  max_timestamp_gap_seconds: z.number().min(0).nullable(),
  /** Where that gap is: the first sample of the frame after it. */
  max_timestamp_gap_at_sample: z.number().int().min(0).nullable(),
  missing_timestamps: z.number().int().min(0),
  nonincreasing_timestamps: z.number().int().min(0),
  /** Audio frames the decoder flagged corrupt, counted in the process whose samples are measured; null as for video. */
  corrupt_frame_count: z.number().int().min(0).nullable(),
  time_base_seconds: z.number().positive(),
  start_seconds: z.number().nullable(),
  end_seconds: z.number().nullable(),
  /** Runs of at least a tenth of a second of samples that are silent (|x| <= 1e-4) on every channel. */
  silent_runs: z.array(IndexRange),
});
export type ClipAudio = z.infer<typeof ClipAudio>;

/**
 * The codes a clip's analysis gives (docs/reason-codes.md, "Clip validity"), in the order a clip's
 * reasons are listed everywhere (a clip's `reasons`, a pair's, `invalid_by_code`, the pages), root
 * cause first: `MEDIA_PLAN_MISMATCH` (the clip's media differ from the plan in a field it states,
 * which explains every check after it), then the clip catalogue's order (declared once, with the codes
 * and why they come in that order).
 */
export const ClipCode = z.enum(['MEDIA_PLAN_MISMATCH', ...CLIP_REASON_CODES] as ['MEDIA_PLAN_MISMATCH', ...ClipReasonCode[]]);
export type ClipCode = z.infer<typeof ClipCode>;

/** The checks InferenceX applies to every clip, also inside `compare_media`, whatever its caller asks (`unconditional` in the catalogue). */
export const UNCONDITIONAL_CLIP_CODES: readonly ClipCode[] = Object.freeze(CLIP_REASON_CODES.filter((c) => (REASONS[c] as ReasonDeclaration).unconditional === true));

/** One failed check of a clip: its code and, in words with the figures, why. */
export const ClipReason = z.object({ code: ClipCode, message: z.string() });
export type ClipReason = z.infer<typeof ClipReason>;

/** One clip's analysis and verdict. */
export const ClipAnalysis = z.object({
  /** The clip file's SHA-256 when the caller knows it (report.json, verify --clips); absent from measurePair's own result. */
  sha256: z.string().optional(),
  valid: z.boolean(),
  /** Valid by InferenceX's unconditional checks alone (no reason among {@link UNCONDITIONAL_CLIP_CODES}). */
  unconditional_valid: z.boolean(),
  reasons: z.array(ClipReason),
  video: ClipVideo,
  /** null: the clip has no audio stream. */
  audio: ClipAudio.nullable(),
});
export type ClipAnalysis = z.infer<typeof ClipAnalysis>;

/** Counts by code in the order the clip catalogue declares its codes (ClipCode), other codes after them in alphabetical order. */
export function byClipOrder(counts: Readonly<Record<string, number>>): Record<string, number> {
  const order = ClipCode.options as readonly string[];
  const rank = (code: string): number => (order.includes(code) ? order.indexOf(code) : order.length);
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * One clip analysed on its own ({@link analyseClip}): its analysis, or why it could not be decoded
 * (a reason code such as UNDECODABLE or MEDIA_PLAN_MISMATCH, and a message).
 */
export const ClipOutcome = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), clip: ClipAnalysis }),
  z.object({ ok: z.literal(false), failure: z.object({ code: z.string(), message: z.string() }) }),
]);
export type ClipOutcome = z.infer<typeof ClipOutcome>;

/**
 * A clip that none of a command's measured pairs analysed (its partner failed, the pair was refused,
 * it has no partner), analysed on its own (docs/metrics.md, "Clip validity"); by its sealed SHA-256,
 * since an analysis depends only on the file's bytes and the plan. A shard's partial.json lists them
 * (`clips`, docs/scale-out.md).
 */
export const AnalysedClip = z.object({
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  outcome: ClipOutcome,
});
export type AnalysedClip = z.infer<typeof AnalysedClip>;

/** Both clips of a pair. */
export const PairClips = z.object({ baseline: ClipAnalysis, candidate: ClipAnalysis });
export type PairClips = z.infer<typeof PairClips>;

/**
 * Whether a clip passes InferenceX's unconditional checks (timestamps, corrupt frames, stable
 * geometry, non-empty and continuous audio): the clips InferenceX itself would accept into
 * `compare_media` whatever its caller's expectations.
 */
export function isUnconditionallyValid(clip: Pick<ClipAnalysis, 'reasons'>): boolean {
  return !clip.reasons.some((r) => UNCONDITIONAL_CLIP_CODES.includes(r.code));
}
