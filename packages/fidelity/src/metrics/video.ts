/**
 * Every video metric of one pair, frame by frame: the caller feeds decoded
 * baseline/candidate frames in order and gets VideoMetrics at the end.
 * Nothing is resampled, skipped or re-aligned. rgb24, where a metric reads
 * it, is converted from the planes here (rgb24.ts) unless the options say
 * the frames carry ffmpeg's.
 *
 * Which metrics run is the metric set's choice (registry.ts); each is one
 * definition there. A frame's metrics come in two parts. The `temporal`
 * definitions (ssim_ffmpeg, whose line buffers carry from one frame to the
 * next) must see every frame in order, in one thread. Everything else (the
 * Gaussian and 7x7 SSIMs, the sample differences) depends on that frame
 * alone: measureFrameValues() computes it in any thread, in any order. The
 * accumulator files both parts under the frame's index (addOrdered,
 * addValues), which is what lets measurePair spread a stream over several
 * threads and still give the same bytes as one thread: each value is
 * computed by the same code on the same planes, and the pooled sums are
 * added up in frame order at the end. addFrame() does both parts here.
 */
import { FidelityError, invalidParameter } from '../errors.js';
import type { VideoMetrics } from '../schemas/measurement.js';
import type { DecodedFrame, FrameGeometry } from './frame.js';
import { checkGeometry, createMetricRunner, finishVideo, resolveMetrics } from './registry.js';
import type { MetricName, MetricsSpec, RoleValues } from './registry.js';
import type { FfmpegSsim } from './ssim-ffmpeg.js';
import { DEFAULT_RGB_CONVERSION } from './rgb24.js';
import type { RgbConversion } from './rgb24.js';
import { kernels } from './wasm.js';
import type { Kernels } from './wasm.js';

/**
 * How the frames' rgb24 is made, for the metrics that read it (docs/metrics.md, "RGB conversion").
 * Default `{ by: 'fidelity', matrix: 'bt601', range: 'limited' }`: converted from the planes by the
 * exact integer formula, frames carry no rgb24. `by: 'ffmpeg'`: every frame carries its own rgb24.
 */
export interface VideoMetricOptions {
  /** How rgb24 is made for the metrics that read it (see above); default converted by the library, BT.601 limited range. */
  rgb?: RgbConversion;
  /**
   * Told every part of every frame as it is filed (addFrame's two, addOrdered's, addValues'), by frame
   * index, in the order they come: for a caller that follows a series while it is measured (the
   * bundle's stills). It reads; the values are the accumulator's.
   */
  onValues?: (index: number, values: FrameValues) => void;
}

/**
 * One role's metrics of one frame: each chosen definition's value under its metric name, and,
 * for the order-free role, whether every sample of the frame pair is equal.
 */
export type FrameValues = RoleValues;

/**
 * The video metrics of one pair, frame by frame: feed both streams' frames in order (`addFrame`, or
 * the two parts `addOrdered` + `addValues` when frames are spread over threads), then `finish` for
 * the {@link VideoMetrics} of the chosen metric set.
 */
export interface VideoAccumulator {
  /** Baseline a, candidate b: the next frame of each stream, in order. Both parts, in this thread. */
  addFrame(a: DecodedFrame, b: DecodedFrame): void;
  /** The ordered (temporal) part of frame `index`, from one runner that was fed every frame in order. */
  addOrdered(index: number, values: FrameValues): void;
  /** The rest of frame `index`, from measureFrameValues() on the same planes (any thread, any order). */
  addValues(index: number, values: FrameValues): void;
  finish(): VideoMetrics;
}

/** What ssim_ffmpeg reads of a frame: the planar YUV (no rgb24). */
export type PlanarFrame = Omit<DecodedFrame, 'rgb'>;

/** The order-dependent part of a stream: feed it every frame, in order, in one thread. */
export interface FfmpegSeries {
  next(a: PlanarFrame, b: PlanarFrame): FfmpegSsim;
}

const NO_RGB = new Uint8Array(0);

/**
 * Starts FFmpeg's SSIM (Y, U, V, All) over a stream of frame pairs of the given geometry. It carries
 * state from one frame to the next, so it must see every frame, in order, in one thread.
 *
 * @throws FidelityError `INVALID_ARGUMENT` for a geometry that is not positive integers or an unknown chroma layout.
 */
export function createFfmpegSeries(geometry: FrameGeometry): FfmpegSeries {
  const runner = createMetricRunner(geometry, ['ssim_ffmpeg'], true);
  return { next: (a, b) => runner.frame({ ...a, rgb: NO_RGB }, { ...b, rgb: NO_RGB }).metrics['ssim_ffmpeg'] as FfmpegSsim };
}

/** The ordered part of a stream for a metric set: feed it every frame, in order, in one thread; file each result with addOrdered. */
export interface OrderedSeries {
  next(a: DecodedFrame, b: DecodedFrame): FrameValues;
}

/**
 * Starts the temporal metrics of a set (`default` when absent; today ssim_ffmpeg) over a stream of
 * frame pairs: sizes checked and memory laid out once, state carried from frame to frame.
 */
export function createOrderedSeries(geometry: FrameGeometry, metrics?: MetricsSpec, options: VideoMetricOptions = {}): OrderedSeries {
  const runner = createMetricRunner(geometry, resolveMetrics(metrics).list, true, options.rgb);
  return { next: (a, b) => runner.frame(a, b) };
}

/**
 * The order-independent metrics of one frame pair (of the chosen set, `default` when absent), in this
 * thread's kernels. Sizes are checked and the memory laid out on every call; a stream's worth of
 * frames goes faster through {@link createVideoAccumulator}, which does that once.
 */
export function measureFrameValues(a: DecodedFrame, b: DecodedFrame, geometry: FrameGeometry, metrics?: MetricsSpec, options: VideoMetricOptions = {}): FrameValues {
  return createMetricRunner(geometry, resolveMetrics(metrics).list, false, options.rgb).frame(a, b);
}

/** More frames than any stream has (a day at 60 fps): an index past it is a bug, not a frame. */
const MAX_FRAMES = 24 * 3600 * 60;

/**
 * Starts the per-pair video metrics (docs/metrics.md) of a metric set (`default` when absent) for
 * frames of the given geometry. Sizes are checked and memory laid out once, here. The RGB metrics
 * read rgb24 converted from the planes (`options.rgb`, BT.601 limited by default; report fields
 * `rgb_conversion`, `rgb_matrix`, `rgb_range`).
 *
 * @throws FidelityError `INVALID_ARGUMENT` for a bad geometry, metric set or `options.rgb` (the
 *   formula covers 4:2:0 at an even height and 4:2:2; other planes need `by: 'ffmpeg'` and frames
 *   carrying rgb24), `FRAME_TOO_SMALL` for a frame smaller than a chosen metric's window, or (from
 *   `addFrame`) frames of another size or a frame count over 60 hours at 24 fps.
 * @example
 * ```ts
 * const acc = createVideoAccumulator({ width: 112, height: 64, chromaWidth: 56, chromaHeight: 32 }, 'all');
 * for (const [a, b] of framePairs) acc.addFrame(a, b); // DecodedFrame of each side (Y, U, V)
 * const metrics = acc.finish(); // VideoMetrics: ssim, ssim_ffmpeg, ssim_rgb7, psnr_y, psnr_db, mae, rgb_conversion ...
 * ```
 */
export function createVideoAccumulator(geometry: FrameGeometry, metrics: MetricsSpec = 'default', options: VideoMetricOptions = {}): VideoAccumulator {
  return createVideoAccumulatorOn(kernels(), geometry, metrics, options);
}

/**
 * createVideoAccumulator on given kernels (metrics/wasm.ts): a pair's own, whose memory its frames
 * are read into (pool/frame-memory.ts). Its layout is reserved here, before the caller pins the memory.
 */
export function createVideoAccumulatorOn(k: Kernels, geometry: FrameGeometry, metrics: MetricsSpec = 'default', options: VideoMetricOptions = {}): VideoAccumulator {
  const g = checkGeometry(geometry);
  const list: readonly MetricName[] = resolveMetrics(metrics).list;
  // Both roles are initialised now, so a frame too small for a chosen metric (or a conversion the planes do not allow) is refused before any frame.
  // addFrame runs them as one runner: each plane is copied into the kernels' memory once per frame, not once per role.
  const runner = createMetricRunner(g, list, null, options.rgb, k);
  const temporalNames = new Set(runner.defs.filter((d) => d.temporal).map((d) => d.name));
  const rgb = options.rgb ?? DEFAULT_RGB_CONVERSION;
  /** By frame index; a hole is a frame whose part has not come in yet. */
  const orderedParts: (FrameValues | undefined)[] = [];
  const valueParts: (FrameValues | undefined)[] = [];
  let finished = false;

  function file(list: (FrameValues | undefined)[], call: string, index: number, item: FrameValues): void {
    if (finished) throw new FidelityError('INVALID_ARGUMENT', `${call} after finish()`);
    if (!Number.isInteger(index) || index < 0 || index >= MAX_FRAMES) throw invalidParameter('index', 'a frame index (an integer from 0)', index);
    if (list[index] !== undefined) throw new FidelityError('INVALID_ARGUMENT', `${call}: frame ${index} was already added`);
    if (item === null || typeof item !== 'object' || item.metrics === null || typeof item.metrics !== 'object') throw invalidParameter(`${call} values`, 'FrameValues', item);
    // Filling a later index first leaves holes (undefined), which finish() refuses.
    while (list.length < index) list.push(undefined);
    list[index] = item;
    options.onValues?.(index, item);
  }

  function finish(): VideoMetrics {
    const count = Math.max(orderedParts.length, valueParts.length);
    if (count === 0) throw new FidelityError('NO_FRAMES', 'No frame was added: a stream of no frames has no video metrics');
    for (let i = 0; i < count; i++) {
      if (orderedParts[i] === undefined) throw new FidelityError('INVALID_ARGUMENT', `finish() before the ordered part of frame ${i} was added`);
      if (valueParts[i] === undefined) throw new FidelityError('INVALID_ARGUMENT', `finish() before the values of frame ${i} were added`);
    }
    finished = true;
    // Pooled in frame order, whichever thread finished first: the same sums, the same bytes.
    return finishVideo(g, list, count, orderedParts as FrameValues[], valueParts as FrameValues[], rgb);
  }

  return {
    addFrame(a, b) {
      if (finished) throw new FidelityError('INVALID_ARGUMENT', 'addFrame() after finish()');
      const index = orderedParts.length;
      const both = runner.frame(a, b);
      // The same values the two roles give separately (tested): each definition sees the same planes.
      const o: FrameValues = { metrics: {} };
      const v: FrameValues = { identical: both.identical, metrics: {} };
      for (const [name, value] of Object.entries(both.metrics)) (temporalNames.has(name) ? o : v).metrics[name] = value;
      file(orderedParts, 'addFrame()', index, o);
      file(valueParts, 'addFrame()', index, v);
    },
    addOrdered: (index, part) => file(orderedParts, 'addOrdered()', index, part),
    addValues: (index, part) => file(valueParts, 'addValues()', index, part),
    finish,
  };
}

