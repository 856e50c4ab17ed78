/**
 * In-place radix-2 complex FFT on split real/imaginary Float64Arrays, with
 * tables cached per size. Float64 throughout: the spectra and correlations
 * built on it need no more than that, and nothing here depends on the
 * platform's libm beyond Math.cos/Math.sin for the tables.
 */
import { invalidParameter } from '../errors.js';

interface Plan {
  n: number;
  bitrev: Uint32Array;
  /** Twiddles of every stage, contiguous: stage with half-size h at [h - 1, 2h - 1). */
  cos: Float64Array;
  sin: Float64Array;
}

const plans = new Map<number, Plan>();

function plan(n: number): Plan {
  let p = plans.get(n);
  if (!p) {
    if (!Number.isInteger(n) || n < 1 || (n & (n - 1)) !== 0) throw invalidParameter('FFT size', 'a power of two', n);
    const bits = Math.round(Math.log2(n));
    const bitrev = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      let r = 0;
      for (let b = 0; b < bits; b++) r |= ((i >>> b) & 1) << (bits - 1 - b);
      bitrev[i] = r;
    }
    const cos = new Float64Array(Math.max(n - 1, 1));
    const sin = new Float64Array(Math.max(n - 1, 1));
    for (let half = 1; half < n; half <<= 1) {
      for (let k = 0; k < half; k++) {
        // the same angle as k * (n / 2half) / n, computed from the full-size index so every stage agrees
        const angle = (2 * Math.PI * k * (n / (2 * half))) / n;
        cos[half - 1 + k] = Math.cos(angle);
        sin[half - 1 + k] = Math.sin(angle);
      }
    }
    p = { n, bitrev, cos, sin };
    plans.set(n, p);
  }
  return p;
}

/** Forward transform X[k] = sum x[t] e^{-2 pi i k t / n}; `inverse` uses e^{+...} and does not scale. */
export function fft(re: Float64Array, im: Float64Array, inverse = false): void {
  const n = re.length;
  if (im.length !== n) throw invalidParameter('im.length', `${n}`, im.length);
  const { bitrev, cos, sin } = plan(n);
  for (let i = 0; i < n; i++) {
    const j = bitrev[i]!;
    if (j > i) {
      const tr = re[i]!;
      re[i] = re[j]!;
      re[j] = tr;
      const ti = im[i]!;
      im[i] = im[j]!;
      im[j] = ti;
    }
  }
  // Size-2 butterflies need no twiddle.
  for (let a = 0; a + 1 < n; a += 2) {
    const xr = re[a + 1]!;
    const xi = im[a + 1]!;
    re[a + 1] = re[a]! - xr;
    im[a + 1] = im[a]! - xi;
    re[a] = re[a]! + xr;
    im[a] = im[a]! + xi;
  }
  const sign = inverse ? 1 : -1;
  for (let half = 2; half < n; half <<= 1) {
    const size = half << 1;
    const t0 = half - 1;
    for (let start = 0; start < n; start += size) {
      for (let k = 0; k < half; k++) {
        const wr = cos[t0 + k]!;
        const wi = sign * sin[t0 + k]!;
        const a = start + k;
        const b = a + half;
        const br = re[b]!;
        const bi = im[b]!;
        const xr = br * wr - bi * wi;
        const xi = br * wi + bi * wr;
        const ar = re[a]!;
        const ai = im[a]!;
        re[b] = ar - xr;
        im[b] = ai - xi;
        re[a] = ar + xr;
        im[a] = ai + xi;
      }
    }
  }
}

/**
 * Spectra of two real signals from one complex transform of x + i*y:
 * X[k] = (Z[k] + conj Z[n-k]) / 2 and Y[k] = (Z[k] - conj Z[n-k]) / 2i, for
 * k = 0..n/2. Written into xr/xi/yr/yi (length n/2 + 1).
 */
export function splitRealSpectra(
  zr: Float64Array,
  zi: Float64Array,
  xr: Float64Array,
  xi: Float64Array,
  yr: Float64Array,
  yi: Float64Array,
): void {
  const n = zr.length;
  for (let k = 0; k <= n >>> 1; k++) {
    const m = (n - k) & (n - 1);
    const ar = zr[k]!;
    const ai = zi[k]!;
    const br = zr[m]!;
    const bi = zi[m]!;
    xr[k] = 0.5 * (ar + br);
    xi[k] = 0.5 * (ai - bi);
    yr[k] = 0.5 * (ai + bi);
    yi[k] = 0.5 * (br - ar);
  }
}

const realTwiddles = new Map<number, { cos: Float64Array; sin: Float64Array }>();

/**
 * Magnitudes |X[k]|, k = 0..n/2, of the DFT of the real sequence x (length
 * n), through one complex FFT of size n/2 (even samples as the real part,
 * odd samples as the imaginary part). A zero input gives exact zeros.
 * zr/zi are scratch of length n/2.
 */
export function realMagnitudes(x: Float64Array, out: Float64Array, zr: Float64Array, zi: Float64Array): void {
  const n = x.length;
  const h = n >>> 1;
  let tw = realTwiddles.get(n);
  if (!tw) {
    tw = { cos: new Float64Array(h + 1), sin: new Float64Array(h + 1) };
    for (let k = 0; k <= h; k++) {
      tw.cos[k] = Math.cos((2 * Math.PI * k) / n);
      tw.sin[k] = Math.sin((2 * Math.PI * k) / n);
    }
    realTwiddles.set(n, tw);
  }
  for (let t = 0; t < h; t++) {
    zr[t] = x[2 * t]!;
    zi[t] = x[2 * t + 1]!;
  }
  fft(zr, zi);
  for (let k = 0; k <= h; k++) {
    const a = k % h;
    const b = (h - k) % h;
    // E = (Z[a] + conj Z[b]) / 2, O = (Z[a] - conj Z[b]) / 2i
    const er = 0.5 * (zr[a]! + zr[b]!);
    const ei = 0.5 * (zi[a]! - zi[b]!);
    const or = 0.5 * (zi[a]! + zi[b]!);
    const oi = 0.5 * (zr[b]! - zr[a]!);
    // X[k] = E + e^{-2 pi i k / n} O
    const c = tw.cos[k]!;
    const s = -tw.sin[k]!;
    out[k] = Math.hypot(er + (or * c - oi * s), ei + (or * s + oi * c));
  }
}
