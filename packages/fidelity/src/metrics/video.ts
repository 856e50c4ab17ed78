/**
 * Every video metric of one pair, frame by frame: the caller feeds decoded
 * baseline/candidate frames in order and gets VideoMetrics at the end.
 *
 * Per frame the planes are copied once into the kernels' memory and every
 * kernel reads them there; per-frame values are kept (the report shows them)
 * and the pooled sums grow. Nothing is resampled, skipped or re-aligned.
 */
import { FidelityError, invalidParameter } from '../errors.js';
import type { VideoMetrics } from '../schemas/measurement.js';
import type { DecodedFrame, FrameGeometry } from './frame.js';
import { checkPlane } from './planes.js';
import { PooledDiff, diffStatsAt, psnrFromSse } from './psnr.js';
import { summarizePsnr, summarizeSsim } from './series.js';
import { FfmpegSsimState, checkFfmpegSize } from './ssim-ffmpeg.js';
import { checkGaussianSize, gaussianScratchBytes, writeGaussianConstants } from './ssim-gaussian.js';
import { boxScratchBytes, boxWindows, checkBoxSize } from './ssim-rgb7.js';
import { kernels, Layout } from './wasm.js';

export interface VideoAccumulator {
  /** Baseline a, candidate b: the next frame of each stream, in order. */
  addFrame(a: DecodedFrame, b: DecodedFrame): void;
  finish(): VideoMetrics;
}

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

function checkFrame(name: string, frame: DecodedFrame, g: FrameGeometry): void {
  if (frame === null || typeof frame !== 'object') throw invalidParameter(name, 'a DecodedFrame', frame);
  if (frame.width !== g.width || frame.height !== g.height) {
    throw invalidParameter(`${name} size`, `${g.width}x${g.height}`, `${frame.width}x${frame.height}`);
  }
  checkPlane(`${name}.y`, frame.y, g.width, g.height);
  checkPlane(`${name}.u`, frame.u, g.chromaWidth, g.chromaHeight);
  checkPlane(`${name}.v`, frame.v, g.chromaWidth, g.chromaHeight);
  checkPlane(`${name}.rgb`, frame.rgb, g.width, g.height, 3);
}

export function createVideoAccumulator(geometry: FrameGeometry): VideoAccumulator {
  const g = checkGeometry(geometry);
  const lumaSize = g.width * g.height;
  const chromaSize = g.chromaWidth * g.chromaHeight;
  const rgbSize = 3 * lumaSize;
  const rgbWindows = 3 * boxWindows(g.width, g.height);

  const ffmpegState = new FfmpegSsimState(g.width);
  const ssim: number[] = [];
  const ffY: number[] = [];
  const ffU: number[] = [];
  const ffV: number[] = [];
  const ffAll: number[] = [];
  const rgb7: number[] = [];
  const psnr: (number | null)[] = [];
  const pooled = new PooledDiff();
  let identical = true;
  let finished = false;

  function addFrame(a: DecodedFrame, b: DecodedFrame): void {
    if (finished) throw new FidelityError('INVALID_ARGUMENT', 'addFrame() after finish()');
    checkFrame('a', a, g);
    checkFrame('b', b, g);
    // Laid out afresh on every frame: the memory is shared with every other metric call of this thread.
    const k = kernels();
    const layout = new Layout(k.base);
    const ay = layout.take(lumaSize);
    const by = layout.take(lumaSize);
    const au = layout.take(chromaSize);
    const bu = layout.take(chromaSize);
    const av = layout.take(chromaSize);
    const bv = layout.take(chromaSize);
    const argb = layout.take(rgbSize);
    const brgb = layout.take(rgbSize);
    const taps = layout.take(8 * 8);
    const consts = layout.take(8 * 2);
    const out = layout.take(16);
    const temp = layout.take(4 * ffmpegState.temp.length);
    const scratch = layout.take(Math.max(gaussianScratchBytes(g.width), boxScratchBytes(3 * g.width)));
    k.reserve(layout.size - k.base);
    k.u8(ay, lumaSize).set(a.y);
    k.u8(by, lumaSize).set(b.y);
    k.u8(au, chromaSize).set(a.u);
    k.u8(bu, chromaSize).set(b.u);
    k.u8(av, chromaSize).set(a.v);
    k.u8(bv, chromaSize).set(b.v);
    k.u8(argb, rgbSize).set(a.rgb);
    k.u8(brgb, rgbSize).set(b.rgb);
    writeGaussianConstants(k, taps, consts);

    ssim.push(k.fn.ssim_gauss(ay, by, g.width, g.height, taps, consts, scratch));
    const ff = ffmpegState.frameAt(k, { y: [ay, by], u: [au, bu], v: [av, bv] }, g, temp);
    ffY.push(ff.y);
    ffU.push(ff.u);
    ffV.push(ff.v);
    ffAll.push(ff.all);
    rgb7.push(k.fn.ssim_box7(argb, brgb, 3 * g.width, g.height, 3, scratch) / rgbWindows);

    const y = diffStatsAt(k, ay, by, lumaSize, out).sse;
    psnr.push(psnrFromSse(y, lumaSize));
    const rgb = diffStatsAt(k, argb, brgb, rgbSize, out);
    pooled.add(rgb, rgbSize);
    if (identical) {
      identical = y === 0 && rgb.sse === 0 && diffStatsAt(k, au, bu, chromaSize, out).sse === 0 && diffStatsAt(k, av, bv, chromaSize, out).sse === 0;
    }
  }

  function finish(): VideoMetrics {
    if (ssim.length === 0) throw new FidelityError('NO_FRAMES', 'No frame was added: a stream of no frames has no video metrics');
    finished = true;
    return {
      width: g.width,
      height: g.height,
      frames: ssim.length,
      ssim: summarizeSsim(ssim),
      ssim_ffmpeg: { y: summarizeSsim(ffY), u: summarizeSsim(ffU), v: summarizeSsim(ffV), all: summarizeSsim(ffAll) },
      ssim_rgb7: summarizeSsim(rgb7),
      psnr_y: summarizePsnr(psnr),
      psnr_db: pooled.psnrDb(),
      mae: pooled.mae(),
      identical,
    };
  }

  return { addFrame, finish };
}
