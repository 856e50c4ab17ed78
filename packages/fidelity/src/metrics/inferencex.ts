/**
 * InferenceX's own figures, field for field (docs/metrics.md, "InferenceX's own figures"): the metric
 * dict its `compare_media` (evaluator v1.0.0, `vgbench.cpu_media`) returns for a pair, made from the
 * sums this library's kernels already computed in the pair's one pass (the pooled rgb24 figures of
 * the video accumulator, the per-channel sums of the audio accumulator, the probes' timestamps).
 * Nothing here decodes or measures again.
 *
 * Where this library has a value and InferenceX a null (identical video, a silent baseline, an
 * all-zero spectrum), the figure here is InferenceX's null: a user holding its exports must read the
 * same numbers.
 */
import type { InferencexFigures, InferencexMetrics, InferencexTemplate } from '../schemas/measurement.js';
import type { AudioChannelSums } from './audio-channel.js';
import { rmsOf, SILENCE_RMS } from './audio-channel.js';

/** A time base or any exact rational. */
export interface Ratio {
  num: number;
  den: number;
}

/** Each clip's validity by the unconditional checks alone: true when it passes all of them. */
export interface ClipValidity {
  baseline: boolean;
  candidate: boolean;
}

/**
 * The metric dict of a pair InferenceX refuses, exactly as its `compare_media` (evaluator v1.0.0)
 * returns it: its 13 template keys, figures and `video_identical` null, counts and
 * `audio_channel_count` 0, `video_sample_coverage_fraction` 0.0, lists empty, and no other key (no
 * alignment deltas, sample counts, RMSE or newly silent channels, window count).
 */
export function inferencexTemplate(): InferencexTemplate {
  return {
    video_mae: null,
    video_psnr_db: null,
    video_identical: null,
    video_compared_frames: 0,
    video_total_frames: 0,
    video_sample_coverage_fraction: 0,
    audio_waveform_mae: null,
    audio_spectral_cosine: null,
    audio_rms_ratio: null,
    audio_rms_ratio_channels: [],
    audio_spectral_cosine_channels: [],
    audio_waveform_mae_channels: [],
    audio_channel_count: 0,
  };
}

/** Every key of an accepted pair's dict before its figures are filled in (inferencexFigures sets each it has). */
function unfilled(): InferencexMetrics {
  return {
    video_mae: null,
    video_psnr_db: null,
    video_identical: null,
    video_compared_frames: 0,
    video_total_frames: 0,
    video_sample_coverage_fraction: null,
    video_max_alignment_delta_seconds: null,
    audio_channel_count: 0,
    audio_compared_samples_per_channel: 0,
    audio_sample_coverage_fraction: null,
    audio_max_alignment_delta_seconds: null,
    audio_waveform_mae: null,
    audio_waveform_mae_channels: [],
    audio_waveform_rmse_channels: [],
    audio_identical: null,
    audio_rms_ratio: null,
    audio_rms_ratio_channels: [],
    audio_spectral_cosine: null,
    audio_spectral_cosine_channels: [],
    audio_spectral_windows: 0,
    audio_newly_silent_channels: [],
  };
}

/** `{ compatible: false }` with the template: what InferenceX returns for a pair it refuses. */
export function inferencexRefused(): InferencexFigures {
  return { compatible: false, metrics: inferencexTemplate() };
}

/**
 * The figures with the clips' validity applied: a clip invalid by InferenceX's unconditional checks
 * on either side makes the pair incompatible (the template), whatever was measured.
 */
export function withClipValidity(figures: InferencexFigures, validity: ClipValidity): InferencexFigures {
  return validity.baseline && validity.candidate ? figures : inferencexRefused();
}

/** |x - y| in seconds for x = px * tx and y = py * ty, computed exactly and rounded once. */
export function exactDeltaSeconds(px: number, tx: Ratio, py: number, ty: Ratio): number {
  const num = BigInt(px) * BigInt(tx.num) * BigInt(ty.den) - BigInt(py) * BigInt(ty.num) * BigInt(tx.den);
  return ratioToNumber(num < 0n ? -num : num, BigInt(tx.den) * BigInt(ty.den));
}

/** The largest |a[i] * ta - b[i] * tb| over i, compared exactly, rounded once; null for no frame. */
export function maxDeltaSeconds(a: readonly number[], ta: Ratio, b: readonly number[], tb: Ratio): number | null {
  const n = Math.min(a.length, b.length);
  if (n === 0) return null;
  // Every difference has the same denominator, so the largest numerator is the largest delta.
  let best = -1n;
  for (let i = 0; i < n; i++) {
    const d = BigInt(a[i]!) * BigInt(ta.num) * BigInt(tb.den) - BigInt(b[i]!) * BigInt(tb.num) * BigInt(ta.den);
    const abs = d < 0n ? -d : d;
    if (abs > best) best = abs;
  }
  return ratioToNumber(best, BigInt(ta.den) * BigInt(tb.den));
}

/** num / den as the nearest double (exact integers below 2^53 divide with one rounding, as Python's float(Fraction)). */
function ratioToNumber(num: bigint, den: bigint): number {
  if (num === 0n) return 0;
  const LIMIT = 1n << 53n;
  if (num < LIMIT && den < LIMIT) return Number(num) / Number(den);
  // Larger terms: scale to 60 significant bits of quotient first (beyond anything a media timestamp needs).
  const shift = 60n;
  return Number((num << shift) / den) / 2 ** 60;
}

/** What the video side of a measured pair gives InferenceX's figures. */
export interface InferencexVideoInput {
  /** Pooled rgb24 MAE and PSNR (VideoMetrics.mae, psnr_db: null when every rgb24 sample is equal). */
  mae: number;
  psnrDb: number | null;
  frames: number;
  /** The largest |PTS difference| of a compared frame pair in seconds ({@link maxDeltaSeconds}). */
  maxAlignmentDeltaSeconds: number | null;
}

/** What the audio side gives: each channel's sums (AudioAccumulator.sums) and the start difference in seconds. */
export interface InferencexAudioInput {
  sums: readonly AudioChannelSums[];
  /** |baseline start - candidate start| in seconds; null when a side's start is unknown. */
  maxAlignmentDeltaSeconds: number | null;
}

const clampCosine = (c: number): number => (c < 0 ? 0 : c > 1 ? 1 : c);

/**
 * `compare_media`'s dict for a pair it accepts, from this library's sums. `audio` is null when
 * neither file has audio. `compatible` is true here: refusals are decided by the caller (the
 * probes' facts, and {@link withClipValidity} for the clips).
 */
export function inferencexFigures(video: InferencexVideoInput, audio: InferencexAudioInput | null): Extract<InferencexFigures, { compatible: true }> {
  const metrics = unfilled();
  metrics.video_mae = video.mae;
  metrics.video_psnr_db = video.psnrDb;
  metrics.video_identical = video.psnrDb === null;
  metrics.video_compared_frames = video.frames;
  metrics.video_total_frames = video.frames;
  metrics.video_sample_coverage_fraction = video.frames === 0 ? null : video.frames / video.frames;
  metrics.video_max_alignment_delta_seconds = video.maxAlignmentDeltaSeconds;
  if (audio && audio.sums.length > 0) {
    const sums = audio.sums;
    const n = sums[0]!.samples;
    metrics.audio_channel_count = sums.length;
    metrics.audio_compared_samples_per_channel = n;
    metrics.audio_sample_coverage_fraction = n === 0 ? null : n / n;
    metrics.audio_max_alignment_delta_seconds = audio.maxAlignmentDeltaSeconds;
    let sumAbs = 0;
    let energyA = 0;
    let energyB = 0;
    for (const s of sums) {
      sumAbs += s.sumAbsDiff;
      energyA += s.energyA;
      energyB += s.energyB;
    }
    metrics.audio_waveform_mae = n === 0 ? null : sumAbs / (sums.length * n);
    metrics.audio_waveform_mae_channels = sums.map((s) => (s.samples === 0 ? null : s.sumAbsDiff / s.samples));
    metrics.audio_waveform_rmse_channels = sums.map((s) => (s.samples === 0 ? null : Math.sqrt(s.sumSqDiff / s.samples)));
    metrics.audio_identical = sums.every((s) => s.sumSqDiff === 0);
    metrics.audio_rms_ratio = energyA === 0 ? null : Math.sqrt(energyB / energyA);
    metrics.audio_rms_ratio_channels = sums.map((s) => (s.energyA === 0 ? null : Math.sqrt(s.energyB / s.energyA)));
    const cosines = sums.map(({ spectral: c }) => (c.aa === 0 || c.bb === 0 ? null : clampCosine(c.ab / Math.sqrt(c.aa * c.bb))));
    metrics.audio_spectral_cosine_channels = cosines;
    metrics.audio_spectral_cosine = cosines.some((c) => c === null) ? null : Math.min(...(cosines as number[]));
    metrics.audio_spectral_windows = sums[0]!.spectral.windows;
    metrics.audio_newly_silent_channels = sums.flatMap((s, c) => (rmsOf(s.energyA, s.samples) > SILENCE_RMS && rmsOf(s.energyB, s.samples) <= SILENCE_RMS ? [c] : []));
  }
  return { compatible: true, metrics };
}
