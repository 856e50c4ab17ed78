/**
 * Every video metric of one pair, frame by frame: the caller feeds decoded
 * baseline/candidate frames in order and gets VideoMetrics at the end.
 * Nothing is resampled, skipped or re-aligned.
 *
 * A frame's metrics come in two parts. ssim_ffmpeg carries FFmpeg's line
 * buffers from one frame to the next (ssim-ffmpeg.ts), so one FfmpegSeries
 * must see every frame in order. Everything else (the Gaussian and 7x7
 * SSIMs, the sample differences) depends on that frame alone:
 * measureFrameValues() computes it in any thread, in any order. The
 * accumulator files both parts under the frame's index (addOrdered,
 * addValues), which is what lets measurePair spread a stream over several
 * threads and still give the same bytes as one thread: each value is
 * computed by the same code on the same planes, and the pooled sums are
 * added up in frame order at the end. addFrame() does both parts here.
 */
import { FidelityError, invalidParameter } from '../errors.js';
import type { VideoMetrics } from '../schemas/measurement.js';
import type { DecodedFrame, FrameGeometry } from './frame.js';
import { checkPlane } from './planes.js';
import { PooledDiff, diffStatsAt, psnrFromSse } from './psnr.js';
import { summarizePsnr, summarizeSsim } from './series.js';
import { FfmpegSsimState, checkFfmpegSize } from './ssim-ffmpeg.js';
import type { FfmpegSsim } from './ssim-ffmpeg.js';
import { GAUSSIAN_TAPS_BYTES, checkGaussianSize, gaussianScratchBytes, writeGaussianTaps } from './ssim-gaussian.js';
import { boxScratchBytes, boxWindows, checkBoxSize } from './ssim-rgb7.js';
import { kernels, Layout } from './wasm.js';

function checkGeometry(geometry: FrameGeometry): FrameGeometry {
  if (geometry === null || typeof geometry !== 'object') throw invalidParameter('geometry', 'an object', geometry);
  const { width, height, chromaWidth, chromaHeight } = geometry;
  for (const [name, value] of Object.entries({ width, height, chromaWidth, chromaHeight })) {
    if (!Number.isInteger(value) || value <= 0) throw invalidParameter(`geometry.${name}`, 'a positive integer', value);
  }
  if (chromaWidth > width || chromaHeight > height) {
    throw invalidParameter('geometry', 'chroma planes no larger than luma', `${chromaWidth}x${chromaHeight} for ${width}x${height}`);
  }
  checkGaussianSize(width, height);
  checkBoxSize(width, height);
  checkFfmpegSize(width, height);
  checkFfmpegSize(chromaWidth, chromaHeight);
  return { width, height, chromaWidth, chromaHeight };
}

function checkPlanar(name: string, frame: PlanarFrame, g: FrameGeometry): void {
  if (frame === null || typeof frame !== 'object') throw invalidParameter(name, 'a DecodedFrame', frame);
  if (frame.width !== g.width || frame.height !== g.height) {
    throw invalidParameter(`${name} size`, `${g.width}x${g.height}`, `${frame.width}x${frame.height}`);
  }
  checkPlane(`${name}.y`, frame.y, g.width, g.height);
  checkPlane(`${name}.u`, frame.u, g.chromaWidth, g.chromaHeight);
  checkPlane(`${name}.v`, frame.v, g.chromaWidth, g.chromaHeight);
}

function checkFrame(name: string, frame: DecodedFrame, g: FrameGeometry): void {
  checkPlanar(name, frame, g);
  checkPlane(`${name}.rgb`, frame.rgb, g.width, g.height, 3);
}

/** The metrics of one frame that depend on nothing but that frame. */
export interface FrameValues {
  /** Gaussian SSIM on Y. */
  ssim: number;
  /** 7x7 SSIM, mean of the three rgb24 channels. */
  rgb7: number;
  /** sum (a - b)^2 over Y. */
  ySse: number;
  /** sum |a - b| and sum (a - b)^2 over every rgb24 sample. */
  rgbSad: number;
  rgbSse: number;
  /** Every Y, U, V and rgb24 sample equal. */
  identical: boolean;
}

/**
 * The video metrics of one pair, frame by frame: feed both streams' frames in order (`push`, or the
 * two-part `pushValues` + an {@link FfmpegSeries} when frames are spread over threads), then `finish`
 * for the {@link VideoMetrics}.
 */
export interface VideoAccumulator {
  /** Baseline a, candidate b: the next frame of each stream, in order. Both parts, in this thread. */
  addFrame(a: DecodedFrame, b: DecodedFrame): void;
  /** ssim_ffmpeg of frame `index`, from one FfmpegSeries that was fed every frame in order. */
  addOrdered(index: number, ssim: FfmpegSsim): void;
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

/**
 * Starts FFmpeg's SSIM (Y, U, V, All) over a stream of frame pairs of the given geometry. It carries
 * state from one frame to the next, so it must see every frame, in order, in one thread.
 *
 * @throws FidelityError `INVALID_ARGUMENT` for a geometry that is not positive integers or an unknown chroma layout.
 */
export function createFfmpegSeries(geometry: FrameGeometry): FfmpegSeries {
  const g = checkGeometry(geometry);
  const lumaSize = g.width * g.height;
  const chromaSize = g.chromaWidth * g.chromaHeight;
  const state = new FfmpegSsimState(g.width);
  return {
    next(a, b) {
      checkPlanar('a', a, g);
      checkPlanar('b', b, g);
      // Laid out afresh on every frame: the memory is shared with every other metric call of this thread.
      const k = kernels();
      const layout = new Layout(k.base);
      const ay = layout.take(lumaSize);
      const by = layout.take(lumaSize);
      const au = layout.take(chromaSize);
      const bu = layout.take(chromaSize);
      const av = layout.take(chromaSize);
      const bv = layout.take(chromaSize);
      const temp = layout.take(4 * state.temp.length);
      k.reserve(layout.size - k.base);
      k.u8(ay, lumaSize).set(a.y);
      k.u8(by, lumaSize).set(b.y);
      k.u8(au, chromaSize).set(a.u);
      k.u8(bu, chromaSize).set(b.u);
      k.u8(av, chromaSize).set(a.v);
      k.u8(bv, chromaSize).set(b.v);
      return state.frameAt(k, { y: [ay, by], u: [au, bu], v: [av, bv] }, g, temp);
    },
  };
}

/**
 * The order-independent metrics of one frame pair, in this thread's kernels.
 * The planes are copied once into the kernels' memory, laid out afresh on
 * every call because that memory is shared with every other metric call of
 * the thread.
 */
export function measureFrameValues(a: DecodedFrame, b: DecodedFrame, geometry: FrameGeometry): FrameValues {
  const g = checkGeometry(geometry);
  checkFrame('a', a, g);
  checkFrame('b', b, g);
  const lumaSize = g.width * g.height;
  const rgbSize = 3 * lumaSize;
  // Equal planes give exactly 1 from both SSIM kernels (D = 0 and var(d) = 0 in ssim_gauss; equal
  // integer sums in ssim_box7) and no differences, so a byte compare (a fraction of a millisecond)
  // stands in for the copies and the kernels: the same values, not an approximation of them.
  const yEqual = equalBytes(a.y, b.y);
  const rgbEqual = equalBytes(a.rgb, b.rgb);
  let ssim = 1;
  let ySse = 0;
  let rgb7 = 1;
  let rgb = { sad: 0, sse: 0 };
  if (!yEqual || !rgbEqual) {
    const k = kernels();
    const layout = new Layout(k.base);
    const ay = layout.take(lumaSize);
    const by = layout.take(lumaSize);
    const argb = layout.take(rgbSize);
    const brgb = layout.take(rgbSize);
    const taps = layout.take(GAUSSIAN_TAPS_BYTES);
    const out = layout.take(16);
    const scratch = layout.take(Math.max(gaussianScratchBytes(g.width), boxScratchBytes(3 * g.width)));
    k.reserve(layout.size - k.base);
    if (!yEqual) {
      k.u8(ay, lumaSize).set(a.y);
      k.u8(by, lumaSize).set(b.y);
      writeGaussianTaps(k, taps);
      ySse = diffStatsAt(k, ay, by, lumaSize, out).sse;
      ssim = k.fn.ssim_gauss(ay, by, g.width, g.height, taps, scratch);
    }
    if (!rgbEqual) {
      k.u8(argb, rgbSize).set(a.rgb);
      k.u8(brgb, rgbSize).set(b.rgb);
      rgb = diffStatsAt(k, argb, brgb, rgbSize, out);
      rgb7 = k.fn.ssim_box7(argb, brgb, 3 * g.width, g.height, 3, scratch) / (3 * boxWindows(g.width, g.height));
    }
  }
  // Chroma only decides `identical`: a difference there alone shows in no other metric but ssim_ffmpeg.
  const identical = yEqual && rgbEqual && equalBytes(a.u, b.u) && equalBytes(a.v, b.v);
  return { ssim, rgb7, ySse, rgbSad: rgb.sad, rgbSse: rgb.sse, identical };
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

/** More frames than any stream has (a day at 60 fps): an index past it is a bug, not a frame. */
const MAX_FRAMES = 24 * 3600 * 60;

/**
 * Starts the per-pair video metrics (docs/metrics.md) for frames of the given geometry.
 *
 * @throws FidelityError `INVALID_ARGUMENT` for a bad geometry, or (from `push`) frames of another size or a frame count over 60 hours at 24 fps.
 * @example
 * ```ts
 * const acc = createVideoAccumulator({ width: 112, height: 64, chroma: '420' });
 * for (const [a, b] of framePairs) acc.push(a, b); // DecodedFrame of each side
 * const metrics = acc.finish(); // VideoMetrics: ssim, ssim_ffmpeg, ssim_rgb7, psnr_y, psnr_db, mae
 * ```
 */
export function createVideoAccumulator(geometry: FrameGeometry): VideoAccumulator {
  const g = checkGeometry(geometry);
  const lumaSize = g.width * g.height;
  const series = createFfmpegSeries(g);
  /** By frame index; a hole is a frame whose part has not come in yet. */
  const ordered: (FfmpegSsim | undefined)[] = [];
  const values: (FrameValues | undefined)[] = [];
  let finished = false;

  function file<T>(list: (T | undefined)[], call: string, index: number, item: T): void {
    if (finished) throw new FidelityError('INVALID_ARGUMENT', `${call} after finish()`);
    if (!Number.isInteger(index) || index < 0 || index >= MAX_FRAMES) throw invalidParameter('index', 'a frame index (an integer from 0)', index);
    if (list[index] !== undefined) throw new FidelityError('INVALID_ARGUMENT', `${call}: frame ${index} was already added`);
    // Filling a later index first leaves holes (undefined), which finish() refuses.
    while (list.length < index) list.push(undefined);
    list[index] = item;
  }

  function finish(): VideoMetrics {
    const count = Math.max(ordered.length, values.length);
    if (count === 0) throw new FidelityError('NO_FRAMES', 'No frame was added: a stream of no frames has no video metrics');
    for (let i = 0; i < count; i++) {
      if (ordered[i] === undefined) throw new FidelityError('INVALID_ARGUMENT', `finish() before the ssim_ffmpeg of frame ${i} was added`);
      if (values[i] === undefined) throw new FidelityError('INVALID_ARGUMENT', `finish() before the values of frame ${i} were added`);
    }
    finished = true;
    const ff = ordered as FfmpegSsim[];
    const frames = values as FrameValues[];
    // Pooled in frame order, whichever thread finished first: the same sums, the same bytes.
    const pooled = new PooledDiff();
    for (const f of frames) pooled.add({ sad: f.rgbSad, sse: f.rgbSse }, 3 * lumaSize);
    return {
      width: g.width,
      height: g.height,
      frames: count,
      ssim: summarizeSsim(frames.map((f) => f.ssim)),
      ssim_ffmpeg: {
        y: summarizeSsim(ff.map((f) => f.y)),
        u: summarizeSsim(ff.map((f) => f.u)),
        v: summarizeSsim(ff.map((f) => f.v)),
        all: summarizeSsim(ff.map((f) => f.all)),
      },
      ssim_rgb7: summarizeSsim(frames.map((f) => f.rgb7)),
      psnr_y: summarizePsnr(frames.map((f) => psnrFromSse(f.ySse, lumaSize))),
      psnr_db: pooled.psnrDb(),
      mae: pooled.mae(),
      identical: frames.every((f) => f.identical),
    };
  }

  return {
    addFrame(a, b) {
      if (finished) throw new FidelityError('INVALID_ARGUMENT', 'addFrame() after finish()');
      const index = ordered.length;
      const ff = series.next(a, b);
      const frame = measureFrameValues(a, b, g);
      file(ordered, 'addFrame()', index, ff);
      file(values, 'addFrame()', index, frame);
    },
    addOrdered: (index, ssim) => file(ordered, 'addOrdered()', index, ssim),
    addValues: (index, frame) => file(values, 'addValues()', index, frame),
    finish,
  };
}
