/**
 * Whether a file's media are what the frozen plan says they are (plan.json
 * `video`: width, height, fps, frames; `audio`: sample_rate, channels), from
 * the probe alone (media/probe.ts), before any frame is decoded. The pair
 * checks (compat.ts) compare the two files with each other; this compares
 * each file with the plan, so that two runs that agree with each other but
 * not with the workload they claim to have run are not measured as if they
 * had (docs/media.md, "Media against the plan").
 *
 * How each field compares:
 * - width, height: the video stream's coded size, exactly;
 * - frames: the frames the decoder will show (the probe's shown packets: edit
 *   lists applied), exactly. The plan always states `frames` (plan.json has
 *   no duration form), so there is no duration to convert;
 * - fps: the rate the frame timestamps give, (frames - 1) / (last - first
 *   timestamp), an exact rational. The plan's `fps` is a JSON number (24,
 *   23.976, 29.97), so it conforms when it lies within FPS_SLACK of the rates
 *   the timestamps allow: each timestamp is exact only to one time-base tick,
 *   so the span is known to one tick either way. A single frame has no rate:
 *   fps is then not compared (frames is);
 * - sample_rate, channels: the audio stream's, exactly; a file without an
 *   audio stream differs from the plan on both (media value null);
 * - audio_duration: the longest the container says the audio lasts (its
 *   stated duration, its packets' span and summed durations, a PCM index's
 *   sample count over the rate) may exceed the plan's duration, frames / fps,
 *   by at most AUDIO_SLACK_SECONDS: a plan-sized picture cannot carry hours
 *   of audio into a decode. Audio shorter than planned is the clip checks'
 *   (CLIP_AV_SKEW), not this check's.
 */
import type { ClipReason } from '../schemas/clip.js';
import type { FailureSide, FieldMismatch, MeasureFailure, PlanField, PlanMismatch } from '../schemas/measurement.js';
import type { PlanJson } from '../schemas/run-archive.js';
import type { MediaProbe, Rational, VideoProbe } from './probe.js';
import { counted } from '../words.js';

/** The part of plan.json a file's media are checked against (the A/V skew limits only by the clip checks of clip validity). */
export type MediaPlanSpec = Pick<PlanJson, 'video' | 'audio'> & Partial<Pick<PlanJson, 'max_av_start_skew_seconds' | 'max_av_end_skew_seconds'>>;

/**
 * How far (in frames per second) the plan's `fps` may be from the rates the
 * timestamps allow: room for a plan that writes 23.976 for 24000/1001 (2.4e-5
 * away) or 29.97 for 30000/1001, and far below the 0.024 between 24 and
 * 23.976, so a pulldown rate never passes for a whole one. Write such rates
 * with at least three decimals (23.98 is 0.004 away and does not conform).
 */
export const FPS_SLACK = 0.001;

/**
 * How much longer than the plan's duration the audio may say it lasts, in seconds: the encoder's
 * priming and padding counted in its packets (AAC: up to 2112 + 1024 samples and a frame, about 0.5 s
 * at 8 kHz) and a muxer's last audio frame past the video's end, with room to spare.
 */
export const AUDIO_SLACK_SECONDS = 1;

/** The fields in the order they are checked and named. */
export const PLAN_FIELDS: readonly PlanField[] = ['width', 'height', 'fps', 'frames', 'sample_rate', 'channels', 'audio_duration'];

/** The plan's duration in seconds: its frames at its rate. */
export function planSeconds(plan: MediaPlanSpec): number {
  return plan.video.frames / plan.video.fps;
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a < 0n ? -a : a;
}

/**
 * The frame rate the timestamps give: (frames - 1) over the span from the
 * first to the last frame, reduced; null for a single frame (or a span of 0).
 */
export function timestampFrameRate(v: Pick<VideoProbe, 'pts' | 'timeBase'>): Rational | null {
  const n = v.pts.length;
  if (n < 2) return null;
  const span = BigInt(v.pts[n - 1]!) - BigInt(v.pts[0]!);
  if (span <= 0n) return null;
  // (n - 1) / (span * num / den) = (n - 1) * den / (span * num)
  const num = BigInt(n - 1) * BigInt(v.timeBase.den);
  const den = span * BigInt(v.timeBase.num);
  const g = gcd(num, den);
  return { num: Number(num / g), den: Number(den / g) };
}

/** Whether the plan's fps lies within FPS_SLACK of the rates a span known to one tick allows. */
function fpsConforms(v: Pick<VideoProbe, 'pts' | 'timeBase'>, planFps: number): boolean {
  const n = v.pts.length;
  const tick = v.timeBase.num / v.timeBase.den;
  const span = (v.pts[n - 1]! - v.pts[0]!) * tick;
  const lo = (n - 1) / (span + tick);
  const hi = span > tick ? (n - 1) / (span - tick) : Infinity;
  return planFps >= lo - FPS_SLACK && planFps <= hi + FPS_SLACK;
}

/** Every field where one file's media differ from the plan, in PLAN_FIELDS order; empty when it conforms. */
export function planFieldMismatches(probe: Pick<MediaProbe, 'video' | 'audio'>, plan: MediaPlanSpec): FieldMismatch[] {
  const out: FieldMismatch[] = [];
  const v = probe.video;
  if (v) {
    if (v.width !== plan.video.width) out.push({ field: 'width', plan: plan.video.width, media: v.width });
    if (v.height !== plan.video.height) out.push({ field: 'height', plan: plan.video.height, media: v.height });
    const rate = timestampFrameRate(v);
    if (rate && !fpsConforms(v, plan.video.fps)) out.push({ field: 'fps', plan: plan.video.fps, media: rate.num / rate.den });
    if (v.frames !== plan.video.frames) out.push({ field: 'frames', plan: plan.video.frames, media: v.frames });
  }
  const a = probe.audio;
  if (!a || a.sampleRate !== plan.audio.sample_rate) out.push({ field: 'sample_rate', plan: plan.audio.sample_rate, media: a ? a.sampleRate : null });
  if (!a || a.channels !== plan.audio.channels) out.push({ field: 'channels', plan: plan.audio.channels, media: a ? a.channels : null });
  const planned = planSeconds(plan);
  if (a && typeof a.listedSeconds === 'number' && a.listedSeconds > planned + AUDIO_SLACK_SECONDS) out.push({ field: 'audio_duration', plan: planned, media: a.listedSeconds });
  return out;
}

const UNITS: Record<PlanField, string> = { width: ' px', height: ' px', fps: ' fps', frames: '', sample_rate: ' Hz', channels: '', audio_duration: ' s' };

/**
 * A frame rate as every text shows it (messages, the CLI, the pages; the plan's and the media's
 * alike): up to 6 decimals (24, 23.976024), since a rate from timestamps has a long tail of digits;
 * but a rate that 6 decimals would round to 0 (a plan's `fps: 1e-300`) in 6 significant digits
 * instead (1e-300), so a nonzero rate never reads as 0.
 *
 * @example planFpsText(24000 / 1001) === '23.976024'; planFpsText(1e-300) === '1e-300'
 */
export function planFpsText(fps: number): string {
  const rounded = Number(fps.toFixed(6));
  return rounded === 0 && fps !== 0 ? String(Number(fps.toPrecision(6))) : String(rounded);
}

/**
 * A value as the messages show it: fps by {@link planFpsText}, an audio duration in seconds to 3
 * decimals, the rest as integers; null is "none" (no audio stream).
 */
export function planValueText(field: PlanField, value: number | null): string {
  if (value === null) return 'none';
  const shown = field === 'fps' ? planFpsText(value) : field === 'audio_duration' ? String(Number(value.toFixed(3))) : String(value);
  return `${shown}${UNITS[field]}`;
}

/** "width 640 px (plan 1344 px), frames 96 (plan 192)": the media's value first, the plan's beside it. */
export function describeFieldMismatches(list: readonly FieldMismatch[]): string {
  const plan = (x: FieldMismatch): string => (x.field === 'audio_duration' ? `plan ${planValueText(x.field, x.plan)} + ${AUDIO_SLACK_SECONDS} s at most` : `plan ${planValueText(x.field, x.plan)}`);
  return list.map((x) => `${x.field} ${planValueText(x.field, x.media)} (${plan(x)})`).join(', ');
}

/** "1344x768, 24 fps, 192 frames; 32000 Hz, 2 channels": the plan's media spec in one line. */
export function describePlanSpec(plan: MediaPlanSpec): string {
  const v = plan.video;
  const a = plan.audio;
  return `${v.width}x${v.height}, ${planFpsText(v.fps)} fps, ${counted(v.frames, 'frame')}; ${a.sample_rate} Hz, ${counted(a.channels, 'channel')}`;
}

/**
 * MEDIA_PLAN_MISMATCH when either file's media differ from the plan, naming
 * the side (`both` when both do), every field, the plan's value and the
 * media's; null when both conform.
 */
export function checkPlanConformance(baseline: MediaProbe, candidate: MediaProbe, plan: MediaPlanSpec): MeasureFailure | null {
  const sides = [
    ['baseline', planFieldMismatches(baseline, plan)],
    ['candidate', planFieldMismatches(candidate, plan)],
  ] as const;
  const off = sides.filter(([, list]) => list.length > 0);
  if (off.length === 0) return null;
  const side: FailureSide = off.length === 2 ? 'both' : off[0]![0];
  const mismatches: PlanMismatch[] = off.flatMap(([s, list]) => list.map((x) => ({ side: s, ...x })));
  // Short enough for the verdict line: the fields once when both sides differ alike (clips made the same way), else per side.
  const alike = off.length === 2 && describeFieldMismatches(off[0]![1]) === describeFieldMismatches(off[1]![1]);
  const parts = alike ? [describeFieldMismatches(off[0]![1])] : off.map(([s, list]) => `${off.length === 2 ? `${s} ` : ''}${describeFieldMismatches(list)}`);
  const who = side === 'both' ? (alike ? "Both sides' media differ alike" : "Both sides' media differ") : `The ${side}'s media differ`;
  return { code: 'MEDIA_PLAN_MISMATCH', message: `${who} from the plan: ${parts.join('; ')}`, side, plan_mismatches: mismatches };
}

/**
 * The fields where a clip's own analysis (its figures, not its probe) differs from the plan: width,
 * height, frames, audio presence, sample rate, channels. The frame rate is not among them (it comes
 * from the probe's exact timestamps, which an analysis does not keep). Merge holds a partial's clip
 * verdicts to these.
 */
export function analysisPlanMismatches(clip: { video: { width: number; height: number; frame_count: number }; audio: { sample_rate: number; channel_count: number } | null }, plan: MediaPlanSpec): FieldMismatch[] {
  const out: FieldMismatch[] = [];
  const v = clip.video;
  if (v.width !== plan.video.width) out.push({ field: 'width', plan: plan.video.width, media: v.width });
  if (v.height !== plan.video.height) out.push({ field: 'height', plan: plan.video.height, media: v.height });
  if (v.frame_count !== plan.video.frames) out.push({ field: 'frames', plan: plan.video.frames, media: v.frame_count });
  const a = clip.audio;
  if (!a || a.sample_rate !== plan.audio.sample_rate) out.push({ field: 'sample_rate', plan: plan.audio.sample_rate, media: a ? a.sample_rate : null });
  if (!a || a.channel_count !== plan.audio.channels) out.push({ field: 'channels', plan: plan.audio.channels, media: a ? a.channel_count : null });
  return out;
}

/**
 * The one judgement of a clip against the plan, whichever command asks (verify --clips, compare,
 * merge, calibrate, power through the report): a clip whose media differ from the plan in any field
 * it states (width, height, fps, frames, audio presence, sample rate, channels) is invalid with
 * `MEDIA_PLAN_MISMATCH`, its first reason. null when the clip conforms.
 *
 * @example clipPlanReason(planFieldMismatches(probe, plan)) // { code: 'MEDIA_PLAN_MISMATCH', message: "the clip's media differ from the plan: frames 33 (plan 36)" }
 */
export function clipPlanReason(mismatches: readonly FieldMismatch[], note = ''): ClipReason | null {
  if (mismatches.length === 0) return null;
  return { code: 'MEDIA_PLAN_MISMATCH', message: `the clip's media differ from the plan: ${describeFieldMismatches(mismatches)}${note}` };
}
