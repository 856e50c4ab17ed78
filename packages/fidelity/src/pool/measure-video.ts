/**
 * The video side of a pair's measurement: opens the one ffmpeg process that decodes both files,
 * chooses the frame sink once (helper threads, SSIM beside, or inline), lists the observers, and runs
 * the frame loop (frame-loop.ts) over them.
 */
import type { AudioFacts } from '../media/audio-facts.js';
import type { AudioProbe, ProbeTools, VideoProbe } from '../media/probe.js';
import type { ProcessScope } from '../media/process.js';
import { openVideoDecoders } from '../media/video-decoder.js';
import type { VideoDecoder } from '../media/video-decoder.js';
import { createClipVideoAccumulator } from '../metrics/clip-video.js';
import type { FrameGeometry } from '../metrics/frame.js';
import type { MetricName } from '../metrics/registry.js';
import { rgbConversionFor } from '../metrics/rgb24.js';
import type { RgbConversion } from '../metrics/rgb24.js';
import { createTemporalOffsetSearch } from '../metrics/temporal-offset.js';
import { createVideoAccumulatorOn } from '../metrics/video.js';
import type { FrameValues, VideoAccumulator } from '../metrics/video.js';
import { kernels } from '../metrics/wasm.js';
import type { Kernels } from '../metrics/wasm.js';
import type { ClipVideo } from '../schemas/clip.js';
import type { VideoMetrics } from '../schemas/measurement.js';
import type { MeasureProgress } from './api.js';
import type { FrameCapture } from './frame-capture.js';
import { FRAMES_PER_HELPER } from './frame-helpers.js';
import { pairDecoders, runFrameLoop, valuesHook } from './frame-loop.js';
import type { FrameSettle, FrameSink } from './frame-loop.js';
import { leaseFrameMemory } from './frame-memory.js';
import { observeClip } from './observe-clip.js';
import { observeOffset } from './observe-offset.js';
import { observeStills } from './observe-stills.js';
import { blame, SideFailure } from './side-failure.js';
import { helperSink } from './sink-helpers.js';
import { inlineSink } from './sink-inline.js';
import { ssimBesideSink } from './sink-ssim-beside.js';

/** What the video side of a pair is asked to do. */
export interface VideoPassOptions {
  scope: ProcessScope;
  tools: ProbeTools;
  files: [string, string];
  streams: [VideoProbe, VideoProbe];
  /** Each side's audio stream, for the facts the video process reports of it (media/audio-facts.ts). */
  audio: [AudioProbe | null, AudioProbe | null];
  metrics: readonly MetricName[];
  /** Value helper threads (0: none). */
  threads: number;
  /** With no helper threads, whether the Gaussian SSIM runs in a thread of its own. */
  ssimAside: boolean;
  onProgress?: ((progress: MeasureProgress) => void) | undefined;
  /** Called once the video reached its steady state, and when it ends whatever happened (the audio waits for it). */
  onWarm: () => void;
  /** Per side, whether its clip is analysed here. */
  analyse: readonly [boolean, boolean];
  /** The bundle's capture, when asked to keep one. */
  capture: FrameCapture | null;
  /** The same bytes on both sides: decoded once, each frame both sides' frame. */
  single: boolean;
}

/** The video metrics, what each side's process learned about its audio (null without audio), and each clip's own video figures. */
export interface VideoOutcome {
  metrics: VideoMetrics;
  audio: [AudioFacts | null, AudioFacts | null];
  /** Null for a side not analysed here (PairClipsShared: the same bytes, or an analysis this command already made). */
  clips: [ClipVideo | null, ClipVideo | null];
}

/** What each sink needs; the choice among them is chooseFrameSink's. */
interface SinkChoice {
  geometry: FrameGeometry;
  metrics: readonly MetricName[];
  threads: number;
  ssimAside: boolean;
  rgb: RgbConversion;
  kernels: Kernels;
}

/** The frame sink for the pair, chosen once: helper threads when asked for, the SSIM beside when a core is spare and the set has it, else inline. */
function chooseFrameSink(choice: SinkChoice, accumulator: VideoAccumulator): (settle: FrameSettle) => FrameSink {
  if (choice.threads > 0) return (settle) => helperSink(choice, accumulator, settle);
  // Its runners are laid out now, before the frame buffers pin the kernels' memory.
  if (choice.ssimAside && choice.metrics.includes('ssim')) return ssimBesideSink(choice, accumulator);
  return (settle) => inlineSink(accumulator, settle);
}

/** Decodes both sides' video and measures it through the frame loop. */
export async function measureVideo(options: VideoPassOptions): Promise<VideoOutcome> {
  const { streams, threads, capture } = options;
  try {
    // Every frame out with a helper is one more the decoders must not wait for.
    const capacity = 2 + FRAMES_PER_HELPER * threads;
    // rgb24 is converted from the planes in the metrics' thread; the decoders convert (fd 4) only
    // where the exact formula does not apply, and then whatever the set: the clip analysis reads
    // rgb24 in every set, and the stills' kept frame carries it (frame-capture.ts, media/frames.ts).
    const rgb = rgbConversionFor(streams[0].pixFmt, streams[0].height);
    const geometry = streams[0].geometry;
    if (!geometry) throw new SideFailure('UNSUPPORTED_PIXEL_FORMAT', `baseline: ${streams[0].pixFmt} is not read without conversion`, 'baseline');
    // Each part that sees every frame, in frame order, before the sink takes it. A side whose bytes are
    // analysed elsewhere (the other side's same bytes, or another pair of this command: PairJob.sameMedia,
    // PairJob.known) is not analysed again.
    const offsetSearch = createTemporalOffsetSearch(geometry.width, geometry.height, streams[0].frames);
    const observers = {
      baseline: options.analyse[0] ? observeClip(createClipVideoAccumulator(geometry, rgb), 0) : null,
      candidate: options.analyse[1] ? observeClip(createClipVideoAccumulator(geometry, rgb), 1) : null,
      offset: offsetSearch ? observeOffset(offsetSearch) : null,
      stills: capture ? observeStills(capture) : null,
    };
    let ready: { accumulator: VideoAccumulator; sink: (settle: FrameSettle) => FrameSink; decoders: VideoDecoder[] };
    try {
      ready = await openVideoPass(options, geometry, rgb, capacity, valuesHook(observers));
    } catch (error) {
      // The loop closes the observers it runs; these never reached it.
      for (const o of Object.values(observers)) o?.close();
      throw error;
    }
    const { accumulator } = ready;
    const loop = await runFrameLoop({
      decoders: pairDecoders(ready.decoders),
      framesTotal: streams[0].frames,
      observers,
      sink: ready.sink,
      measured: () => accumulator.finish(),
      onProgress: options.onProgress,
      onWarm: options.onWarm,
    });
    const { baseline, candidate, offset } = loop.observed;
    const video = loop.video!;
    return { metrics: offset ? { ...video, temporal_offset: offset } : video, audio: loop.audio, clips: [baseline, candidate] };
  } finally {
    // Whatever happened, the audio side must not wait for a warm-up that will never come.
    options.onWarm();
  }
}

/**
 * The accumulator (on kernels of their own when frames are measured in this thread), the sink chosen
 * for the pair, and the decoders, reading straight into those kernels' memory where they can.
 */
async function openVideoPass(
  options: VideoPassOptions,
  geometry: NonNullable<VideoProbe['geometry']>,
  rgb: RgbConversion,
  capacity: number,
  onValues: ((index: number, values: FrameValues) => void) | undefined,
): Promise<{ accumulator: VideoAccumulator; sink: (settle: FrameSettle) => FrameSink; decoders: VideoDecoder[] }> {
  const { scope, streams, metrics, threads } = options;
  const rgb24 = rgb.by === 'ffmpeg';
  // Frames measured in this thread are read straight into the metric kernels' memory (pool/frame-memory.ts):
  // every reader's buffers, and a few for the one that runs ahead while the other is waited for.
  const memory = threads === 0 && !rgb24 ? leaseFrameMemory(geometry.yuvBytes, 2 * (capacity + 2) + 4) : null;
  if (memory) scope.defer(() => memory.close());
  const k = memory?.kernels ?? kernels();
  const accumulator = createVideoAccumulatorOn(k, geometry, metrics, { rgb, ...(onValues ? { onValues } : {}) });
  const sink = chooseFrameSink({ geometry, metrics, threads, ssimAside: options.ssimAside, rgb, kernels: k }, accumulator);
  const buffers = memory?.buffers();
  // One ffmpeg process decodes both files, each on outputs of its own (media/video-decoder.ts); the
  // same bytes on both sides (`single`) are decoded once, and each frame is both sides' frame.
  const sides = [
    { file: options.files[0], label: 'baseline', video: streams[0], audio: options.audio[0] },
    ...(options.single ? [] : [{ file: options.files[1], label: 'candidate', video: streams[1], audio: options.audio[1] }]),
  ];
  const decoders = await blame('both', openVideoDecoders(scope, options.tools, sides, { capacity, rgb24, buffers: [buffers, buffers] }));
  return { accumulator, sink, decoders };
}
