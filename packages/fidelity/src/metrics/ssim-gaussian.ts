/**
 * SSIM of Wang et al. (2004) as scikit-image computes it with
 * gaussian_weights=True, sigma=1.5, use_sample_covariance=False,
 * data_range=255: an 11x11 Gaussian window (scipy.ndimage's kernel, radius
 * int(3.5 * 1.5 + 0.5) = 5), K1 = 0.01, K2 = 0.03, population statistics,
 * the SSIM map averaged over the windows that lie fully inside the plane.
 * Computed in deterministic float32 on exact integer maps (wasm/kernels.c
 * ssim_gauss, whose comment gives the accuracy rules): within 1e-6 of the
 * float64 result, the same bits on every CPU.
 */
import { kernels, Layout } from './wasm.js';
import type { Kernels } from './wasm.js';
import { checkPlane, checkSize, tooSmall } from './planes.js';

export const GAUSSIAN_SIGMA = 1.5;
export const GAUSSIAN_RADIUS = 5;
export const GAUSSIAN_WINDOW = 2 * GAUSSIAN_RADIUS + 1;

/** The centre tap first, then taps 1..5: scipy.ndimage._gaussian_kernel1d normalised to sum 1. */
export function gaussianTaps(sigma = GAUSSIAN_SIGMA, radius = GAUSSIAN_RADIUS): number[] {
  const phi: number[] = [];
  for (let x = -radius; x <= radius; x++) phi.push(Math.exp((-0.5 / (sigma * sigma)) * x * x));
  const sum = phi.reduce((s, v) => s + v, 0);
  return phi.slice(radius).map((v) => v / sum);
}

const TAPS = gaussianTaps();

/** Bytes of the kernel's scratch for planes of this width, as wasm/kernels.c defines it. */
export function gaussianScratchBytes(width: number): number {
  return kernels().fn.ssim_gauss_scratch_bytes(width);
}

/** Bytes the taps take in one call's layout. */
export const GAUSSIAN_TAPS_BYTES = 8 * 8;

/** Writes the filter taps where one call's layout put them. */
export function writeGaussianTaps(k: Kernels, taps: number): void {
  k.f64(taps, TAPS.length).set(TAPS);
}

export function checkGaussianSize(width: number, height: number): void {
  if (width < GAUSSIAN_WINDOW || height < GAUSSIAN_WINDOW) throw tooSmall('Gaussian SSIM', width, height, '11x11');
}

/** Mean Gaussian SSIM of two 8-bit planes (baseline a, candidate b). */
export function ssimGaussian(a: Uint8Array, b: Uint8Array, width: number, height: number): number {
  checkSize(width, height);
  checkPlane('a', a, width, height);
  checkPlane('b', b, width, height);
  checkGaussianSize(width, height);
  const k = kernels();
  const layout = new Layout(k.base);
  const pa = layout.take(a.length);
  const pb = layout.take(b.length);
  const taps = layout.take(GAUSSIAN_TAPS_BYTES);
  const scratch = layout.take(gaussianScratchBytes(width));
  k.reserve(layout.size - k.base);
  k.u8(pa, a.length).set(a);
  k.u8(pb, b.length).set(b);
  writeGaussianTaps(k, taps);
  return k.fn.ssim_gauss(pa, pb, width, height, taps, scratch);
}
