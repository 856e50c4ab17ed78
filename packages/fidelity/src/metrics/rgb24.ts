/**
 * rgb24 as InferenceX's evaluator sees it (docs/metrics.md, "RGB conversion"):
 * PyAV's `frame.to_ndarray(format="rgb24")`, which is libswscale's unscaled
 * yuv2rgb converter. We compute it ourselves, in the measuring thread, from
 * the decoded Y, U and V planes (wasm/kernels.c `yuv_rgb24`): an integer
 * formula that equals FFmpeg's x86 converter on every (Y, U, V) triple, so
 * the bytes are the same on every CPU, and the decoders never convert.
 *
 * The matrix and range follow PyAV 10, not the stream's colour tags: BT.601
 * always, full range only for the `yuvj*` pixel formats. Where FFmpeg itself
 * would not use that converter (a pixel format other than 4:2:0 / 4:2:2, or
 * an odd height in 4:2:0), the formula does not apply and ffmpeg converts
 * instead (`ffmpeg`), with PyAV's parameters (media/video-decoder.ts).
 */
import { FidelityError, invalidParameter } from '../errors.js';
import type { RgbConverter, RgbMatrix, RgbRange } from '../schemas/measurement.js';
import type { DecodedFrame } from './frame.js';
import { checkPlane } from './planes.js';
import { kernels, Layout } from './wasm.js';
import type { Kernels } from './wasm.js';

/** How a stream's rgb24 is made: by whom, with which matrix and range (report.json's `rgb_conversion`, `rgb_matrix`, `rgb_range`). */
export interface RgbConversion {
  by: RgbConverter;
  matrix: RgbMatrix;
  range: RgbRange;
}

/** PyAV's default for a limited-range stream, and the library's default where nothing else is said. */
export const DEFAULT_RGB_CONVERSION: RgbConversion = Object.freeze({ by: 'fidelity', matrix: 'bt601', range: 'limited' });

/** log2 of the vertical chroma subsampling of the formats FFmpeg runs through this converter. */
const FORMULA_FORMATS: Readonly<Record<string, { vshift: 0 | 1; range: RgbRange }>> = {
  yuv420p: { vshift: 1, range: 'limited' },
  yuvj420p: { vshift: 1, range: 'full' },
  yuv422p: { vshift: 0, range: 'limited' },
  yuvj422p: { vshift: 0, range: 'full' },
};

/**
 * The conversion a stream gets: our formula where FFmpeg's unscaled converter
 * applies (yuv420p / yuvj420p at an even height, yuv422p / yuvj422p), ffmpeg's
 * swscale otherwise; BT.601, and full range for `yuvj*` (PyAV 10's rule).
 */
export function rgbConversionFor(pixFmt: string, height: number): RgbConversion {
  const range: RgbRange = pixFmt.startsWith('yuvj') ? 'full' : 'limited';
  const f = FORMULA_FORMATS[pixFmt];
  const covered = f !== undefined && (f.vshift === 0 || height % 2 === 0);
  return { by: covered ? 'fidelity' : 'ffmpeg', matrix: 'bt601', range };
}

/**
 * The chroma layout the formula needs, from the planes' sizes: 4:2:0 (chroma
 * ceil(w/2) x h/2, h even) gives vshift 1, 4:2:2 (ceil(w/2) x h) vshift 0;
 * null for anything else.
 */
export function formulaLayout(g: { width: number; height: number; chromaWidth: number; chromaHeight: number }): 0 | 1 | null {
  if (g.chromaWidth !== (g.width + 1) >> 1) return null;
  if (g.chromaHeight === g.height) return 0;
  if (g.height % 2 === 0 && g.chromaHeight === g.height >> 1) return 1;
  return null;
}

/** Checks a conversion given by a caller; refuses `fidelity` for planes the formula does not cover. */
export function checkRgbConversion(
  conversion: unknown,
  g: { width: number; height: number; chromaWidth: number; chromaHeight: number },
  name = 'options.rgb',
): RgbConversion {
  const c = conversion as Partial<RgbConversion> | null;
  if (c === null || typeof c !== 'object') throw invalidParameter(name, 'an object { by, matrix, range }', conversion);
  if (c.by !== 'fidelity' && c.by !== 'ffmpeg') throw invalidParameter(`${name}.by`, '"fidelity" or "ffmpeg"', c.by);
  if (c.matrix !== 'bt601' && c.matrix !== 'bt709') throw invalidParameter(`${name}.matrix`, '"bt601" or "bt709"', c.matrix);
  if (c.range !== 'limited' && c.range !== 'full') throw invalidParameter(`${name}.range`, '"limited" or "full"', c.range);
  if (c.by === 'fidelity' && formulaLayout(g) === null) {
    throw invalidParameter(
      `${name}.by`,
      '"ffmpeg" (frames carrying their own rgb24) for planes that are not 4:2:0 at an even height or 4:2:2',
      `"fidelity" for ${g.width}x${g.height} with ${g.chromaWidth}x${g.chromaHeight} chroma`,
    );
  }
  return { by: c.by, matrix: c.matrix, range: c.range };
}

/** The kernel's table index: 2 * matrix + full range (wasm/kernels.c YUV_RGB). */
function tableOf(c: RgbConversion): number {
  return (c.matrix === 'bt709' ? 2 : 0) + (c.range === 'full' ? 1 : 0);
}

/**
 * Converts planes that already lie in the kernels' memory (at y, u, v) into
 * rgb24 at `out` (width * height * 3 bytes). The caller has checked the
 * layout (formulaLayout) and the conversion.
 */
export function convertRgb24At(
  k: Kernels,
  at: { y: number; u: number; v: number; out: number },
  g: { width: number; height: number; chromaWidth: number; chromaHeight: number },
  c: RgbConversion,
): void {
  const vshift = formulaLayout(g);
  const rc = vshift === null ? -1 : k.fn.yuv_rgb24(at.y, at.u, at.v, g.width, g.height, g.chromaWidth, vshift, tableOf(c), at.out);
  if (rc !== 0) throw new FidelityError('INTERNAL', `The rgb24 kernel refused ${g.width}x${g.height} planes with ${g.chromaWidth}x${g.chromaHeight} chroma`);
}

/**
 * One clip frame's figures (metrics/clip-video.ts) from planes that already lie in the kernels'
 * memory: the frame's rgb24 written at `out` and, in the same pass, its largest and smallest sample
 * and sum |rgb24 - prev| (prev 0: the first frame, sum 0), into 24 bytes at `stats`
 * (wasm/kernels.c `clip_frame_yuv`). The caller has checked the layout and the conversion.
 */
export function clipFrameRgb24At(
  k: Kernels,
  at: { y: number; u: number; v: number; out: number; prev: number; stats: number },
  g: { width: number; height: number; chromaWidth: number; chromaHeight: number },
  c: RgbConversion,
): void {
  const vshift = formulaLayout(g);
  const rc =
    vshift === null ? -1 : k.fn.clip_frame_yuv(at.y, at.u, at.v, g.width, g.height, g.chromaWidth, vshift, tableOf(c), at.out, at.prev, at.stats);
  if (rc !== 0) throw new FidelityError('INTERNAL', `The rgb24 kernel refused ${g.width}x${g.height} planes with ${g.chromaWidth}x${g.chromaHeight} chroma`);
}

/**
 * diff_stats of the two frames' rgb24 (sum |a - b| and sum (a - b)^2 over every R, G, B sample)
 * straight from their planes (at y, u, v of each side in the kernels' memory), converting both in
 * one pass without writing the images (wasm/kernels.c `yuv_rgb24_pair`): the same exact integer
 * sums as converting each side and summing the differences, in about two thirds of the time.
 * `out` is 16 bytes for the sums.
 */
export function rgb24DiffAt(
  k: Kernels,
  a: { y: number; u: number; v: number },
  b: { y: number; u: number; v: number },
  out: number,
  g: { width: number; height: number; chromaWidth: number; chromaHeight: number },
  c: RgbConversion,
): { sad: number; sse: number } {
  const vshift = formulaLayout(g);
  const rc = vshift === null ? -1 : k.fn.yuv_rgb24_pair(a.y, a.u, a.v, b.y, b.u, b.v, g.width, g.height, g.chromaWidth, vshift, tableOf(c), 0, 0, out);
  if (rc !== 0) throw new FidelityError('INTERNAL', `The rgb24 kernel refused ${g.width}x${g.height} planes with ${g.chromaWidth}x${g.chromaHeight} chroma`);
  const view = k.f64(out, 2);
  return { sad: view[0]!, sse: view[1]! };
}

/**
 * rgb24 of one decoded frame, as InferenceX's evaluator (PyAV `to_ndarray("rgb24")`) and
 * `ffmpeg -pix_fmt rgb24` on x86 give it: docs/metrics.md, "RGB conversion". The frame's planes
 * must be 4:2:0 at an even height or 4:2:2 (FFmpeg converts anything else with other code).
 * `matrix` and `range` default to BT.601 limited, PyAV's choice for a `yuv420p` stream
 * (`yuvj420p`: pass `range: 'full'`).
 *
 * @throws FidelityError `INVALID_ARGUMENT` for planes of the wrong size or a layout the formula does not cover.
 * @example
 * ```ts
 * const rgb = yuvToRgb24(frame); // width * height * 3 bytes, R G B per pixel
 * const full = yuvToRgb24(jpegRangeFrame, { range: 'full' });
 * ```
 */
export function yuvToRgb24(frame: Omit<DecodedFrame, 'rgb'>, options: { matrix?: RgbMatrix; range?: RgbRange } = {}): Uint8Array {
  if (frame === null || typeof frame !== 'object') throw invalidParameter('frame', 'a decoded frame', frame);
  const g = { width: frame.width, height: frame.height, chromaWidth: frame.chromaWidth, chromaHeight: frame.chromaHeight };
  for (const [name, value] of Object.entries(g)) {
    if (!Number.isInteger(value) || value <= 0) throw invalidParameter(`frame.${name}`, 'a positive integer', value);
  }
  const c = checkRgbConversion({ by: 'fidelity', matrix: options.matrix ?? 'bt601', range: options.range ?? 'limited' }, g, 'options');
  checkPlane('frame.y', frame.y, g.width, g.height);
  checkPlane('frame.u', frame.u, g.chromaWidth, g.chromaHeight);
  checkPlane('frame.v', frame.v, g.chromaWidth, g.chromaHeight);
  const k = kernels();
  const layout = new Layout(k.base);
  const at = { y: layout.take(frame.y.length), u: layout.take(frame.u.length), v: layout.take(frame.v.length), out: layout.take(3 * g.width * g.height) };
  k.reserve(layout.size - k.base);
  k.u8(at.y, frame.y.length).set(frame.y);
  k.u8(at.u, frame.u.length).set(frame.u);
  k.u8(at.v, frame.v.length).set(frame.v);
  convertRgb24At(k, at, g, c);
  return k.u8(at.out, 3 * g.width * g.height).slice();
}
