/**
 * Radix-2 complex FFT on split real/imaginary float64 arrays, computed by the
 * wasm kernels (wasm/kernels.c `fft_f64`), with the twiddle tables cached per
 * size here. Float64 throughout, no fused multiply-add: the spectra and
 * correlations built on it need no more than that, and nothing here depends
 * on the platform's libm beyond Math.cos/Math.sin for the tables.
 *
 * The kernel does exactly the arithmetic of the JavaScript transform it
 * replaced (same bit-reversal order, same butterfly expressions, two
 * independent butterflies per SIMD step): the same bits, checked on every
 * size from 1 to 65536 by bench/kernels-same.mjs and, against that
 * JavaScript transform, by test/metrics/fft.test.ts. It is about three times
 * faster, and the lag estimator's transforms (65536 points, two per block of
 * audio) were most of the audio metrics' time.
 */
import { invalidParameter } from '../errors.js';
import { Layout, kernels } from './wasm.js';
import type { Kernels } from './wasm.js';

interface Plan {
  n: number;
  /** Twiddles of every stage, contiguous: stage with half-size h at [h - 1, 2h - 1). */
  cos: Float64Array;
  sin: Float64Array;
}

const plans = new Map<number, Plan>();

function plan(n: number): Plan {
  let p = plans.get(n);
  if (!p) {
    if (!Number.isInteger(n) || n < 1 || (n & (n - 1)) !== 0) throw invalidParameter('FFT size', 'a power of two', n);
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
    p = { n, cos, sin };
    plans.set(n, p);
  }
  return p;
}

/**
 * `count` arrays of n float64 in the kernels' memory, with the n-point
 * twiddles, for one synchronous use (the memory is shared with every other
 * kernel call of the thread): `use` gets views of the arrays and a transform
 * over any two of them. The arrays start zeroed.
 */
export function withTransforms<T>(
  n: number,
  count: number,
  use: (arrays: Float64Array[], transform: (re: number, im: number, inverse: boolean) => void, cross: (zr: number, zi: number, cr: number, ci: number) => void) => T,
): T {
  const { cos, sin } = plan(n);
  const k: Kernels = kernels();
  const layout = new Layout(k.base);
  const at = Array.from({ length: count }, () => layout.take(8 * n));
  const pc = layout.take(8 * cos.length);
  const ps = layout.take(8 * sin.length);
  k.reserve(layout.size - k.base);
  k.f64(pc, cos.length).set(cos);
  k.f64(ps, sin.length).set(sin);
  const arrays = at.map((offset) => k.f64(offset, n).fill(0));
  return use(
    arrays,
    (re, im, inverse) => k.fn.fft_f64(at[re]!, at[im]!, n, pc, ps, inverse ? 1 : 0),
    (zr, zi, cr, ci) => k.fn.fft_cross_spectrum(at[zr]!, at[zi]!, at[cr]!, at[ci]!, n),
  );
}

/** Forward transform X[k] = sum x[t] e^{-2 pi i k t / n}; `inverse` uses e^{+...} and does not scale. */
export function fft(re: Float64Array, im: Float64Array, inverse = false): void {
  const n = re.length;
  if (im.length !== n) throw invalidParameter('im.length', `${n}`, im.length);
  withTransforms(n, 2, ([r, i], transform) => {
    r!.set(re);
    i!.set(im);
    transform(0, 1, inverse);
    re.set(r!);
    im.set(i!);
  });
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

/** cos and sin of 2 pi k / n, k = 0..n/2: the twiddles that turn an n/2-point transform into a real n-point one. */
function realTwiddlesOf(n: number): { cos: Float64Array; sin: Float64Array } {
  let tw = realTwiddles.get(n);
  if (!tw) {
    const h = n >>> 1;
    tw = { cos: new Float64Array(h + 1), sin: new Float64Array(h + 1) };
    for (let k = 0; k <= h; k++) {
      tw.cos[k] = Math.cos((2 * Math.PI * k) / n);
      tw.sin[k] = Math.sin((2 * Math.PI * k) / n);
    }
    realTwiddles.set(n, tw);
  }
  return tw;
}

/**
 * One window of the spectral cosine (spectral.ts), in the kernels
 * (wasm/kernels.c `spectral_window`): for each side, the first `fill`
 * samples times `win` (zeros after), the magnitudes |X[k]|, k = 0..n/2, of
 * its real DFT through one complex FFT of n/2 points (even samples as the
 * real part, odd samples as the imaginary part; X[k] = E + e^{-2 pi i k/n} O,
 * the magnitude as Math.hypot computes it), then sum ma*mb, ma*ma and mb*mb
 * added bin by bin to acc[0..2]. A zero input gives exact zeros.
 */
export function spectralWindowSums(a: Float64Array, b: Float64Array, win: Float64Array, fill: number, acc: Float64Array): void {
  const n = a.length;
  const h = n >>> 1;
  if (b.length !== n || win.length !== n || h < 1) throw invalidParameter('window', `two windows and a window function of ${n} samples`, b.length);
  const { cos, sin } = plan(h);
  const tw = realTwiddlesOf(n);
  const k = kernels();
  const layout = new Layout(k.base);
  const [pa, pb, pw] = [layout.take(8 * n), layout.take(8 * n), layout.take(8 * n)];
  const [pc, ps] = [layout.take(8 * cos.length), layout.take(8 * sin.length)];
  const [prc, prs] = [layout.take(8 * (h + 1)), layout.take(8 * (h + 1))];
  const scratch = layout.take(8 * (4 * h + 2));
  const pacc = layout.take(8 * 3);
  k.reserve(layout.size - k.base);
  k.f64(pa, n).set(a);
  k.f64(pb, n).set(b);
  k.f64(pw, n).set(win);
  k.f64(pc, cos.length).set(cos);
  k.f64(ps, sin.length).set(sin);
  k.f64(prc, h + 1).set(tw.cos);
  k.f64(prs, h + 1).set(tw.sin);
  k.f64(pacc, 3).set(acc);
  k.fn.spectral_window(pa, pb, pw, n, fill, pc, ps, prc, prs, scratch, pacc);
  acc.set(k.f64(pacc, 3));
}
