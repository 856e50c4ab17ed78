/**
 * SSIM's stabilising constants (Wang et al. 2004) for 8-bit samples:
 * C1 = (K1 L)^2 and C2 = (K2 L)^2 with L = 255, the data range. The wasm
 * kernels define the same formula once at the top of wasm/kernels.c (each
 * kernel scales it to its own integer sums); this is the TypeScript side,
 * for code that computes SSIM outside the kernels.
 */

/** K1 of Wang et al.: the luminance term's constant over the data range. */
export const SSIM_K1 = 0.01;
/** K2 of Wang et al.: the contrast-structure term's constant over the data range. */
export const SSIM_K2 = 0.03;
/** The dynamic range of 8-bit samples. */
export const SSIM_DATA_RANGE = 255;
/** (K1 L)^2. */
export const SSIM_C1 = (SSIM_K1 * SSIM_DATA_RANGE) ** 2;
/** (K2 L)^2. */
export const SSIM_C2 = (SSIM_K2 * SSIM_DATA_RANGE) ** 2;
