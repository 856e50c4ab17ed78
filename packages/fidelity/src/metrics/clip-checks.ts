/**
 * The clip checks (docs/metrics.md, "Clip validity"): a clip's figures and the plan's expectations
 * in, its `CLIP_*` reason codes out, in the catalogue's order. InferenceX's unconditional checks
 * (timestamps, corrupt frames, geometry, empty audio, audio continuity) always run; motion and sound
 * run unless the plan says `false`; the rest only when the plan states their figure.
 */
import { ClipCode, isUnconditionallyValid } from '../schemas/clip.js';
import type { ClipAnalysis, ClipAudio, ClipReason, ClipVideo } from '../schemas/clip.js';
import { SILENCE_LEVEL } from './clip-audio.js';
import { FROZEN_MAE } from './clip-video.js';
import { byCount, counted } from '../words.js';

/** What a plan expects of every clip (plan.json's optional fields, docs/run-archive.md). */
export interface ClipExpectations {
  /** The plan's frame rate: frame intervals are checked against 1/fps (CLIP_CADENCE). */
  fps?: number;
  /** Default true: a clip whose frames do not move is invalid (CLIP_NO_MOTION). */
  requires_motion?: boolean;
  /** Default true: a clip whose audio is silent on every channel is invalid (CLIP_SILENT). */
  requires_sound?: boolean;
  max_frozen_fraction?: number;
  max_blank_fraction?: number;
  duration_seconds?: number;
  /** Default 1/fps (the plan's). */
  duration_tolerance_seconds?: number;
  max_av_start_skew_seconds?: number;
  max_av_end_skew_seconds?: number;
}

/** The expectations of a plan (plan.json as its schema reads it): the frame rate and the optional clip fields. */
export function clipExpectationsOf(plan: {
  video: { fps: number; requires_motion?: boolean | undefined; max_frozen_fraction?: number | undefined; max_blank_fraction?: number | undefined; duration_seconds?: number | undefined; duration_tolerance_seconds?: number | undefined };
  audio: { requires_sound?: boolean | undefined };
  max_av_start_skew_seconds?: number | undefined;
  max_av_end_skew_seconds?: number | undefined;
}): ClipExpectations {
  const e: ClipExpectations = { fps: plan.video.fps };
  const v = plan.video;
  if (v.requires_motion !== undefined) e.requires_motion = v.requires_motion;
  if (v.max_frozen_fraction !== undefined) e.max_frozen_fraction = v.max_frozen_fraction;
  if (v.max_blank_fraction !== undefined) e.max_blank_fraction = v.max_blank_fraction;
  if (v.duration_seconds !== undefined) e.duration_seconds = v.duration_seconds;
  if (v.duration_tolerance_seconds !== undefined) e.duration_tolerance_seconds = v.duration_tolerance_seconds;
  if (plan.audio.requires_sound !== undefined) e.requires_sound = plan.audio.requires_sound;
  if (plan.max_av_start_skew_seconds !== undefined) e.max_av_start_skew_seconds = plan.max_av_start_skew_seconds;
  if (plan.max_av_end_skew_seconds !== undefined) e.max_av_end_skew_seconds = plan.max_av_end_skew_seconds;
  return e;
}

const EPS = 1e-9;

/**
 * The cadence tolerance's ceiling, as a share of the nominal frame interval: just under half, so an
 * interval a whole frame off (a dropped or doubled frame) is never within it, whatever the time base.
 */
export const CADENCE_LIMIT_OF_FRAME = 0.5 - 1e-6;

function fmt(x: number, digits = 3): string {
  return Number(x.toFixed(digits)).toString();
}

function percent(x: number): string {
  return `${fmt(100 * x, 1)}%`;
}

/** The failed checks of one clip, in the order ClipCode declares (root cause first), each with its figures in words. */
export function clipReasons(video: ClipVideo, audio: ClipAudio | null, e: ClipExpectations = {}): ClipReason[] {
  const reasons: ClipReason[] = [];
  const add = (code: ClipReason['code'], message: string): void => {
    reasons.push({ code, message });
  };
  const badTimes: string[] = [];
  if (video.missing_timestamps > 0) badTimes.push(`${counted(video.missing_timestamps, 'video frame')} without a timestamp`);
  if (video.nonincreasing_timestamps > 0) badTimes.push(`${counted(video.nonincreasing_timestamps, 'video timestamp')} not after the one before`);
  if (audio && audio.missing_timestamps > 0) badTimes.push(`${counted(audio.missing_timestamps, 'audio frame')} without a timestamp`);
  if (audio && audio.nonincreasing_timestamps > 0) badTimes.push(`${counted(audio.nonincreasing_timestamps, 'audio timestamp')} not after the one before`);
  if (badTimes.length > 0) add('CLIP_TIMESTAMPS', badTimes.join('; '));
  const corrupt = (video.corrupt_frame_count ?? 0) + (audio?.corrupt_frame_count ?? 0);
  if (corrupt > 0) {
    const where = [video.corrupt_frame_count ? `${video.corrupt_frame_count} video` : '', audio?.corrupt_frame_count ? `${audio.corrupt_frame_count} audio` : ''].filter(Boolean).join(' and ');
    add('CLIP_CORRUPT_FRAMES', `the decoder flagged ${where} ${byCount(corrupt, 'frame', 'frames')} corrupt`);
  }
  if (video.geometry_stable === false) add('CLIP_GEOMETRY_CHANGED', `a decoded frame's size differs from the first frame's ${video.width}x${video.height}`);
  if (audio && audio.sample_count === 0) add('CLIP_AUDIO_EMPTY', 'the audio stream decodes to no sample');
  if (audio && audio.max_timestamp_gap_seconds !== null) {
    const limit = Math.max(audio.time_base_seconds, 1 / audio.sample_rate) + EPS;
    if (audio.max_timestamp_gap_seconds > limit) {
      const at = (audio.max_timestamp_gap_at_sample ?? 0) / audio.sample_rate;
      add('CLIP_AUDIO_GAP', `audio jumps ${fmt(1000 * audio.max_timestamp_gap_seconds, 1)} ms at ${fmt(at, 2)} s (sample ${audio.max_timestamp_gap_at_sample}), where a jump over ${fmt(1000 * limit, 3)} ms (one sample or one timestamp tick) already breaks the audio`);
    }
  }
  if (e.fps !== undefined && video.min_frame_interval_seconds !== null && video.max_frame_interval_seconds !== null) {
    const nominal = 1 / e.fps;
    // Never half a frame interval or more: with a time base of one frame (1/24 at 24 fps) the rounding
    // allowance would be a whole frame, and a dropped frame (an interval of two) would pass. A missing
    // frame is always a cadence defect (stricter than InferenceX's check).
    const limit = Math.min(Math.max(video.time_base_seconds, 0.001 / e.fps) + EPS, CADENCE_LIMIT_OF_FRAME * nominal);
    const off = Math.max(Math.abs(video.min_frame_interval_seconds - nominal), Math.abs(video.max_frame_interval_seconds - nominal));
    if (off > limit) {
      add('CLIP_CADENCE', `frame intervals run from ${fmt(1000 * video.min_frame_interval_seconds)} to ${fmt(1000 * video.max_frame_interval_seconds)} ms where ${e.fps} fps gives ${fmt(1000 * nominal)} ms`);
    }
  }
  if (e.requires_motion !== false && video.mean_adjacent_frame_mae !== null && video.mean_adjacent_frame_mae <= FROZEN_MAE) {
    add('CLIP_NO_MOTION', `the picture does not move: mean change between frames ${video.mean_adjacent_frame_mae.toExponential(2)}, at most 1/1024`);
  }
  if (e.requires_sound !== false && audio && audio.sample_count > 0 && audio.rms_channels.every((r) => r !== null && r <= SILENCE_LEVEL)) {
    add('CLIP_SILENT', `the audio is silent on every channel (RMS at most 1e-4)`);
  }
  const blank = video.blank_fraction;
  if (blank !== null && (blank === 1 || (e.max_blank_fraction !== undefined && blank > e.max_blank_fraction))) {
    const what = video.black_fraction === 1 ? 'black' : video.white_fraction === 1 ? 'white' : 'black or white';
    add('CLIP_BLANK', blank === 1 ? `the clip is ${what} in every frame` : `${percent(blank)} of frames are black or white, above the plan's ${percent(e.max_blank_fraction!)}`);
  }
  if (e.max_frozen_fraction !== undefined && video.frozen_fraction !== null && video.frozen_fraction > e.max_frozen_fraction) {
    add('CLIP_FROZEN', `${percent(video.frozen_fraction)} of frame steps are frozen, above the plan's ${percent(e.max_frozen_fraction)}`);
  }
  if (e.duration_seconds !== undefined && video.start_seconds !== null && video.end_seconds !== null) {
    const tolerance = e.duration_tolerance_seconds ?? (e.fps ? 1 / e.fps : 0);
    const duration = video.end_seconds - video.start_seconds;
    if (Math.abs(duration - e.duration_seconds) > tolerance + EPS) {
      add('CLIP_DURATION', `the video lasts ${fmt(duration)} s where the plan says ${e.duration_seconds} s (within ${fmt(tolerance)} s)`);
    }
  }
  if (audio && video.start_seconds !== null && audio.start_seconds !== null) {
    const skews: string[] = [];
    const startSkew = Math.abs(audio.start_seconds - video.start_seconds);
    if (e.max_av_start_skew_seconds !== undefined && startSkew > e.max_av_start_skew_seconds + EPS) {
      skews.push(`audio starts ${fmt(startSkew)} s from the video, above the plan's ${e.max_av_start_skew_seconds} s`);
    }
    if (e.max_av_end_skew_seconds !== undefined && video.end_seconds !== null && audio.end_seconds !== null) {
      const endSkew = Math.abs(audio.end_seconds - video.end_seconds);
      if (endSkew > e.max_av_end_skew_seconds + EPS) skews.push(`audio ends ${fmt(endSkew)} s from the video, above the plan's ${e.max_av_end_skew_seconds} s`);
    }
    if (skews.length > 0) add('CLIP_AV_SKEW', skews.join('; '));
  }
  // The order is ClipCode's, not the order the checks run in here.
  const order = ClipCode.options;
  return reasons.sort((a, b) => order.indexOf(a.code) - order.indexOf(b.code));
}

/**
 * A clip's analysis: its figures, the checks' reasons, and whether it is valid. `plan`: the reason
 * of a clip whose media differ from the plan (`MEDIA_PLAN_MISMATCH`, made by
 * media/plan-conformance.ts `clipPlanReason`), listed first: the root cause of whatever else fails.
 */
export function judgeClip(video: ClipVideo, audio: ClipAudio | null, e: ClipExpectations = {}, plan: ClipReason | null = null): ClipAnalysis {
  const reasons = [...(plan ? [plan] : []), ...clipReasons(video, audio, e)];
  return { valid: reasons.length === 0, unconditional_valid: isUnconditionallyValid({ reasons }), reasons, video, audio };
}
