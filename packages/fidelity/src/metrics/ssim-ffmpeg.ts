/**
 * FFmpeg's `ssim` filter (libavfilter/vf_ssim.c, 8-bit path), the x264
 * approximation: integer sums of 4x4 blocks on a stride-4 grid, 8x8 windows
 * made of 2x2 blocks, the remainder columns/rows past the last whole block
 * ignored, a float32 per-window SSIM, float32 accumulation in the lane order
 * of the x86 SSE4 code the installed binary runs, and `All` as the
 * area-weighted float32 sum of the planes. The result is float32 (as the
 * filter's stats_file prints it, to 6 decimals).
 *
 * The filter keeps one pair of line buffers for its lifetime; its SIMD code
 * over-reads them past a plane's last window and subtracts those values
 * again, which moves the float rounding. FfmpegSsimState carries those
 * buffers across the planes and frames of one stream, so a whole-stream run
 * reproduces the filter's output digit for digit; the stateless functions
 * start from zeroed buffers, as the filter does on its first plane.
 */
import { kernels, Layout } from './wasm.js';
import type { Kernels } from './wasm.js';
import { checkPlane, checkSize, tooSmall } from './planes.js';
import type { FrameGeometry } from './frame.js';

const f32 = Math.fround;

/** Int32 count of the filter's line buffers for a plane (or frame) of this width: 2 * SUM_LEN(w) records of 4, as wasm/kernels.c defines it. */
export function ffmpegTempInts(width: number): number {
  return kernels().fn.ssim_ffmpeg_temp_ints(width);
}

export function checkFfmpegSize(width: number, height: number): void {
  // Fewer than 2 whole blocks a side gives no window: FFmpeg divides by zero there.
  if (width >> 2 < 2 || height >> 2 < 2) throw tooSmall('FFmpeg SSIM', width, height, '8x8');
}

/** One plane on a caller-laid-out memory; temp persists in wasm memory for the call. */
export function ffmpegPlaneAt(k: Kernels, pa: number, pb: number, width: number, height: number, temp: number): number {
  return k.fn.ssim_ffmpeg_plane(pa, pb, width, height, temp);
}

/** FFmpeg SSIM of one 8-bit plane, from zeroed line buffers. */
export function ssimFfmpegPlane(a: Uint8Array, b: Uint8Array, width: number, height: number): number {
  checkSize(width, height);
  checkPlane('a', a, width, height);
  checkPlane('b', b, width, height);
  checkFfmpegSize(width, height);
  const k = kernels();
  const layout = new Layout(k.base);
  const pa = layout.take(a.length);
  const pb = layout.take(b.length);
  const temp = layout.take(4 * ffmpegTempInts(width));
  k.reserve(layout.size - k.base);
  k.u8(pa, a.length).set(a);
  k.u8(pb, b.length).set(b);
  k.i32(temp, ffmpegTempInts(width)).fill(0);
  return ffmpegPlaneAt(k, pa, pb, width, height, temp);
}

/** The filter's plane weights: plane area over total area, stored as float32. */
export function ffmpegPlaneWeights(geometry: FrameGeometry): [number, number, number] {
  const luma = geometry.width * geometry.height;
  const chroma = geometry.chromaWidth * geometry.chromaHeight;
  const sum = luma + 2 * chroma;
  return [f32(luma / sum), f32(chroma / sum), f32(chroma / sum)];
}

/** `All`: sum of weight * plane SSIM, in float32 and plane order as vf_ssim.c. */
export function ssimFfmpegAll(y: number, u: number, v: number, geometry: FrameGeometry): number {
  return ssimFfmpegAllWeighted(y, u, v, ffmpegPlaneWeights(geometry));
}

/** ssimFfmpegAll with the stream's weights computed once (ffmpegPlaneWeights), as vf_ssim.c does at configuration. */
export function ssimFfmpegAllWeighted(y: number, u: number, v: number, weights: readonly [number, number, number]): number {
  const [wy, wu, wv] = weights;
  let all = 0;
  all = f32(all + f32(wy * y));
  all = f32(all + f32(wu * u));
  all = f32(all + f32(wv * v));
  return all;
}

/** FFmpeg's SSIM of one frame pair: per plane and the area-weighted All. */
export interface FfmpegSsim {
  y: number;
  u: number;
  v: number;
  all: number;
}

/** The filter's line buffers for one stream (one filter instance). */
export class FfmpegSsimState {
  readonly temp: Int32Array;

  constructor(lumaWidth: number) {
    this.temp = new Int32Array(ffmpegTempInts(lumaWidth));
  }

  /** Y, U, V already in wasm memory at the given offsets; tempAt is scratch for the buffers. */
  frameAt(k: Kernels, planes: { y: [number, number]; u: [number, number]; v: [number, number] }, geometry: FrameGeometry, tempAt: number): FfmpegSsim {
    return this.frameWeighted(k, planes, geometry, tempAt, ffmpegPlaneWeights(geometry));
  }

  /** frameAt with the stream's plane weights (ffmpegPlaneWeights) computed once by the caller. */
  frameWeighted(
    k: Kernels,
    planes: { y: [number, number]; u: [number, number]; v: [number, number] },
    geometry: FrameGeometry,
    tempAt: number,
    weights: readonly [number, number, number],
  ): FfmpegSsim {
    const view = k.i32(tempAt, this.temp.length);
    view.set(this.temp);
    const y = ffmpegPlaneAt(k, planes.y[0], planes.y[1], geometry.width, geometry.height, tempAt);
    const u = ffmpegPlaneAt(k, planes.u[0], planes.u[1], geometry.chromaWidth, geometry.chromaHeight, tempAt);
    const v = ffmpegPlaneAt(k, planes.v[0], planes.v[1], geometry.chromaWidth, geometry.chromaHeight, tempAt);
    this.temp.set(k.i32(tempAt, this.temp.length));
    return { y, u, v, all: ssimFfmpegAllWeighted(y, u, v, weights) };
  }
}
