/**
 * measurePair: probe both files (one ffprobe each), refuse an incompatible
 * pair before any metric where the probes already say so, then stream both
 * decodes through the metric accumulators. The audio's sample count and start
 * are the decoder's: the video decoders report them from their own process
 * (media/audio-facts.ts), and the remaining compatibility checks run on them
 * before any metric is returned; an incompatible pair's metrics are dropped.
 * Processes per file: the probe, the video decoder and, when the set measures
 * audio, the audio decoder. Runs in the calling thread; the pool (pool.ts)
 * runs it inside worker threads.
 *
 * A failure of the pair (corrupt file, ffmpeg crash, time limit, abort) is
 * returned as `{ ok: false, failure }`, never as partial metrics. Only
 * problems that no pair could get past (no usable ffmpeg, a bad argument,
 * a bug) are thrown.
 */
import { FidelityError, invalidParameter, isFidelityError } from '../errors.js';
import { resolveFfmpeg } from '../media/ffmpeg.js';
import { openAudioDecoders } from '../media/audio-decoder.js';
import type { AudioDecoder } from '../media/audio-decoder.js';
import type { AudioFacts } from '../media/audio-facts.js';
import { checkBeforeDecoding, checkCompatibility, inferencexRefuses } from '../media/compat.js';
import { PlanJson } from '../schemas/run-archive.js';
import { checkDecodedAudio, probeMedia } from '../media/probe.js';
import type { AudioProbe, MediaProbe, ProbeTools, VideoProbe } from '../media/probe.js';
import { InputsFailure, ProcessScope } from '../media/process.js';
import { frameFromRecords, frameRecords, openVideoDecoders } from '../media/video-decoder.js';
import type { VideoLog } from '../media/video-decoder.js';
import type { VideoDecoder } from '../media/video-decoder.js';
import { createMetricRunner, needsAudio, needsRgb24, resolveMetrics } from '../metrics/registry.js';
import { exactDeltaSeconds, inferencexFigures, inferencexRefused, maxDeltaSeconds, withClipValidity } from '../metrics/inferencex.js';
import type { AudioChannelSums } from '../metrics/audio-channel.js';
import type { MetricName } from '../metrics/registry.js';
import { rgbConversionFor } from '../metrics/rgb24.js';
import { createTemporalOffsetSearch } from '../metrics/temporal-offset.js';
import { createVideoAccumulatorOn } from '../metrics/video.js';
import type { FrameValues } from '../metrics/video.js';
import { kernels } from '../metrics/wasm.js';
import type { DecodedFrame } from '../metrics/frame.js';
import { createClipVideoAccumulator } from '../metrics/clip-video.js';
import type { ClipVideoAccumulator, DecoderFlags } from '../metrics/clip-video.js';
import { createClipAudioAccumulator } from '../metrics/clip-audio.js';
import type { ClipAudioAccumulator } from '../metrics/clip-audio.js';
import { clipExpectationsOf, judgeClip } from '../metrics/clip-checks.js';
import type { ClipAnalysis, ClipAudio, ClipVideo, PairClips } from '../schemas/clip.js';
import type { AudioMetrics, FailureSide, InferencexFigures, MeasureFailure, MeasureOutcome, PairMeasurement, VideoMetrics } from '../schemas/measurement.js';
import { MeasureFailureCodes } from './api.js';
import type { MeasureOptions, MeasureProgress, PairJob } from './api.js';
import { openAudioSink } from './audio-sink.js';
import { FRAMES_PER_HELPER, openFrameHelpers } from './frame-helpers.js';
import { leaseFrameMemory } from './frame-memory.js';
import { openSsimHelper } from './ssim-helper.js';
import type { SsimHelper } from './ssim-helper.js';
import type { FrameHelpers } from './frame-helpers.js';
import { defaultThreadCount } from './threads.js';
import { createFrameCapture } from './frame-capture.js';
import type { FrameCapture, KeepOptions } from './frame-capture.js';
import type { PairCapture } from '../media/frames.js';

/**
 * Per child process. Generous on purpose: a decoder waits (blocked on its
 * pipe) while the metrics run, so its wall-clock time is the whole
 * measurement's, which on two busy cores can reach minutes for a long clip.
 */
export const DEFAULT_DECODE_TIMEOUT_MS = 600_000;

/** More helpers than this only hold more frames in memory: the decoders cannot feed them. */
export const MAX_VIDEO_THREADS = 64;

const FAILURE_CODES: ReadonlySet<string> = new Set(MeasureFailureCodes);

/** The part of plan.json MeasureOptions.plan takes. */
const MediaPlanSpecSchema = PlanJson.pick({ video: true, audio: true, max_av_start_skew_seconds: true, max_av_end_skew_seconds: true });

/** Frames after which every video buffer and the metrics' memory are in use (the audio starts then). */
const WARM_FRAMES = 8;

type Side = 'baseline' | 'candidate';

function aborted(): MeasureOutcome {
  return { ok: false, failure: { code: 'ABORTED', message: 'The measurement was cancelled' } };
}

/** Both sides settle before one error is chosen, baseline first, so the reason does not depend on timing. */
async function bothSides<T>(a: Promise<T>, b: Promise<T>): Promise<[T, T]> {
  const [x, y] = await Promise.allSettled([a, b]);
  // Each side failed the same way on its own (no video stream on either): the failure is both sides'.
  if (x.status === 'rejected' && y.status === 'rejected' && x.reason instanceof SideFailure && y.reason instanceof SideFailure && x.reason.side === 'baseline' && y.reason.side === 'candidate' && x.reason.code === y.reason.code) {
    throw new SideFailure(x.reason.code, `${x.reason.message}; ${y.reason.message}`, 'both', x.reason);
  }
  if (x.status === 'rejected') throw x.reason;
  if (y.status === 'rejected') throw y.reason;
  return [x.value, y.value];
}

/**
 * Runs video and audio side by side. The first failure is the cause: it
 * stops every child at once, so the other part ends quickly (with a failure
 * of its own that is only the consequence, and is dropped).
 */
async function firstFailureWins<A, B>(scope: ProcessScope, a: Promise<A>, b: Promise<B>): Promise<[A, B]> {
  let cause: { error: unknown } | null = null;
  const watch = <T>(p: Promise<T>): Promise<T> =>
    p.catch((error: unknown) => {
      if (!cause) {
        cause = { error };
        void scope.close();
      }
      throw error;
    });
  const [x, y] = await Promise.allSettled([watch(a), watch(b)]);
  if (cause) throw (cause as { error: unknown }).error;
  return [(x as PromiseFulfilledResult<A>).value, (y as PromiseFulfilledResult<B>).value];
}

/** A pair failure about one file (or both): the report names that side. */
class SideFailure extends FidelityError {
  readonly side: FailureSide;

  constructor(code: string, message: string, side: FailureSide, cause?: unknown) {
    super(code, message, cause === undefined ? {} : { cause });
    this.side = side;
  }
}

/** The side of a failure of the process that decodes both files: the file(s) ffmpeg's messages name. */
const SIDES_OF_INPUTS: Record<string, FailureSide> = { '0': 'baseline', '1': 'candidate' };

/**
 * Failures of one side's probe or decoder carry that side; a failure of the process that decodes both
 * files, the side its messages name ('both' when they name both or neither); a cancellation is nobody's.
 */
function blame<T>(side: FailureSide, work: Promise<T>): Promise<T> {
  return work.catch((error: unknown) => {
    if (!isFidelityError(error) || error instanceof SideFailure || error.code === 'ABORTED') throw error;
    const named = error instanceof InputsFailure ? (SIDES_OF_INPUTS[error.inputs.join(',')] ?? 'both') : side;
    throw new SideFailure(error.code, error.message, named, error);
  });
}

/** A failure of the one decode that stands for both sides (the same bytes): it is both sides'. */
function onBoth<T>(work: Promise<T>): Promise<T> {
  return blame('both', work).catch((error: unknown) => {
    throw error instanceof SideFailure && error.side !== 'both' ? new SideFailure(error.code, error.message, 'both', error) : error;
  });
}

/** The side whose decoder ended early is the one named, with the count it reached. */
function endedEarly(what: string, side: FailureSide, got: number, expected: number): SideFailure {
  const who = side === 'both' ? 'baseline and candidate' : side;
  return new SideFailure('UNDECODABLE', `${who}: ffmpeg decoded ${got} ${what} where the container lists ${expected}`, side);
}

/**
 * Helper threads for a pair's video when the caller leaves it open: `cores`
 * (the cores this pair may use) from AUTO_THREADS_MIN_CORES on, else none.
 *
 * With fewer cores, a frame's trip through the helpers (measuring thread ->
 * ordered helper -> value helper -> back) waits on threads that get no core:
 * measured on 2 idle cores, full-size pairs, every set was faster without
 * helpers (`default` 3.9 s against 5.5 s per pair, `all` 4.3 against 5.3,
 * `ffmpeg` 1.18 against 1.36; docs/performance.md). That was when the
 * decoders still converted rgb24 (4 ms of CPU per frame and file); with
 * planes-only decoders helpers cost more CPU on a busy 2-core machine, and
 * their wall gain on an idle one is not measured yet, so the threshold stands.
 * None for a small stream either, where starting threads costs more than they
 * save. The results are the same bytes either way.
 */
export function autoVideoThreads(video: VideoProbe, cores: number): number {
  const geometry = video.geometry;
  if (!geometry || cores < AUTO_THREADS_MIN_CORES) return 0;
  return geometry.width * geometry.height * video.frames >= AUTO_THREADS_MIN_SAMPLES ? cores : 0;
}

/** The fewest cores for which a pair gets video helper threads by default (see autoVideoThreads). */
export const AUTO_THREADS_MIN_CORES = 4;

/**
 * Whether a pair measured without helper threads, `videoThreads` left open, runs the Gaussian SSIM
 * of its differing frames in a thread of its own (ssim-helper.ts): when it may use 2 cores or more
 * and the stream is as large as autoVideoThreads asks (starting the thread costs about 40 ms of CPU,
 * copying the Y planes there about 0.2 ms a frame, against 7-12 ms of SSIM per 1344x768 frame).
 * The results are the same bytes either way.
 */
export function autoSsimAside(video: VideoProbe, cores: number): boolean {
  const geometry = video.geometry;
  return cores >= 2 && geometry !== null && geometry.width * geometry.height * video.frames >= AUTO_THREADS_MIN_SAMPLES;
}

/** About 20 frames at 1344x768, a third of a second of metric work on one core. */
const AUTO_THREADS_MIN_SAMPLES = 20_000_000;

/** The video metrics, what each side's process learned about its audio (null without audio), and each clip's own video figures. */
interface VideoOutcome {
  metrics: VideoMetrics;
  audio: [AudioFacts | null, AudioFacts | null];
  /** Null for a side not analysed here (PairClipsShared: the same bytes, or an analysis this command already made). */
  clips: [ClipVideo | null, ClipVideo | null];
}

/** Seconds per tick of a time base; 1 when the decoder gave none (no frame). */
function seconds(tb: { num: number; den: number } | null): number {
  return tb && tb.num > 0 && tb.den > 0 ? tb.num / tb.den : 1;
}

async function measureVideo(
  scope: ProcessScope,
  tools: ProbeTools,
  files: [string, string],
  streams: [VideoProbe, VideoProbe],
  audio: [AudioProbe | null, AudioProbe | null],
  metrics: readonly MetricName[],
  threads: number,
  ssimAside: boolean,
  onProgress: ((progress: MeasureProgress) => void) | undefined,
  onWarm: () => void,
  analyse: readonly [boolean, boolean],
  capture: FrameCapture | null,
  single: boolean,
): Promise<VideoOutcome> {
  let helpers: FrameHelpers | null = null;
  let ssim: SsimHelper | null = null;
  const clips: (ClipVideoAccumulator | null)[] = [];
  try {
    // Every frame out with a helper is one more the decoders must not wait for.
    const capacity = 2 + FRAMES_PER_HELPER * threads;
    // rgb24 is converted from the planes in the metrics' thread; the decoders convert (fd 4) only
    // where the exact formula does not apply, and only when a chosen metric reads rgb24.
    const rgb = rgbConversionFor(streams[0].pixFmt, streams[0].height);
    // The clip analysis (metrics/clip-video.ts) reads every frame's rgb24 whatever the set: ffmpeg's where it converts.
    const rgb24 = rgb.by === 'ffmpeg';
    const geometry = streams[0].geometry;
    if (!geometry) throw new SideFailure('UNSUPPORTED_PIXEL_FORMAT', `baseline: ${streams[0].pixFmt} is not read without conversion`, 'baseline');
    // A side whose bytes are analysed elsewhere (the other side's same bytes, or another pair of this
    // command: PairJob.sameMedia, PairJob.known) is not analysed again.
    for (const side of analyse) clips.push(side ? createClipVideoAccumulator(geometry, rgb) : null);
    // Frames measured in this thread are read straight into the metric kernels' memory (pool/frame-memory.ts):
    // every reader's buffers, and a few for the one that runs ahead while the other is waited for.
    const memory = threads === 0 && !rgb24 ? leaseFrameMemory(geometry.yuvBytes, 2 * (capacity + 2) + 4) : null;
    if (memory) scope.defer(() => memory.close());
    const k = memory?.kernels ?? kernels();
    const accumulator = createVideoAccumulatorOn(k, geometry, metrics, { rgb, ...(capture ? { onValues: capture.onValues } : {}) });
    // With a core to spare and no helper threads, the Gaussian SSIM of differing frames runs beside (ssim-helper.ts):
    // the frame's other metrics in two runners here, its SSIM filed by index when it comes back.
    const split =
      ssimAside && threads === 0 && metrics.includes('ssim')
        ? {
            ordered: createMetricRunner(geometry, metrics, true, rgb, k),
            values: createMetricRunner(geometry, metrics.filter((m) => m !== 'ssim'), false, rgb, k),
            waiting: new Map<number, FrameValues>(),
          }
        : null;
    const buffers = memory?.buffers();
    // One ffmpeg process decodes both files, each on outputs of its own (media/video-decoder.ts); the
    // same bytes on both sides (`single`) are decoded once, and each frame is both sides' frame.
    const sides = [
      { file: files[0], label: 'baseline', video: streams[0], audio: audio[0] },
      ...(single ? [] : [{ file: files[1], label: 'candidate', video: streams[1], audio: audio[1] }]),
    ];
    const decoders = (await blame('both', openVideoDecoders(scope, tools, sides, { capacity, rgb24, buffers: [buffers, buffers] }))) as VideoDecoder[];
    const a = decoders[0]!;
    const b = decoders[1] ?? a;
    /** The same call on both sides' decoders, each failure blamed on its side; with `single`, the one decoder's answer is both sides'. */
    const fromBoth = <T>(call: (d: VideoDecoder) => Promise<T>): Promise<[T, T]> =>
      single ? onBoth(call(a)).then((v): [T, T] => [v, v]) : bothSides(blame('baseline', call(a)), blame('candidate', call(b)));
    const release = (fa: DecodedFrame, fb: DecodedFrame): void => {
      a.release(fa);
      if (!single) b.release(fb);
    };
    const framesTotal = streams[0].frames;
    // The temporal offset diagnosis (metrics/temporal-offset.ts) keeps copies of a few Y planes, taken here,
    // before a frame is moved to a helper: it runs in this thread, in frame order, for every thread count.
    const offsetSearch = createTemporalOffsetSearch(geometry.width, geometry.height, framesTotal);
    let framesRead = 0;
    let framesDone = 0;
    const done = (): void => {
      framesDone++;
      if (framesDone === WARM_FRAMES) onWarm();
      onProgress?.({ framesDone, framesTotal });
    };
    if (threads > 0) {
      helpers = openFrameHelpers(geometry, metrics, threads, {
        onValues(index, values, ra, rb) {
          accumulator.addValues(index, values);
          const [fa, fb] = [frameFromRecords(geometry, ra), frameFromRecords(geometry, rb)];
          capture?.frame(index, fa, fb, false);
          release(fa, fb);
          done();
        },
        onOrdered: (index, values) => accumulator.addOrdered(index, values),
      }, rgb);
    }
    onProgress?.({ framesDone, framesTotal });
    for (;;) {
      const [fa, fb] = await fromBoth((d) => d.next());
      if (!fa || !fb) {
        if (fa || fb) throw endedEarly('frames', fa ? 'candidate' : 'baseline', framesRead, framesTotal);
        break;
      }
      if (framesRead === framesTotal) {
        throw new SideFailure('UNDECODABLE', `ffmpeg decoded more frames than the ${framesTotal} the containers list`, 'both');
      }
      const index = framesRead++;
      offsetSearch?.add(index, fa.y, fb.y);
      // Each clip on its own, in frame order, before the frame moves to a helper (docs/metrics.md, "Clip validity").
      clips[0]?.addFrame(fa);
      clips[1]?.addFrame(fb);
      if (helpers) {
        await helpers.submit(index, frameRecords(fa), frameRecords(fb));
      } else if (split) {
        accumulator.addOrdered(index, split.ordered.frame(fa, fb));
        capture?.frame(index, fa, fb, false);
        const values = split.values.frame(fa, fb);
        // Equal Y planes have SSIM exactly 1 (the kernel gives it; the definition skips it): only the others travel.
        if (values.identical || Buffer.from(fa.y.buffer, fa.y.byteOffset, fa.y.length).equals(Buffer.from(fb.y.buffer, fb.y.byteOffset, fb.y.length))) {
          values.metrics['ssim'] = 1;
          accumulator.addValues(index, values);
          capture?.frame(index, fa, fb, false);
          done();
        } else {
          ssim ??= openSsimHelper(geometry.width, geometry.height, (i, value) => {
            const waiting = split.waiting.get(i)!;
            split.waiting.delete(i);
            waiting.metrics['ssim'] = value;
            accumulator.addValues(i, waiting);
            done();
          });
          split.waiting.set(index, values);
          // Its SSIM comes back after the buffers went back to the decoders: a copy waits with it (frame-capture.ts).
          capture?.frame(index, fa, fb, true);
          await ssim.submit(index, fa.y, fb.y);
        }
        release(fa, fb);
      } else {
        accumulator.addFrame(fa, fb);
        capture?.frame(index, fa, fb, false);
        release(fa, fb);
        done();
      }
    }
    await helpers?.drain();
    await ssim?.drain();
    await fromBoth((d) => d.finished());
    if (framesRead !== framesTotal) throw endedEarly('frames', 'both', framesRead, framesTotal);
    const facts = await fromBoth((d) => d.audioFacts());
    const times = await fromBoth((d) => d.frameTimes());
    const logs = await fromBoth((d) => d.videoLog());
    const clipFigures = (i: number): ClipVideo | null =>
      clips[i]?.finish({ timeBase: seconds(times[i]!.timeBase), frames: times[i]!.frames.map((f) => ({ pts: f.pts, duration: f.duration })) }, decoderFlags(logs[i]!)) ?? null;
    const clipVideo: [ClipVideo | null, ClipVideo | null] = [clipFigures(0), clipFigures(1)];
    const video = accumulator.finish();
    // A diagnosis of video that differs; identical video has nothing to diagnose.
    const offset = offsetSearch && !video.identical ? offsetSearch.finish() : null;
    return { metrics: offset ? { ...video, temporal_offset: offset } : video, audio: facts, clips: clipVideo };
  } finally {
    for (const clip of clips) clip?.close();
    await helpers?.close();
    await ssim?.close();
    // Whatever happened, the audio side must not wait for a warm-up that will never come.
    onWarm();
  }
}

/** The audio metrics (null when the two sides delivered different sample counts), and what each side's decoder delivered. */
interface AudioOutcome {
  metrics: AudioMetrics | null;
  /** Per channel, the sums InferenceX's figures are made from (null with `metrics`). */
  sums: AudioChannelSums[] | null;
  delivered: [number, number];
  /** Audio frames each side's decoder flagged corrupt (null: this ffmpeg build does not log the flag). */
  corrupt: [number | null, number | null];
}

async function measureAudio(
  scope: ProcessScope,
  tools: ProbeTools,
  files: [string, string],
  streams: [AudioProbe, AudioProbe],
  useThread: boolean,
  start: Promise<void>,
  clips: [ClipAudioAccumulator | null, ClipAudioAccumulator | null],
  pairMetrics: boolean,
  capture: FrameCapture | null,
): Promise<AudioOutcome> {
  await start;
  // Without pair metrics the audio is decoded for the clip analysis alone: a candidate not analysed
  // here (the same bytes as the baseline, or analysed by another pair) needs no samples, the
  // baseline's count being checked for both.
  const single = !pairMetrics && clips[1] === null;
  // One ffmpeg process decodes both files' audio (media/audio-decoder.ts).
  const decoders = (await blame(
    'both',
    openAudioDecoders(scope, tools, [
      { file: files[0], label: 'baseline', audio: streams[0] },
      ...(single ? [] : [{ file: files[1], label: 'candidate', audio: streams[1] }]),
    ]),
  )) as AudioDecoder[];
  const a = decoders[0]!;
  const b = decoders[1] ?? null;
  const sink = openAudioSink(streams[0].sampleRate, streams[0].channels, useThread && pairMetrics);
  try {
    const delivered: [number, number] = [0, 0];
    let same = true;
    for (;;) {
      const [ca, cb] = b ? await bothSides(blame('baseline', a.next(sink.planes)), blame('candidate', b.next(sink.planes))) : await blame('baseline', a.next(sink.planes)).then((c) => [c, c]);
      const la = ca?.[0]?.length ?? 0;
      const lb = cb?.[0]?.length ?? 0;
      delivered[0] += la;
      delivered[1] += lb;
      if (la === 0 && lb === 0) break;
      // Chunks are full until a decoder's last one: a shorter chunk means that side has ended. The
      // other side is still counted to its end (the compatibility checks compare the counts).
      if (la !== lb) same = false;
      // Each clip on its own, before the chunk's arrays go to the sink (which may move them to its thread).
      if (la > 0) clips[0]?.push(ca!);
      if (lb > 0) clips[1]?.push(cb!);
      // The bundle's difference audio: the head of each side, copied for the same reason.
      capture?.audio(ca ?? undefined, cb ?? undefined);
      if (same && pairMetrics) await sink.push(ca!, cb!);
    }
    await bothSides(blame('baseline', a.finished()), b ? blame('candidate', b.finished()) : Promise.resolve());
    // One decoder for the same bytes on both sides: its count is both sides'.
    const corruptA = await blame('baseline', a.corruptFrames());
    const corrupt: [number | null, number | null] = [corruptA, b ? await blame('candidate', b.corruptFrames()) : corruptA];
    const result = same && pairMetrics ? await sink.finish() : null;
    return { metrics: result?.metrics ?? null, sums: result?.sums ?? null, delivered, corrupt };
  } finally {
    await sink.close();
  }
}

/**
 * A clip's audio figures: its samples' sums, with the decoded frames' timestamps the video decoder's
 * process reported and the corrupt frames the audio decoder's process logged (the process whose
 * samples are measured: a frame is counted once, not again by the video process that also decodes it).
 */
function clipAudioFigures(clip: ClipAudioAccumulator, facts: AudioFacts | null, corrupt: number | null): ClipAudio {
  return clip.finish({ timeBase: facts ? seconds(facts.timeBase) : 1, frames: facts?.frames ?? [] }, corrupt);
}

/** The clip checks' view of a side's video log: the corrupt count, and whether every frame had the first frame's size. */
export function decoderFlags(log: VideoLog): DecoderFlags {
  return { corruptFrames: log.corruptFrames, geometryStable: log.sizes ? log.sizes.changedTo === null : null };
}

/** The probe with the audio's sample count and start as the decode found them. */
function decoded(probe: MediaProbe, facts: AudioFacts | null): MediaProbe {
  if (!probe.audio || !facts) return probe;
  return { ...probe, audio: { ...probe.audio, samples: facts.samples, startPts: facts.startPts, startTimeBase: facts.timeBase } };
}

async function measureProbed(
  scope: ProcessScope,
  tools: ProbeTools,
  probes: [MediaProbe, MediaProbe],
  options: MeasureOptions,
  cores: number,
  shared: SharedClips,
  keep: KeepOptions | undefined,
  kept: { capture: PairCapture | null },
): Promise<MeasureOutcome> {
  // Everything the probes can tell is checked before any frame is decoded.
  const early = checkBeforeDecoding(probes[0], probes[1], options.plan);
  const metricList = resolveMetrics(options.metrics).list;
  if (early) return refused(early, probes, metricList);
  const files: [string, string] = [probes[0].file, probes[1].file];
  const [va, vb] = [probes[0].video!, probes[1].video!];
  const [aa, ab] = [probes[0].audio, probes[1].audio];
  // Audio runs beside video, once the video has reached its steady state: the peak memory is then
  // the same sum (video's buffers + audio's) for a short clip as for a long one.
  const videoThreads = options.videoThreads ?? autoVideoThreads(va, cores);
  const metrics = metricList;
  const withAudio = needsAudio(metrics);
  let warm!: () => void;
  const videoWarm = new Promise<void>((resolve) => (warm = resolve));
  // The clips' audio is analysed whatever the set (docs/metrics.md, "Clip validity"): a set without
  // `audio` decodes it for the clip analysis alone.
  // The bundle's stills and difference audio, kept from this decode when asked (frame-capture.ts).
  const capture = keep
    ? createFrameCapture(metrics, { pixFmt: va.pixFmt, samples: va.width * va.height, rgb24: rgbConversionFor(va.pixFmt, va.height).by === 'ffmpeg' }, aa && withAudio ? Math.round(keep.audioSeconds * aa.sampleRate) : 0)
    : null;
  // Each distinct clip is analysed once per command (docs/metrics.md, "Clip validity"): a side with
  // the baseline's bytes (PairJob.sameMedia) or an analysis this command already made (PairJob.known)
  // is not analysed here.
  const known = shared.known ?? {};
  const sameMedia = shared.sameMedia === true;
  const analyse: [boolean, boolean] = [known.baseline === undefined, known.candidate === undefined && !sameMedia];
  const hasAudio = aa !== null && ab !== null;
  const clipAudio: [ClipAudioAccumulator | null, ClipAudioAccumulator | null] = [
    hasAudio && analyse[0] ? createClipAudioAccumulator(aa.sampleRate, aa.channels) : null,
    hasAudio && analyse[1] ? createClipAudioAccumulator(ab.sampleRate, ab.channels) : null,
  ];
  // Audio is decoded for the pair metrics, or for a clip analysed here.
  const decodeAudio = hasAudio && (withAudio || analyse[0] || analyse[1]);
  // The same bytes on both sides are decoded once (measured in this thread: a frame cannot be moved to a helper as both sides).
  const single = sameMedia && videoThreads === 0;
  const [video, audio] = await firstFailureWins(
    scope,
    measureVideo(scope, tools, files, [va, vb], [aa, ab], metrics, videoThreads, options.videoThreads === undefined && autoSsimAside(va, cores), options.onProgress, warm, analyse, capture, single),
    decodeAudio ? measureAudio(scope, tools, files, [aa!, ab!], options.audioThread ?? videoThreads > 0, videoWarm, clipAudio, withAudio, capture) : Promise.resolve(null),
  );
  // The audio's sample count and start, as the decoders found them: a PCM index they fall short of is
  // a truncated file, then every compatibility check runs in its order; metrics of a pair that
  // fails one are dropped.
  const full: [MediaProbe, MediaProbe] = [decoded(probes[0], video.audio[0]), decoded(probes[1], video.audio[1])];
  (['baseline', 'candidate'] as const).forEach((side, i) => {
    const a = full[i]!.audio;
    if (a?.samples != null) {
      try {
        checkDecodedAudio(a, a.samples, side);
      } catch (error) {
        throw new SideFailure((error as FidelityError).code, (error as FidelityError).message, side, error);
      }
    }
  });
  const failure = checkCompatibility(full[0], full[1], options.plan);
  if (failure) return refused(failure, full, metrics);
  if (audio) {
    // The measuring decoders delivered what the counting ones decoded (the same decoder, another process).
    const expected = full[0].audio!.samples!;
    const [da, db] = audio.delivered;
    if (da !== expected || db !== expected || (withAudio && !audio.metrics)) {
      const side: FailureSide = da !== expected && db !== expected ? 'both' : da !== expected ? 'baseline' : 'candidate';
      throw endedEarly('audio samples', side, side === 'candidate' ? db : da, expected);
    }
  }
  // A set without `audio` measures none: the field is absent (not computed), not null (no audio stream).
  const expectations = options.plan ? clipExpectationsOf(options.plan) : {};
  const analysed = (i: 0 | 1): ClipAnalysis => {
    const accumulator = clipAudio[i];
    const figures = accumulator ? clipAudioFigures(accumulator, video.audio[i], audio?.corrupt[i] ?? null) : null;
    return judgeClip(video.clips[i]!, figures, expectations);
  };
  const baselineClip = known.baseline ?? analysed(0);
  const clips: PairClips = { baseline: baselineClip, candidate: known.candidate ?? (sameMedia ? baselineClip : analysed(1)) };
  const measurement: PairMeasurement = withAudio ? { video: video.metrics, audio: audio?.metrics ?? null, clips } : { video: video.metrics, clips };
  if (computesInferencex(metrics)) {
    // InferenceX refuses a pair whose clip fails one of its unconditional checks (metrics.md, "Clip validity").
    const validity = { baseline: clips.baseline.unconditional_valid, candidate: clips.candidate.unconditional_valid };
    measurement.inferencex = withClipValidity(inferencexOf(full, video.metrics, audio?.sums ?? null), validity);
  }
  if (capture) kept.capture = capture.finish(video.metrics);
  return { ok: true, measurement };
}

/** InferenceX's figures need the pooled rgb24 PSNR and MAE and the audio: every set that computes all three has them. */
function computesInferencex(metrics: readonly MetricName[]): boolean {
  return metrics.includes('psnr_db') && metrics.includes('mae') && metrics.includes('audio');
}

/** A refused pair: with InferenceX's template when the set computes its figures and InferenceX refuses the pair too. */
function refused(failure: MeasureFailure, probes: [MediaProbe, MediaProbe], metrics: readonly MetricName[]): MeasureOutcome {
  if (!computesInferencex(metrics) || inferencexRefuses(probes[0], probes[1]) !== true) return { ok: false, failure };
  return { ok: false, failure, inferencex: inferencexRefused() };
}

/**
 * InferenceX's `compare_media` figures of a measured pair (metrics/inferencex.ts), from the sums of
 * this pass and the probes' timestamps; the template when InferenceX refuses the pair on what the
 * probes say. The clips' verdicts on InferenceX's unconditional checks are applied by the caller
 * (withClipValidity), from the per-clip analysis of the same pass.
 */
function inferencexOf(probes: [MediaProbe, MediaProbe], video: VideoMetrics, sums: AudioChannelSums[] | null): InferencexFigures {
  if (inferencexRefuses(probes[0], probes[1]) !== false) return inferencexRefused();
  const [va, vb] = [probes[0].video!, probes[1].video!];
  const [xa, xb] = [probes[0].audio, probes[1].audio];
  const start = (x: NonNullable<typeof xa>): { pts: number; tb: { num: number; den: number } } | null =>
    x.startPts === null ? null : { pts: x.startPts, tb: x.startTimeBase ?? x.timeBase };
  const [sa, sb] = xa && xb ? [start(xa), start(xb)] : [null, null];
  return inferencexFigures(
    { mae: video.mae!, psnrDb: video.psnr_db ?? null, frames: video.frames, maxAlignmentDeltaSeconds: maxDeltaSeconds(va.pts, va.timeBase, vb.pts, vb.timeBase) },
    sums ? { sums, maxAlignmentDeltaSeconds: sa && sb ? exactDeltaSeconds(sa.pts, sa.tb, sb.pts, sb.tb) : null } : null,
  );
}

function checkArguments(baseline: unknown, candidate: unknown, options: MeasureOptions): void {
  if (typeof baseline !== 'string' || baseline.length === 0) throw invalidParameter('baseline', 'a file path', baseline);
  if (typeof candidate !== 'string' || candidate.length === 0) throw invalidParameter('candidate', 'a file path', candidate);
  const { timeoutMs } = options;
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0)) {
    throw invalidParameter('options.timeoutMs', 'a positive integer', timeoutMs);
  }
  checkVideoThreads(options.videoThreads);
  if (options.metrics !== undefined) resolveMetrics(options.metrics);
  checkPlanSpec(options.plan);
}

/** MeasureOptions.plan and PoolOptions.plan: absent, or plan.json's `video` and `audio` as its schema has them. */
export function checkPlanSpec(plan: unknown): void {
  if (plan !== undefined && !MediaPlanSpecSchema.safeParse(plan).success) {
    throw invalidParameter('options.plan', 'plan.json\'s { video: { width, height, fps, frames }, audio: { sample_rate, channels } }', plan);
  }
}

/** MeasureOptions.videoThreads and PoolOptions.videoThreads: absent, or 0 to MAX_VIDEO_THREADS. */
export function checkVideoThreads(videoThreads: unknown): void {
  if (videoThreads !== undefined && !(Number.isInteger(videoThreads) && (videoThreads as number) >= 0 && (videoThreads as number) <= MAX_VIDEO_THREADS)) {
    throw invalidParameter('options.videoThreads', `an integer from 0 to ${MAX_VIDEO_THREADS}`, videoThreads);
  }
}

/**
 * Measures one baseline/candidate pair of MP4 files. Resolves with the
 * metrics, or with the reason (one of MeasureFailureCodes) the pair could
 * not be measured. Every child process has exited when the promise settles.
 *
 * Which fields the measurement has depends on the metric set (`options.metrics`,
 * docs/metrics.md "Metric sets"): a metric the set does not compute is absent,
 * never null (see {@link VideoMetrics} and {@link PairMeasurement} for each field);
 * null keeps its own meaning (identical frames have no PSNR, identical channels no SNR).
 * Both files must agree exactly in frame count and in decoded audio samples per channel:
 * otherwise the outcome is `{ ok: false }` with `INCOMPATIBLE_FRAME_COUNT` /
 * `INCOMPATIBLE_SAMPLE_COUNT` and no metric at all (docs/media.md, step 3).
 *
 * @throws FidelityError `INVALID_ARGUMENT` for a bad path or option, `FFMPEG_NOT_FOUND` /
 *   `FFMPEG_BROKEN` when no usable ffmpeg/ffprobe pair is found, `ABORTED` when `signal` fires.
 * @example
 * ```ts
 * import { measurePair } from 'media-fidelity';
 *
 * // Two MP4s of the same slot, e.g. from `npx fidelity generate --out runs`.
 * const outcome = await measurePair('runs/h200/media/measurement-r000-c003.mp4', 'runs/b200/media/measurement-r000-c003.mp4');
 * if (!outcome.ok) {
 *   // Not comparable: a reason code and why, never partial metrics.
 *   console.error(outcome.failure.code, outcome.failure.message);
 * } else {
 *   const { video, audio } = outcome.measurement;
 *   // The default set computes ssim, ssim_ffmpeg, psnr_y, psnr_db, mae and audio; `ffmpeg` has no ssim, and so on.
 *   console.log(video.frames, video.ssim?.min, video.ssim?.worst_frame); // e.g. 12 0.4351606117094784 9 (the generator's encoder decides the exact values)
 *   console.log(video.psnr_db === null ? 'identical frames' : video.psnr_db); // e.g. 22.765244281245607 (null only when every frame is identical)
 *   // audio: absent when the set has no `audio`, null when neither file has audio.
 *   for (const ch of audio?.channels ?? []) console.log(ch.channel, ch.snr_db ?? ch.snr_db_reason); // 0 identical, 1 identical (this pair's audio is bit-identical)
 * }
 * ```
 */
export async function measurePair(baseline: string, candidate: string, options: MeasureOptions = {}): Promise<MeasureOutcome> {
  return measurePairOn(baseline, candidate, options, defaultThreadCount());
}

/** measurePair for a caller that shares the machine (the pool): `cores` bounds the default helper threads. */
/** A pair failure as measuring reports it (a side when it is one file's), or null for an error no pair could get past. */
function pairFailure(error: unknown): MeasureOutcome | null {
  if (isFidelityError(error) && FAILURE_CODES.has(error.code)) {
    const side = error instanceof SideFailure ? { side: error.side } : {};
    return { ok: false, failure: { code: error.code, message: error.message, ...side } };
  }
  return null;
}

/**
 * What measuring learns about a pair before any frame is decoded: both
 * probes when the pair is comparable, else the failure measuring would
 * report for it (a probe that failed, or checkCompatibility's reason).
 */
export type PairFacts = { ok: true; baseline: MediaProbe; candidate: MediaProbe } | { ok: false; failure: MeasureFailure };

/**
 * Probes both files and judges their compatibility exactly as measurePair
 * does before its first frame, without measuring: for a caller that checks
 * someone else's measurement of the pair against the media (merge).
 *
 * @throws FidelityError ABORTED when `signal` aborts; FFMPEG_NOT_FOUND / FFMPEG_BROKEN.
 */
export async function probePair(baseline: string, candidate: string, options: Pick<MeasureOptions, 'ffmpeg' | 'timeoutMs' | 'signal' | 'plan'> = {}): Promise<PairFacts> {
  checkArguments(baseline, candidate, options);
  if (options.signal?.aborted) throw new FidelityError('ABORTED', 'the probing was cancelled');
  const toolchain = await resolveFfmpeg(options.ffmpeg);
  const tools: ProbeTools = { ffmpeg: toolchain.ffmpeg.path, ffprobe: toolchain.ffprobe.path, timeoutMs: options.timeoutMs ?? DEFAULT_DECODE_TIMEOUT_MS };
  const scope = new ProcessScope(options.signal);
  try {
    const probes = await bothSides(blame('baseline', probeMedia(scope, tools, baseline, 'baseline')), blame('candidate', probeMedia(scope, tools, candidate, 'candidate')));
    scope.throwIfAborted();
    const failure = checkCompatibility(probes[0], probes[1], options.plan);
    return failure ? { ok: false, failure } : { ok: true, baseline: probes[0], candidate: probes[1] };
  } catch (error) {
    if (options.signal?.aborted) throw new FidelityError('ABORTED', 'the probing was cancelled', { cause: error });
    const failed = pairFailure(error);
    if (failed && !failed.ok) return failed;
    throw error;
  } finally {
    await scope.close();
  }
}

/** What a pool task knows of its pair's clips before measuring (PairJob.sameMedia, PairJob.known). */
export type SharedClips = Pick<PairJob, 'sameMedia' | 'known'>;

/**
 * measurePair for a caller that shares the machine (the pool): `cores` bounds the default helper
 * threads; `shared` says which clip analyses need not be made here: both files hold the same bytes
 * (PairJob.sameMedia: the file is probed once and analysed once for both sides), or a side's
 * analysis was already made by another pair of the command (PairJob.known).
 */
export async function measurePairOn(baseline: string, candidate: string, options: MeasureOptions, cores: number, shared: SharedClips = {}): Promise<MeasureOutcome> {
  return measurePairWith(baseline, candidate, options, cores, undefined, { capture: null }, shared);
}

/**
 * measurePairOn, also keeping what the bundle shows of the pair (`keep`, pool/frame-capture.ts) when
 * the pair is measured: `capture` is null for a pair that failed or was refused, and a part of it is
 * null where nothing was kept. The outcome is the same bytes as measurePairOn's.
 */
export async function measurePairKeeping(
  baseline: string,
  candidate: string,
  options: MeasureOptions,
  cores: number,
  keep: KeepOptions,
  shared: SharedClips = {},
): Promise<{ outcome: MeasureOutcome; capture: PairCapture | null }> {
  const kept: { capture: PairCapture | null } = { capture: null };
  const outcome = await measurePairWith(baseline, candidate, options, cores, keep, kept, shared);
  return { outcome, capture: outcome.ok ? kept.capture : null };
}

async function measurePairWith(
  baseline: string,
  candidate: string,
  options: MeasureOptions,
  cores: number,
  keep: KeepOptions | undefined,
  kept: { capture: PairCapture | null },
  shared: SharedClips,
): Promise<MeasureOutcome> {
  const sameMedia = shared.sameMedia === true;
  checkArguments(baseline, candidate, options);
  if (options.signal?.aborted) return aborted();
  const toolchain = await resolveFfmpeg(options.ffmpeg);
  const tools: ProbeTools = {
    ffmpeg: toolchain.ffmpeg.path,
    ffprobe: toolchain.ffprobe.path,
    timeoutMs: options.timeoutMs ?? DEFAULT_DECODE_TIMEOUT_MS,
    ffmpegVersion: toolchain.ffmpeg.version,
  };
  const scope = new ProcessScope(options.signal);
  try {
    // The same bytes probe the same: once, and its failure is both sides'.
    const probes: [MediaProbe, MediaProbe] = sameMedia
      ? await onBoth(probeMedia(scope, tools, baseline, 'baseline')).then((p): [MediaProbe, MediaProbe] => [p, { ...p, file: candidate }])
      : await bothSides(blame('baseline', probeMedia(scope, tools, baseline, 'baseline')), blame('candidate', probeMedia(scope, tools, candidate, 'candidate')));
    scope.throwIfAborted();
    return await measureProbed(scope, tools, probes, options, cores, shared, keep, kept);
  } catch (error) {
    // Whatever broke after an abort (a killed pipe, a short frame) is the abort.
    if (options.signal?.aborted) return aborted();
    const failed = pairFailure(error);
    if (failed) return failed;
    throw error;
  } finally {
    await scope.close();
  }
}
