/**
 * Whether two probed files can be compared frame by frame and sample by
 * sample (docs/media.md, "Decoding"). The first disagreement wins, in the order
 * below, so a pair carries one stable reason code.
 *
 * The audio's sample count and start are the decoder's (media/audio-facts.ts),
 * known once the files are decoded; every check before them in that order
 * needs the probe only. So measurePair runs `checkBeforeDecoding` before any
 * frame, and `checkCompatibility` (all of them, the same order) once the
 * decode has filled in the audio: the reason a pair gets is the one a single
 * check of everything would give.
 */
import type { MeasureFailure, FailureSide } from '../schemas/measurement.js';
import { isFidelityError } from '../errors.js';
import { checkFfmpegSize } from '../metrics/ssim-ffmpeg.js';
import { checkGaussianSize } from '../metrics/ssim-gaussian.js';
import { checkBoxSize } from '../metrics/ssim-rgb7.js';
import { presentation } from './edit-list.js';
import type { Segment, TrackEdits } from './edit-list.js';
import { checkPlanConformance } from './plan-conformance.js';
import type { MediaPlanSpec } from './plan-conformance.js';
import type { AudioProbe, MediaProbe, Rational, StreamSummary, VideoProbe } from './probe.js';

/** `side` where the disagreement is one side's (an extra stream, a frame too small); a difference between the two has none. */
function fail(code: string, message: string, side?: FailureSide): MeasureFailure {
  return side ? { code, message, side } : { code, message };
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

/** Exact rationals: every time here is ticks x time base, compared without rounding. */
interface Fraction {
  num: bigint;
  den: bigint;
}

function frac(ticks: number | bigint, tb: Rational): Fraction {
  return { num: BigInt(ticks) * BigInt(tb.num), den: BigInt(tb.den) };
}

function minus(x: Fraction, y: Fraction): Fraction {
  return { num: x.num * y.den - y.num * x.den, den: x.den * y.den };
}

/** |x| <= tolerance, both with positive denominators. */
function within(x: Fraction, tolerance: Fraction): boolean {
  const n = x.num < 0n ? -x.num : x.num;
  return n * tolerance.den <= tolerance.num * x.den;
}

function secondsOf(x: Fraction): string {
  return (Number(x.num) / Number(x.den)).toFixed(6);
}

function sideOf(baselineHas: boolean, candidateHas: boolean): FailureSide {
  return baselineHas && candidateHas ? 'both' : baselineHas ? 'baseline' : 'candidate';
}

function describeStreams(streams: readonly StreamSummary[]): string {
  return streams.map((s) => `#${s.index} ${s.coverArt ? 'cover art' : s.type} (${s.codec})`).join(', ');
}

/**
 * Exactly one video stream and at most one audio stream are measured; any
 * other stream (a second video or audio, cover art, subtitles, data) would go
 * unmeasured, so the pair is not compared. The code names the kind of the
 * extra stream, `side` the file that has it.
 */
function checkStreams(baseline: MediaProbe, candidate: MediaProbe): MeasureFailure | null {
  const kinds = [
    { code: 'EXTRA_VIDEO_STREAM', what: 'video stream', extra: (p: MediaProbe) => p.streams.filter((s) => s.type === 'video').length > 1 },
    { code: 'EXTRA_AUDIO_STREAM', what: 'audio stream', extra: (p: MediaProbe) => p.streams.filter((s) => s.type === 'audio').length > 1 },
    { code: 'EXTRA_STREAM', what: 'stream that is neither video nor audio', extra: (p: MediaProbe) => p.streams.some((s) => s.type !== 'video' && s.type !== 'audio') },
  ];
  for (const { code, what, extra } of kinds) {
    const [x, y] = [extra(baseline), extra(candidate)];
    if (!x && !y) continue;
    const side = sideOf(x, y);
    const who = side === 'both' ? 'Both files have' : `The ${side} has`;
    return fail(
      code,
      `${who} an extra ${what} (one video and at most one audio stream are measured): baseline ${describeStreams(baseline.streams)}; candidate ${describeStreams(candidate.streams)}`,
      side,
    );
  }
  return null;
}

/** The metric windows must fit the planes: Gaussian SSIM 11x11 and 7x7 SSIM on luma, FFmpeg's 8x8 on every plane. */
function checkFrameSize(v: VideoProbe): string | null {
  const g = v.geometry!;
  try {
    checkGaussianSize(g.width, g.height);
    checkBoxSize(g.width, g.height);
    checkFfmpegSize(g.width, g.height);
    checkFfmpegSize(g.chromaWidth, g.chromaHeight);
    return null;
  } catch (error) {
    if (isFidelityError(error) && error.code === 'FRAME_TOO_SMALL') return error.message;
    throw error;
  }
}

function describeMatrix(v: VideoProbe): string {
  if (!v.displayMatrix) return 'none (as coded)';
  return `${v.rotation === null ? '' : `rotation ${v.rotation} degrees, `}matrix [${v.displayMatrix.join(' ')}]`;
}

function sameMatrix(a: VideoProbe, b: VideoProbe): boolean {
  if (!a.displayMatrix || !b.displayMatrix) return a.displayMatrix === b.displayMatrix;
  return a.displayMatrix.every((x, i) => x === b.displayMatrix![i]);
}

function describeSegments(segments: readonly Segment[]): string {
  return segments
    .map((s) => {
      const length = s.num < 0n ? 'all' : `${secondsOf({ num: s.num, den: s.den })} s`;
      return s.empty ? `delay ${length}` : `show ${length}${s.rate === 65536 ? '' : ` at rate ${s.rate / 65536}`}`;
    })
    .join(', then ');
}

/**
 * Two edit lists agree when a player shows the same: the same delays and
 * shown stretches, in the same order, at the same rates, each as long as the
 * other within one tick of the coarser time scale. Where the stretch starts
 * in the media is left out: that offset is the encoder's (B-frame delay, AAC
 * priming), and what it hides shows in the frame timestamps and samples.
 */
function sameEdits(x: TrackEdits, y: TrackEdits): boolean {
  const [p, q] = [presentation(x), presentation(y)];
  if (p.length !== q.length) return false;
  return p.every((s, i) => {
    const t = q[i]!;
    if (s.empty !== t.empty || s.rate !== t.rate || s.den === 0n || t.den === 0n) return false;
    // A fragmented file's whole media has no length in moov: its frames and samples are compared instead.
    if (s.num < 0n || t.num < 0n) return true;
    const tick: Fraction = s.den < t.den ? { num: 1n, den: s.den } : { num: 1n, den: t.den };
    return within(minus({ num: s.num, den: s.den }, { num: t.num, den: t.den }), tick);
  });
}

/** null when both agree, or when a side is not MP4 / MOV (no edit list to read). */
function checkEdits(code: string, stream: string, x: TrackEdits | null, y: TrackEdits | null): MeasureFailure | null {
  if (!x || !y || sameEdits(x, y)) return null;
  return fail(
    code,
    `The ${stream} edit lists differ (what a player shows): baseline ${describeSegments(presentation(x))}; candidate ${describeSegments(presentation(y))}`,
  );
}

/** First audio timestamp minus first video timestamp, in seconds; null when the audio has no timestamp. */
function audioOffset(v: VideoProbe, x: AudioProbe): Fraction | null {
  if (x.startPts === null) return null;
  return minus(frac(x.startPts, x.startTimeBase ?? x.timeBase), frac(v.pts[0]!, v.timeBase));
}

function checkAudioStart(a: VideoProbe, x: AudioProbe, b: VideoProbe, y: AudioProbe): MeasureFailure | null {
  const [p, q] = [audioOffset(a, x), audioOffset(b, y)];
  if (!p && !q) return null;
  const show = (o: Fraction | null): string => (o ? `${secondsOf(o)} s` : 'unknown');
  // One audio sample, at the common rate (the sample rates were compared before).
  if (p && q && within(minus(p, q), { num: 1n, den: BigInt(x.sampleRate) })) return null;
  return fail(
    'INCOMPATIBLE_AUDIO_START',
    `The audio starts at a different time relative to the video (first audio timestamp minus first video timestamp): baseline ${show(p)}, candidate ${show(q)} (more than one audio sample apart)`,
  );
}

/**
 * null when the pair is comparable; otherwise the reason, with both sides' values. The audio's samples and start must be known (decoded).
 * With `plan`, each side's media are first checked against the plan (MEDIA_PLAN_MISMATCH, plan-conformance.ts): media off the
 * plan are the root cause, named first, the pair's own difference (an INCOMPATIBLE_* code on the probes) kept after it (`also`).
 */
export function checkCompatibility(baseline: MediaProbe, candidate: MediaProbe, plan?: MediaPlanSpec): MeasureFailure | null {
  return checkBeforeDecoding(baseline, candidate, plan) ?? checkDecodedAudio(baseline, candidate);
}

/** The checks that come before the audio's sample count, on the probes alone (with `plan`, the plan's first): null when none fails. */
export function checkBeforeDecoding(baseline: MediaProbe, candidate: MediaProbe, plan?: MediaPlanSpec): MeasureFailure | null {
  const pair = checkPairBeforeDecoding(baseline, candidate);
  const off = plan ? checkPlanConformance(baseline, candidate, plan) : null;
  if (!off) return pair;
  return pair ? { ...off, also: { code: pair.code, message: pair.message, ...(pair.side ? { side: pair.side } : {}) } } : off;
}

function checkPairBeforeDecoding(baseline: MediaProbe, candidate: MediaProbe): MeasureFailure | null {
  const a = baseline.video;
  const b = candidate.video;
  if (!a || !b) {
    if (!a && !b) return fail('NO_VIDEO_STREAM', 'Neither side has a video stream', 'both');
    const side = !a ? 'baseline' : 'candidate';
    return fail('NO_VIDEO_STREAM', `The ${side} has no video stream`, side);
  }
  const streams = checkStreams(baseline, candidate);
  if (streams) return streams;
  if (a.width !== b.width || a.height !== b.height) {
    return fail('INCOMPATIBLE_SIZE', `Frame size differs: baseline ${a.width}x${a.height}, candidate ${b.width}x${b.height}`);
  }
  if (!a.geometry && !b.geometry) {
    const what = a.pixFmt === b.pixFmt ? `Both sides are ${a.pixFmt}` : `The baseline is ${a.pixFmt} and the candidate ${b.pixFmt}`;
    return fail('UNSUPPORTED_PIXEL_FORMAT', `${what}; only 8-bit planar YUV is read without conversion`, 'both');
  }
  for (const [side, v] of [['baseline', a], ['candidate', b]] as const) {
    if (!v.geometry) {
      return fail('UNSUPPORTED_PIXEL_FORMAT', `The ${side} is ${v.pixFmt}; only 8-bit planar YUV is read without conversion`, side);
    }
  }
  if (a.pixFmt !== b.pixFmt) {
    return fail('INCOMPATIBLE_PIXEL_FORMAT', `Pixel format differs: baseline ${a.pixFmt}, candidate ${b.pixFmt}`);
  }
  // Same size and layout from here, so a frame too small is too small on both sides.
  const small = checkFrameSize(a);
  if (small) return fail('FRAME_TOO_SMALL', `Both sides are ${a.width}x${a.height} ${a.pixFmt}: ${small}`, 'both');
  if (!sameMatrix(a, b)) {
    return fail('INCOMPATIBLE_DISPLAY_MATRIX', `The video display matrix differs (how a player turns the picture): baseline ${describeMatrix(a)}, candidate ${describeMatrix(b)}`);
  }
  const [sa, sb] = [a.sampleAspect, b.sampleAspect];
  if (BigInt(sa.num) * BigInt(sb.den) !== BigInt(sb.num) * BigInt(sa.den)) {
    return fail('INCOMPATIBLE_ASPECT_RATIO', `The video sample aspect ratio differs (how a player stretches the picture): baseline ${sa.num}:${sa.den}, candidate ${sb.num}:${sb.den}`);
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
  const videoEdits = checkEdits('INCOMPATIBLE_VIDEO_EDIT_LIST', 'video', a.editList, b.editList);
  if (videoEdits) return videoEdits;
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
  }
  return null;
}

/** The checks from the audio's sample count on (sample count, start, audio edit lists), in that order. */
function checkDecodedAudio(baseline: MediaProbe, candidate: MediaProbe): MeasureFailure | null {
  const [a, b, x, y] = [baseline.video!, candidate.video!, baseline.audio, candidate.audio];
  if (x && y) {
    if (x.samples !== y.samples) {
      return fail('INCOMPATIBLE_SAMPLE_COUNT', `Audio sample count differs: baseline ${x.samples}, candidate ${y.samples} per channel`);
    }
    const start = checkAudioStart(a, x, b, y);
    if (start) return start;
    const audioEdits = checkEdits('INCOMPATIBLE_AUDIO_EDIT_LIST', 'audio', x.editList, y.editList);
    if (audioEdits) return audioEdits;
  }
  return null;
}

/**
 * Whether InferenceX's `compare_media` refuses the pair on what the probes (and the decode's audio
 * facts) say (docs/metrics.md, "InferenceX's own figures"): the two clips differ in width, height, frame
 * count, start or end time beyond one tick, audio presence, sample rate, channels, channel names or
 * sample count. null when it cannot be told: a sample count the decode has not counted yet (a pair
 * refused before decoding for a reason InferenceX does not check). This library refuses more pairs
 * (every frame's timestamp, edit lists, rotation...); this is InferenceX's own list only.
 */
export function inferencexRefuses(a: MediaProbe, b: MediaProbe): boolean | null {
  const [va, vb] = [a.video, b.video];
  if (!va || !vb) return true;
  if (va.width !== vb.width || va.height !== vb.height || va.frames !== vb.frames) return true;
  if (va.pts.length > 0 && vb.pts.length > 0) {
    if (!withinOneTick(va.pts[0]!, va.timeBase, vb.pts[0]!, vb.timeBase)) return true;
    if (!withinOneTick(va.pts.at(-1)!, va.timeBase, vb.pts.at(-1)!, vb.timeBase)) return true;
  }
  const [x, y] = [a.audio, b.audio];
  if (!x !== !y) return true;
  if (x && y) {
    if (x.sampleRate !== y.sampleRate || x.channels !== y.channels || x.channelLayout !== y.channelLayout) return true;
    if (x.samples === null || y.samples === null) return null;
    if (x.samples !== y.samples) return true;
  }
  return false;
}
