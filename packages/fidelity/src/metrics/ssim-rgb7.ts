/**
 * scikit-image's structural_similarity defaults on rgb24 (the check of
 * SGLang's consistency tests): a 7x7 uniform window, sample covariance
 * (N/(N-1)), K1 = 0.01, K2 = 0.03, data_range=255, per channel, the three
 * channel means averaged; windows fully inside the frame only (skimage crops
 * pad = (7-1)//2 = 3 pixels from every edge).
 *
 * The window sums are exact integers (wasm/kernels.c ssim_box7), so the
 * variance cancellation is exact and only the final ratio is rounded.
 */
import { kernels, Layout } from './wasm.js';
import { checkPlane, checkSize, tooSmall } from './planes.js';

export const BOX_WINDOW = 7;

/** Bytes of the kernel's scratch for rows of `cols` interleaved samples, as wasm/kernels.c defines it. */
export function boxScratchBytes(cols: number): number {
  return kernels().fn.ssim_box7_scratch_bytes(cols);
}

export function checkBoxSize(width: number, height: number): void {
  if (width < BOX_WINDOW || height < BOX_WINDOW) throw tooSmall('7x7 SSIM', width, height, '7x7');
}

/** Valid windows of one channel. */
export function boxWindows(width: number, height: number): number {
  return (width - BOX_WINDOW + 1) * (height - BOX_WINDOW + 1);
}

/** Mean 7x7 SSIM of two rgb24 frames, channels averaged (baseline a, candidate b). */
export function ssimRgb7(aRgb: Uint8Array, bRgb: Uint8Array, width: number, height: number): number {
  checkSize(width, height);
  checkPlane('aRgb', aRgb, width, height, 3);
  checkPlane('bRgb', bRgb, width, height, 3);
  checkBoxSize(width, height);
  const k = kernels();
  const layout = new Layout(k.base);
  const pa = layout.take(aRgb.length);
  const pb = layout.take(bRgb.length);
  const scratch = layout.take(boxScratchBytes(3 * width));
  k.reserve(layout.size - k.base);
  k.u8(pa, aRgb.length).set(aRgb);
  k.u8(pb, bRgb.length).set(bRgb);
  return k.fn.ssim_box7(pa, pb, 3 * width, height, 3, scratch) / (3 * boxWindows(width, height));
}

/** The same on one 8-bit plane (one channel). */
export function ssimPlane7(a: Uint8Array, b: Uint8Array, width: number, height: number): number {
  checkSize(width, height);
  checkPlane('a', a, width, height);
  checkPlane('b', b, width, height);
  checkBoxSize(width, height);
  const k = kernels();
  const layout = new Layout(k.base);
  const pa = layout.take(a.length);
  const pb = layout.take(b.length);
  const scratch = layout.take(boxScratchBytes(width));
  k.reserve(layout.size - k.base);
  k.u8(pa, a.length).set(a);
  k.u8(pb, b.length).set(b);
  return k.fn.ssim_box7(pa, pb, width, height, 1, scratch) / boxWindows(width, height);
}
