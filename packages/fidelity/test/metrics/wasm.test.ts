import { describe, expect, it } from 'vitest';
import { gaussianScratchBytes, gaussianTaps, GAUSSIAN_TAPS_BYTES, writeGaussianTaps } from '../../src/metrics/ssim-gaussian.js';
import { boxScratchBytes } from '../../src/metrics/ssim-rgb7.js';
import { ffmpegTempInts } from '../../src/metrics/ssim-ffmpeg.js';
import { ssimGaussian } from '../../src/metrics/ssim-gaussian.js';
import { kernels, Layout } from '../../src/metrics/wasm.js';

let seed = 99;
const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
const noise = (n: number, lo = 0, hi = 255) => Uint8Array.from({ length: n }, () => lo + Math.floor(rand() * (hi - lo + 1)));

/** The sentinel bytes after `bytes` of scratch, still there after the call? */
function staysInside(bytes: number, call: (k: ReturnType<typeof kernels>, at: Record<string, number>) => void, inputs: Record<string, Uint8Array>): boolean {
  const k = kernels();
  const layout = new Layout(k.base);
  const at: Record<string, number> = {};
  for (const [name, arr] of Object.entries(inputs)) at[name] = layout.take(arr.length);
  at.taps = layout.take(GAUSSIAN_TAPS_BYTES);
  at.scratch = layout.take(bytes);
  const guard = 256;
  const end = at.scratch + bytes;
  k.reserve(end + guard - k.base);
  for (const [name, arr] of Object.entries(inputs)) k.u8(at[name]!, arr.length).set(arr);
  writeGaussianTaps(k, at.taps);
  k.u8(end, guard).fill(0xa5);
  call(k, at);
  return k.u8(end, guard).every((v) => v === 0xa5);
}

// The scratch sizes come from wasm/kernels.c itself (one definition next to the pointer arithmetic);
// these tests hold the kernels to them over the edge cases of their SIMD groups.
describe('kernel scratch contracts', () => {
  it('ssim_gauss writes nothing past ssim_gauss_scratch_bytes(w)', () => {
    for (const [w, h] of [[11, 11], [12, 13], [13, 14], [14, 15], [15, 25], [16, 26], [37, 23], [64, 48]] as const) {
      const inputs = { a: noise(w * h), b: noise(w * h) };
      const ok = staysInside(gaussianScratchBytes(w), (k, at) => k.fn.ssim_gauss(at.a!, at.b!, w, h, at.taps!, at.scratch!), inputs);
      expect(ok, `${w}x${h}`).toBe(true);
    }
  });

  it('ssim_box7 writes nothing past ssim_box7_scratch_bytes(cols), one plane and rgb24', () => {
    for (const [w, h] of [[7, 7], [8, 9], [13, 8], [14, 10], [15, 7], [23, 12], [37, 23]] as const) {
      for (const step of [1, 3]) {
        const cols = step * w;
        const inputs = { a: noise(cols * h), b: noise(cols * h) };
        const ok = staysInside(boxScratchBytes(cols), (k, at) => k.fn.ssim_box7(at.a!, at.b!, cols, h, step, at.scratch!), inputs);
        expect(ok, `${w}x${h} step ${step}`).toBe(true);
      }
    }
  });

  it('ssim_ffmpeg_plane writes nothing past ssim_ffmpeg_temp_ints(w)', () => {
    for (const [w, h] of [[8, 8], [9, 11], [12, 12], [17, 9], [174, 98], [87, 49]] as const) {
      const inputs = { a: noise(w * h), b: noise(w * h) };
      const ok = staysInside(4 * ffmpegTempInts(w), (k, at) => {
        k.i32(at.scratch!, ffmpegTempInts(w)).fill(0);
        k.fn.ssim_ffmpeg_plane(at.a!, at.b!, w, h, at.scratch!);
      }, inputs);
      expect(ok, `${w}x${h}`).toBe(true);
    }
  });
});

/** Gaussian SSIM in float64, separable, straight from the definition (docs/metrics.md). */
function referenceSsim(a: Uint8Array, b: Uint8Array, w: number, h: number): number {
  const t = gaussianTaps();
  const filt = (m: Float64Array) => {
    const nv = w - 10;
    const hv = h - 10;
    const rows = new Float64Array(h * nv);
    for (let y = 0; y < h; y++) for (let x = 0; x < nv; x++) {
      let s = 0;
      for (let k = -5; k <= 5; k++) s += t[Math.abs(k)]! * m[y * w + x + 5 + k]!;
      rows[y * nv + x] = s;
    }
    const out = new Float64Array(hv * nv);
    for (let y = 0; y < hv; y++) for (let x = 0; x < nv; x++) {
      let s = 0;
      for (let k = -5; k <= 5; k++) s += t[Math.abs(k)]! * rows[(y + 5 + k) * nv + x]!;
      out[y * nv + x] = s;
    }
    return out;
  };
  const fa = Float64Array.from(a);
  const fb = Float64Array.from(b);
  const ua = filt(fa);
  const ub = filt(fb);
  const uaa = filt(fa.map((v) => v * v));
  const ubb = filt(fb.map((v) => v * v));
  const uab = filt(fa.map((v, i) => v * fb[i]!));
  const c1 = (0.01 * 255) ** 2;
  const c2 = (0.03 * 255) ** 2;
  let sum = 0;
  for (let i = 0; i < ua.length; i++) {
    const [x, y] = [ua[i]!, ub[i]!];
    sum += ((2 * x * y + c1) * (2 * (uab[i]! - x * y) + c2)) / ((x * x + y * y + c1) * (uaa[i]! - x * x + ubb[i]! - y * y + c2));
  }
  return sum / ua.length;
}

describe('float32 Gaussian SSIM', () => {
  it('stays within 1e-6 of float64 at every width and height remainder of its SIMD groups and row blocks', () => {
    let worst = 0;
    for (let w = 11; w <= 27; w++) {
      for (const h of [11, 12, 13, 14, 15, 16, 17, 18, 25]) {
        const a = noise(w * h, 60, 200);
        // Mostly one level apart, some pixels unrelated: both of the kernel's hard cases in one plane.
        const b = a.map((v, i) => (i % 13 === 0 ? noise(1)[0]! : v + (i % 3 === 0 ? 1 : 0)));
        worst = Math.max(worst, Math.abs(ssimGaussian(a, b, w, h) - referenceSsim(a, b, w, h)));
      }
    }
    expect(worst).toBeLessThan(1e-6);
  });

  it('is exact on flat planes and gives the same value on a repeat call', () => {
    const w = 30;
    const h = 20;
    const a = new Uint8Array(w * h).fill(250);
    const b = new Uint8Array(w * h).fill(251);
    const v = ssimGaussian(a, b, w, h);
    // Flat planes one level apart: mu_a = 250, mu_b = 251, no variance at all.
    const c1 = (0.01 * 255) ** 2;
    expect(Math.abs(v - (2 * 250 * 251 + c1) / (250 * 250 + 251 * 251 + c1))).toBeLessThan(1e-7);
    expect(ssimGaussian(a, b, w, h)).toBe(v);
  });
});
