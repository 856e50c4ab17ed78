/**
 * What merge can check about a shard's measurement of a pair without
 * measuring it again (docs/scale-out.md, "Trust"):
 * - it agrees with itself: every figure in its range, one per-frame value per
 *   frame, every aggregate exactly what the per-frame series (or the audio
 *   channels) give by the very functions that computed them, the fields of
 *   the metric set present and no others, the temporal offset diagnosis's
 *   offsets, sampled frames, means and choice what its per-frame values give;
 * - it agrees with the media: the facts merge's own probe finds (frame count,
 *   size, audio layout and samples; whether the pair is comparable at all).
 * Each check returns what is wrong, in words that name the field; the caller
 * names the partial and the pair.
 */
import { judgeClip } from '../metrics/clip-checks.js';
import { analysisPlanMismatches, clipPlanReason, type MediaPlanSpec } from '../media/plan-conformance.js';
import { clipAnalysisProblems, type ClipContext } from './check-clips.js';
import type { ClipExpectations } from '../metrics/clip-checks.js';
import type { ClipAnalysis } from '../schemas/clip.js';
import { worstRmsRatio } from '../metrics/audio.js';
import { inferencexTemplate } from '../metrics/inferencex.js';
import type { MetricSelection } from '../metrics/names.js';
import { summarizePsnr, summarizeSsim } from '../metrics/series.js';
import { canSearch, carryTolerance, offsetSearchPlan, temporalOffsetOf } from '../metrics/temporal-offset.js';
import type { PairFacts } from '../pool/probe-pair.js';
import { MeasureFailureCodes } from '../pool/api.js';
import type { AudioMetrics, InferencexFigures, MeasureOutcome, PairMeasurement, PsnrSeries, SsimSeries, VideoMetrics } from '../schemas/measurement.js';

const PEAK2 = 255 * 255;
/** Room for the last bit of a logarithm computed on another machine's libm. */
const SLACK = 1 + 1e-12;

const shown = (v: unknown): string => (typeof v === 'number' ? String(v) : JSON.stringify(v));

/** Failures measuring can only find after the probes agreed: a decoder that broke or ran out of time. */
const DECODE_TIME_CODES = new Set(['UNDECODABLE', 'DECODE_TIMEOUT']);
const FAILURE_CODES: ReadonlySet<string> = new Set(MeasureFailureCodes);

/** The SSIM series' problems: values in [-1, 1], one per frame, aggregates from summarizeSsim. */
function ssimProblems(name: string, s: SsimSeries, frames: number, out: string[]): void {
  if (s.per_frame.length !== frames) {
    out.push(`${name}.per_frame has ${s.per_frame.length} values; the pair has ${frames} frames`);
    return;
  }
  const bad = s.per_frame.findIndex((v) => !(Number.isFinite(v) && v >= -1 && v <= 1));
  if (bad >= 0) {
    out.push(`${name}.per_frame[${bad}] = ${shown(s.per_frame[bad])} is not an SSIM (-1 to 1)`);
    return;
  }
  const derived = summarizeSsim(s.per_frame);
  for (const key of ['min', 'mean', 'p05', 'max', 'worst_frame', 'harmonic_mean'] as const) {
    if (s[key] !== derived[key]) {
      out.push(`${name}.${key} is ${shown(s[key])}, but its per-frame series gives ${shown(derived[key])}`);
      return;
    }
  }
}

/** PSNR on Y: null (identical) or 0 to the largest PSNR a frame of this size can have; aggregates from summarizePsnr. */
function psnrProblems(name: string, s: PsnrSeries, v: VideoMetrics, out: string[]): void {
  if (s.per_frame.length !== v.frames) {
    out.push(`${name}.per_frame has ${s.per_frame.length} values; the pair has ${v.frames} frames`);
    return;
  }
  const max = 10 * Math.log10(PEAK2 * v.width * v.height) * SLACK;
  const bad = s.per_frame.findIndex((x) => x !== null && !(Number.isFinite(x) && x >= 0 && x <= max));
  if (bad >= 0) {
    out.push(`${name}.per_frame[${bad}] = ${shown(s.per_frame[bad])} is not a PSNR of a ${v.width}x${v.height} frame (0 to ${max.toFixed(2)} dB, or null)`);
    return;
  }
  const derived = summarizePsnr(s.per_frame);
  for (const key of ['min', 'mean', 'p05', 'max', 'worst_frame', 'identical_frames'] as const) {
    if (s[key] !== derived[key]) {
      out.push(`${name}.${key} is ${shown(s[key])}, but its per-frame series gives ${shown(derived[key])}`);
      return;
    }
  }
}

/**
 * The temporal offset diagnosis (metrics/temporal-offset.ts): present exactly when the video differs and
 * the stream can be searched; the offsets and sampled frames those of the stream's length; every SSIM in
 * [-1, 1]; the means and the choice exactly what its per-frame values give; offset 0 within
 * carryTolerance of the pair's own `ssim_ffmpeg` Y of the sampled frames when the set computed it (the
 * same kernel on the same planes; only the metric's line buffers, carried from frame to frame, move the
 * last float bits). Without `ssim_ffmpeg` offset 0 is checked against nothing: no other metric is that SSIM.
 */
function temporalOffsetProblems(v: VideoMetrics, out: string[]): void {
  const t = v.temporal_offset;
  const plan = canSearch(v.width, v.height, v.frames) ? offsetSearchPlan(v.frames) : null;
  if (!t) {
    if (!v.identical && plan) out.push('video.temporal_offset is missing, though the video differs and its frames can be searched');
    return;
  }
  if (v.identical) return void out.push('video.temporal_offset is present, though the video is identical');
  if (!plan) return void out.push(`video.temporal_offset is present, though ${v.frames} frames of ${v.width}x${v.height} cannot be searched`);
  const { offsets, sampled_frames: sampled, ssim_by_frame: rows } = t.searched;
  if (JSON.stringify(offsets) !== JSON.stringify(plan.offsets)) return void out.push(`video.temporal_offset.searched.offsets is ${shown(offsets)}; ${v.frames} frames search ${shown(plan.offsets)}`);
  if (JSON.stringify(sampled) !== JSON.stringify(plan.sampled)) return void out.push(`video.temporal_offset.searched.sampled_frames is ${shown(sampled)}; ${v.frames} frames sample ${shown(plan.sampled)}`);
  if (rows.length !== sampled.length || rows.some((r) => r.length !== offsets.length)) {
    return void out.push(`video.temporal_offset.searched.ssim_by_frame is not ${sampled.length} rows of ${offsets.length} values`);
  }
  const bad = rows.flat().find((x) => !(Number.isFinite(x) && x >= -1 && x <= 1));
  if (bad !== undefined) return void out.push(`video.temporal_offset.searched.ssim_by_frame holds ${shown(bad)}, which is not an SSIM (-1 to 1)`);
  const derived = temporalOffsetOf(offsets, sampled, rows);
  for (const key of ['frames', 'ssim_mean_at_offset', 'ssim_mean_at_zero'] as const) {
    if (t[key] !== derived[key]) return void out.push(`video.temporal_offset.${key} is ${shown(t[key])}, but its per-frame values give ${shown(derived[key])}`);
  }
  if (JSON.stringify(t.searched.ssim_means) !== JSON.stringify(derived.searched.ssim_means)) {
    return void out.push(`video.temporal_offset.searched.ssim_means is ${shown(t.searched.ssim_means)}, but its per-frame values give ${shown(derived.searched.ssim_means)}`);
  }
  const y = v.ssim_ffmpeg?.y.per_frame;
  if (!y) return;
  const zero = offsets.indexOf(0);
  const tolerance = carryTolerance(v.height);
  const off = sampled.findIndex((n, i) => !(Math.abs(rows[i]![zero]! - y[n]!) <= tolerance));
  if (off >= 0) {
    const n = sampled[off]!;
    out.push(`video.temporal_offset: frame ${n} at offset 0 is ${shown(rows[off]![zero])}, but video.ssim_ffmpeg.y.per_frame has ${shown(y[n])} (more than ${tolerance.toExponential(2)} apart)`);
  }
}

function videoProblems(v: VideoMetrics, metrics: MetricSelection, out: string[]): void {
  if (!(v.width >= 1 && v.height >= 1 && v.frames >= 1)) {
    out.push(`video is ${v.width}x${v.height}, ${v.frames} frames`);
    return;
  }
  const chosen = new Set<string>(metrics.list);
  for (const field of ['ssim', 'ssim_ffmpeg', 'ssim_rgb7', 'psnr_y', 'psnr_db', 'mae'] as const) {
    if ((v[field] !== undefined) !== chosen.has(field)) {
      out.push(`video.${field} is ${v[field] === undefined ? 'missing, though the metric set computes it' : 'present, though the metric set does not compute it'}`);
    }
  }
  if (v.ssim) ssimProblems('video.ssim', v.ssim, v.frames, out);
  if (v.ssim_rgb7) ssimProblems('video.ssim_rgb7', v.ssim_rgb7, v.frames, out);
  if (v.ssim_ffmpeg) for (const plane of ['y', 'u', 'v', 'all'] as const) ssimProblems(`video.ssim_ffmpeg.${plane}`, v.ssim_ffmpeg[plane], v.frames, out);
  if (v.psnr_y) psnrProblems('video.psnr_y', v.psnr_y, v, out);
  // Pooled over every rgb24 sample of every frame: at most the PSNR of one sample off by one level.
  const pooledMax = 10 * Math.log10(PEAK2 * 3 * v.width * v.height * v.frames) * SLACK;
  if (v.psnr_db !== undefined && v.psnr_db !== null && !(Number.isFinite(v.psnr_db) && v.psnr_db >= 0 && v.psnr_db <= pooledMax)) {
    out.push(`video.psnr_db = ${shown(v.psnr_db)} is not a pooled PSNR of ${v.frames} ${v.width}x${v.height} frames (0 to ${pooledMax.toFixed(2)} dB, or null)`);
  }
  if (v.mae !== undefined && !(Number.isFinite(v.mae) && v.mae >= 0 && v.mae <= 1)) out.push(`video.mae = ${shown(v.mae)} is not a normalised MAE (0 to 1)`);
  // psnr_db and mae are both sums over the same rgb24 samples: no difference means both say so.
  if (v.psnr_db !== undefined && v.mae !== undefined && (v.psnr_db === null) !== (v.mae === 0)) out.push(`video.psnr_db is ${shown(v.psnr_db)} but video.mae is ${shown(v.mae)}: one says the samples are identical, the other not`);
  temporalOffsetProblems(v, out);
  if (v.identical) {
    if (v.psnr_db !== undefined && v.psnr_db !== null) out.push(`video.identical is true but video.psnr_db is ${shown(v.psnr_db)}`);
    if (v.psnr_y && v.psnr_y.identical_frames !== v.frames) out.push(`video.identical is true but video.psnr_y counts ${v.psnr_y.identical_frames} of ${v.frames} frames identical`);
  }
}

function audioProblems(a: AudioMetrics, out: string[]): void {
  if (!(Number.isInteger(a.sample_rate) && a.sample_rate >= 1) || a.channels.length === 0) {
    out.push(`audio has sample rate ${a.sample_rate} and ${a.channels.length} channels`);
    return;
  }
  const finite = (x: number, min: number, max = Number.MAX_VALUE) => Number.isFinite(x) && x >= min && x <= max;
  for (const [i, c] of a.channels.entries()) {
    const at = `audio.channels[${i}]`;
    const bad: string[] = [];
    if (c.channel !== i) bad.push(`channel ${c.channel}`);
    if (c.samples !== a.channels[0]!.samples) bad.push(`${c.samples} samples where channel 0 has ${a.channels[0]!.samples}`);
    for (const key of ['max_abs_diff', 'mae', 'rmse', 'baseline_peak', 'candidate_peak'] as const) if (!finite(c[key], 0)) bad.push(`${key} = ${shown(c[key])}`);
    const similarities = { pearson: c.pearson, spectral_cosine: c.spectral_cosine };
    for (const [key, v] of Object.entries(similarities)) if (!finite(v, -1, 1)) bad.push(`${key} = ${shown(v)}`);
    if (c.snr_db !== null && !Number.isFinite(c.snr_db)) bad.push(`snr_db = ${shown(c.snr_db)}`);
    if (c.rms_ratio !== null && !finite(c.rms_ratio, 0)) bad.push(`rms_ratio = ${shown(c.rms_ratio)}`);
    // mean |d| <= sqrt(mean d^2) <= max |d|, whatever the samples.
    if (c.mae > c.rmse * SLACK + 1e-12 || c.rmse > c.max_abs_diff * SLACK + 1e-12) bad.push(`mae ${c.mae}, rmse ${c.rmse} and max_abs_diff ${c.max_abs_diff} cannot all hold`);
    if (c.identical && (c.max_abs_diff !== 0 || c.snr_db !== null)) bad.push('identical, with a difference');
    // The lag is not estimated exactly when a side is all zeros (a peak of 0), and is then 0.
    const silent = c.baseline_peak === 0 && c.candidate_peak === 0 ? 'both_silent' : c.baseline_peak === 0 ? 'baseline_silent' : c.candidate_peak === 0 ? 'candidate_silent' : undefined;
    if (c.lag_estimate_reason !== silent) bad.push(`lag_estimate_reason ${c.lag_estimate_reason ?? 'absent'} where the peaks give ${silent ?? 'absent'}`);
    if (silent && c.lag_estimate_samples !== 0) bad.push(`lag_estimate_samples ${c.lag_estimate_samples} of a silent side`);
    if (bad.length) out.push(`${at}: ${bad.join('; ')}`);
  }
  // The pair's figures are its worst channel's, computed exactly as the measuring computed them (metrics/audio.ts).
  const worst = worstRmsRatio(a.channels);
  const derived = {
    spectral_cosine: Math.min(...a.channels.map((c) => c.spectral_cosine)),
    rms_ratio: worst.rms_ratio,
    rms_ratio_channel: worst.channel,
    identical: a.channels.every((c) => c.identical),
    newly_silent_channels: a.channels.filter((c) => c.newly_silent).map((c) => c.channel),
  };
  for (const [key, value] of Object.entries(derived)) {
    const given = (a as Record<string, unknown>)[key];
    if (key === 'rms_ratio_channel' && given === undefined) continue;
    if (JSON.stringify(given) !== JSON.stringify(value)) {
      out.push(`audio.${key} is ${shown(given)}, but its channels give ${shown(value)}`);
      return;
    }
  }
}

/** Why a measurement contradicts itself or its metric set; empty when it does not. */
export function measurementProblems(m: PairMeasurement, metrics: MetricSelection): string[] {
  const out: string[] = [];
  videoProblems(m.video, metrics, out);
  if ((m.audio !== undefined) !== metrics.list.includes('audio')) {
    out.push(`audio is ${m.audio === undefined ? 'missing, though the metric set computes it' : 'present, though the metric set does not compute it'}`);
  }
  if (m.audio) audioProblems(m.audio, out);
  if (m.inferencex) inferencexProblems(m, m.inferencex, out);
  return out;
}

/**
 * InferenceX's figures must be the pair's own (metrics/inferencex.ts makes them from the same sums):
 * the pooled video figures and counts of `video` and `audio` when compatible, the template when not.
 */
function inferencexProblems(m: PairMeasurement, x: InferencexFigures, out: string[]): void {
  if (!x.compatible) {
    if (JSON.stringify(x.metrics) !== JSON.stringify(inferencexTemplate())) out.push('inferencex is not compatible, but its metrics are not the unmeasured template');
    return;
  }
  const given = x.metrics;
  const expected = {
    video_mae: m.video.mae ?? null,
    video_psnr_db: m.video.psnr_db ?? null,
    video_compared_frames: m.video.frames,
    audio_channel_count: m.audio?.channels.length ?? 0,
    audio_compared_samples_per_channel: m.audio?.channels[0]?.samples ?? 0,
  };
  for (const [key, value] of Object.entries(expected)) {
    if ((given as Record<string, unknown>)[key] !== value) out.push(`inferencex.metrics.${key} is ${shown((given as Record<string, unknown>)[key])}, but the pair's own figures give ${shown(value)}`);
  }
}

/** Why a failure outcome cannot be one measuring reports; null when it can. */
export function failureProblem(outcome: MeasureOutcome): string | null {
  if (outcome.ok) return null;
  const code = outcome.failure.code;
  if (!FAILURE_CODES.has(code) || code === 'ABORTED') return `failure code ${JSON.stringify(code)} is not one measuring reports for a pair`;
  return null;
}

/**
 * Where a shard's outcome for a pair contradicts what merge's own probe of
 * the media found; empty when it does not. A pair the probe finds
 * incomparable must carry that very failure; a comparable pair must either be
 * measured with the probe's geometry, frame count and audio layout (and audio sample count where the
 * probe has one: only PCM in MOV lists it), or have
 * failed in a way only decoding finds (UNDECODABLE, DECODE_TIMEOUT).
 */
export function factProblems(outcome: MeasureOutcome, facts: PairFacts): string[] {
  if (!facts.ok) {
    const f = facts.failure;
    if (outcome.ok) return [`the partial has a measurement, but merge's probe of the media finds ${f.code}: ${f.message}`];
    if (outcome.failure.code !== f.code) return [`the partial says ${outcome.failure.code}, but merge's probe of the media finds ${f.code}: ${f.message}`];
    return [];
  }
  if (!outcome.ok) {
    return DECODE_TIME_CODES.has(outcome.failure.code) ? [] : [`the partial says ${outcome.failure.code}, but merge's probe finds the pair comparable`];
  }
  const out: string[] = [];
  const v = outcome.measurement.video;
  const probe = facts.baseline.video!;
  if (v.width !== probe.width || v.height !== probe.height) out.push(`video is ${v.width}x${v.height}; merge's probe of the media finds ${probe.width}x${probe.height}`);
  if (v.frames !== probe.frames) out.push(`video has ${v.frames} frames; merge's probe of the media finds ${probe.frames}`);
  const audio = outcome.measurement.audio;
  const x = facts.baseline.audio;
  if (audio !== undefined) {
    if ((audio === null) !== (x === null)) out.push(`audio is ${audio === null ? 'absent' : 'measured'}; merge's probe finds ${x === null ? 'no audio stream' : 'an audio stream on both sides'}`);
    else if (audio && x) {
      if (audio.sample_rate !== x.sampleRate) out.push(`audio.sample_rate is ${audio.sample_rate}; merge's probe finds ${x.sampleRate} Hz`);
      if (audio.channels.length !== x.channels) out.push(`audio has ${audio.channels.length} channels; merge's probe finds ${x.channels}`);
      // The probe counts samples only where the file's index does (PCM in MOV); otherwise they are counted while
      // decoding (media/probe.ts), which merge does only for the pairs it re-measures.
      const off = x.samples === null ? undefined : audio.channels.find((c) => c.samples !== x.samples);
      if (off) out.push(`audio.channels[${off.channel}].samples is ${off.samples}; merge's probe counts ${x.samples} per channel`);
    }
  }
  return out;
}

/**
 * Where a measurement's clip analyses contradict themselves (docs/scale-out.md): a measured pair
 * has them; each agrees with itself, the merging build and its pair (check-clips.ts); each clip's frame
 * count must be the pair's, and its reasons, `valid` and `unconditional_valid` must be what the
 * clip checks give for its own figures under the plan's expectations, re-derived here as merge
 * re-derives every aggregate from its series. A partial cannot call a black clip valid.
 */
export function clipProblems(m: PairMeasurement, expectations: ClipExpectations, build: Pick<ClipContext, 'countsCorrupt'>): string[] {
  const out: string[] = [];
  // Measuring analyses both clips of every pair it measures: without them the pair's verdict would skip the clip checks.
  if (!m.clips) return ['clips is missing, though the pair was measured'];
  const context: ClipContext = { ...build, pairAudio: m.audio };
  for (const side of ['baseline', 'candidate'] as const) {
    const clip = m.clips[side];
    out.push(...clipAnalysisProblems(`clips.${side}`, clip, context));
    if (clip.video.frame_count !== m.video.frames) out.push(`clips.${side}.video.frame_count is ${clip.video.frame_count}, but the pair has ${m.video.frames} frames`);
    const why = clipJudgementProblem(clip, expectations);
    if (why) out.push(`clips.${side} ${why}`);
  }
  return out;
}

/**
 * Where a clip's judgement (valid, unconditional_valid, reasons) is not what its own figures give under the plan; null when it is.
 * With `plan`, the clip's media against it too (MEDIA_PLAN_MISMATCH first): every field the figures hold is re-derived; a
 * mismatch of the frame rate alone (which only the probe's timestamps give) is taken as the clip states it.
 */
export function clipJudgementProblem(clip: ClipAnalysis, expectations: ClipExpectations, plan?: MediaPlanSpec): string | null {
  const off = plan ? analysisPlanMismatches(clip, plan) : [];
  const stated = clip.reasons[0]?.code === 'MEDIA_PLAN_MISMATCH' ? clip.reasons[0] : null;
  const planReason = stated && (off.length > 0 || /\bfps /.test(stated.message)) ? stated : clipPlanReason(off);
  const derived = judgeClip(clip.video, clip.audio, expectations, planReason);
  const got = JSON.stringify({ valid: clip.valid, unconditional_valid: clip.unconditional_valid, reasons: clip.reasons });
  const want = JSON.stringify({ valid: derived.valid, unconditional_valid: derived.unconditional_valid, reasons: derived.reasons });
  return got === want ? null : `says ${got}, but its figures under the plan give ${want}`;
}
