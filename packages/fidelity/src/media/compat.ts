/**
 * Whether two probed files can be compared frame by frame and sample by
 * sample (metrics.md, "Decoding"). The first disagreement wins, in the order
 * below, so a pair carries one stable reason code.
 */
import type { MeasureFailure } from '../schemas/measurement.js';
import type { MediaProbe, Rational, VideoProbe } from './probe.js';

function fail(code: string, message: string): MeasureFailure {
  return { code, message };
}

/**
 * |a - b| <= one tick, in exact integer arithmetic: a = pa*na/da seconds, b =
 * pb*nb/db, and the tick is the coarser of the two time bases.
 */
function withinOneTick(pa: number, ta: Rational, pb: number, tb: Rational): boolean {
  const diff = BigInt(pa) * BigInt(ta.num) * BigInt(tb.den) - BigInt(pb) * BigInt(tb.num) * BigInt(ta.den);
  const tickA = BigInt(ta.num) * BigInt(tb.den);
  const tickB = BigInt(tb.num) * BigInt(ta.den);
  const tick = tickA > tickB ? tickA : tickB;
  return (diff < 0n ? -diff : diff) <= tick;
}

function seconds(pts: number, tb: Rational): string {
  return ((pts * tb.num) / tb.den).toFixed(6);
}

function firstTimestampMismatch(a: VideoProbe, b: VideoProbe): number {
  for (let i = 0; i < a.pts.length; i++) {
    if (!withinOneTick(a.pts[i]!, a.timeBase, b.pts[i]!, b.timeBase)) return i;
  }
  return -1;
}

/** null when the pair is comparable; otherwise the reason, with both sides' values. */
export function checkCompatibility(baseline: MediaProbe, candidate: MediaProbe): MeasureFailure | null {
  const a = baseline.video;
  const b = candidate.video;
  if (!a || !b) {
    const side = !a ? 'baseline' : 'candidate';
    return fail('NO_VIDEO_STREAM', `The ${side} has no video stream`);
  }
  if (a.width !== b.width || a.height !== b.height) {
    return fail('INCOMPATIBLE_SIZE', `Frame size differs: baseline ${a.width}x${a.height}, candidate ${b.width}x${b.height}`);
  }
  for (const [side, v] of [['baseline', a], ['candidate', b]] as const) {
    if (!v.geometry) {
      return fail('UNSUPPORTED_PIXEL_FORMAT', `The ${side} is ${v.pixFmt}; only 8-bit planar YUV is read without conversion`);
    }
  }
  if (a.pixFmt !== b.pixFmt) {
    return fail('INCOMPATIBLE_PIXEL_FORMAT', `Pixel format differs: baseline ${a.pixFmt}, candidate ${b.pixFmt}`);
  }
  if (a.frames !== b.frames) {
    return fail('INCOMPATIBLE_FRAME_COUNT', `Frame count differs: baseline ${a.frames}, candidate ${b.frames}`);
  }
  const bad = firstTimestampMismatch(a, b);
  if (bad >= 0) {
    return fail(
      'INCOMPATIBLE_TIMESTAMPS',
      `Frame ${bad} is at ${seconds(a.pts[bad]!, a.timeBase)} s in the baseline and ${seconds(b.pts[bad]!, b.timeBase)} s in the candidate (more than one time-base tick apart)`,
    );
  }
  const x = baseline.audio;
  const y = candidate.audio;
  if (!x !== !y) {
    return fail('INCOMPATIBLE_AUDIO_PRESENCE', `Only the ${x ? 'baseline' : 'candidate'} has an audio stream`);
  }
  if (x && y) {
    if (x.sampleRate !== y.sampleRate) {
      return fail('INCOMPATIBLE_SAMPLE_RATE', `Audio sample rate differs: baseline ${x.sampleRate} Hz, candidate ${y.sampleRate} Hz`);
    }
    if (x.channels !== y.channels) {
      return fail('INCOMPATIBLE_CHANNELS', `Audio channel count differs: baseline ${x.channels}, candidate ${y.channels}`);
    }
    if (x.samples !== y.samples) {
      return fail('INCOMPATIBLE_SAMPLE_COUNT', `Audio sample count differs: baseline ${x.samples}, candidate ${y.samples} per channel`);
    }
  }
  return null;
}
