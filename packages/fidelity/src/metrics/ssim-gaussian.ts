/**
 * SSIM of Wang et al. (2004) as scikit-image computes it with
 * gaussian_weights=True, sigma=1.5, use_sample_covariance=False,
 * data_range=255: an 11x11 Gaussian window (scipy.ndimage's kernel, radius
 * int(3.5 * 1.5 + 0.5) = 5), K1 = 0.01, K2 = 0.03, population statistics,
 * the SSIM map averaged over the windows that lie fully inside the plane.
 * Float64 throughout (wasm/kernels.c ssim_gauss).
 */
import { kernels, Layout } from './wasm.js';
import type { Kernels } from './wasm.js';
import { checkPlane, checkSize, tooSmall } from './planes.js';

export const GAUSSIAN_SIGMA = 1.5;
export const GAUSSIAN_RADIUS = 5;
export const GAUSSIAN_WINDOW = 2 * GAUSSIAN_RADIUS + 1;
const DATA_RANGE = 255;

/** The centre tap first, then taps 1..5: scipy.ndimage._gaussian_kernel1d normalised to sum 1. */
export function gaussianTaps(sigma = GAUSSIAN_SIGMA, radius = GAUSSIAN_RADIUS): number[] {
  const phi: number[] = [];
  for (let x = -radius; x <= radius; x++) phi.push(Math.exp((-0.5 / (sigma * sigma)) * x * x));
  const sum = phi.reduce((s, v) => s + v, 0);
  return phi.slice(radius).map((v) => v / sum);
}

const TAPS = gaussianTaps();
const CONSTS = [(0.01 * DATA_RANGE) ** 2, (0.03 * DATA_RANGE) ** 2];

/** Row maps, a 12-row ring of filtered rows and two vertically filtered rows, 4 maps each (wasm/kernels.c). */
export function gaussianScratchBytes(width: number): number {
  const nv = width - 2 * GAUSSIAN_RADIUS;
  return 8 * (4 * width + 4 * (GAUSSIAN_WINDOW + 1) * nv + 8 * nv + 8);
}

/** Where the constants live inside one call's layout. */
export function writeGaussianConstants(k: Kernels, taps: number, consts: number): void {
  k.f64(taps, TAPS.length).set(TAPS);
  k.f64(consts, CONSTS.length).set(CONSTS);
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
  const taps = layout.take(8 * 8);
  const consts = layout.take(8 * 2);
  const scratch = layout.take(gaussianScratchBytes(width));
  k.reserve(layout.size - k.base);
  k.u8(pa, a.length).set(a);
  k.u8(pb, b.length).set(b);
  writeGaussianConstants(k, taps, consts);
  return k.fn.ssim_gauss(pa, pb, width, height, taps, consts, scratch);
}
