// The audio metrics' transforms run in the wasm kernels; they must give the bits the JavaScript
// transform gave before them (the metrics are a contract). The reference below is that transform,
// unchanged, with the magnitudes and the spectral-cosine sums as spectral.ts computed them.
import { describe, expect, it } from 'vitest';
import { fft, spectralWindowSums, withTransforms } from '../../src/metrics/fft.js';
import { hannSymmetric, SPECTRAL_WINDOW } from '../../src/metrics/spectral.js';

function twiddles(n: number): { cos: Float64Array; sin: Float64Array } {
  const cos = new Float64Array(Math.max(n - 1, 1));
  const sin = new Float64Array(Math.max(n - 1, 1));
  for (let half = 1; half < n; half <<= 1) {
    for (let k = 0; k < half; k++) {
      const angle = (2 * Math.PI * k * (n / (2 * half))) / n;
      cos[half - 1 + k] = Math.cos(angle);
      sin[half - 1 + k] = Math.sin(angle);
    }
  }
  return { cos, sin };
}

function referenceFft(re: Float64Array, im: Float64Array, inverse = false): void {
  const n = re.length;
  const bits = Math.round(Math.log2(n));
  const { cos, sin } = twiddles(n);
  for (let i = 0; i < n; i++) {
    let j = 0;
    for (let b = 0; b < bits; b++) j |= ((i >>> b) & 1) << (bits - 1 - b);
    if (j > i) {
      [re[i], re[j]] = [re[j]!, re[i]!];
      [im[i], im[j]] = [im[j]!, im[i]!];
    }
  }
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
    for (let start = 0; start < n; start += 2 * half) {
      for (let k = 0; k < half; k++) {
        const wr = cos[half - 1 + k]!;
        const wi = sign * sin[half - 1 + k]!;
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

function referenceMagnitudes(samples: Float64Array, win: Float64Array, fill: number): Float64Array {
  const n = samples.length;
  const h = n >>> 1;
  const x = Float64Array.from({ length: n }, (_, i) => (i < fill ? samples[i]! * win[i]! : 0));
  const zr = Float64Array.from({ length: h }, (_, t) => x[2 * t]!);
  const zi = Float64Array.from({ length: h }, (_, t) => x[2 * t + 1]!);
  referenceFft(zr, zi);
  const out = new Float64Array(h + 1);
  for (let k = 0; k <= h; k++) {
    const a = k % h;
    const b = (h - k) % h;
    const er = 0.5 * (zr[a]! + zr[b]!);
    const ei = 0.5 * (zi[a]! - zi[b]!);
    const or = 0.5 * (zi[a]! + zi[b]!);
    const oi = 0.5 * (zr[b]! - zr[a]!);
    const c = Math.cos((2 * Math.PI * k) / n);
    const s = -Math.sin((2 * Math.PI * k) / n);
    out[k] = Math.hypot(er + (or * c - oi * s), ei + (or * s + oi * c));
  }
  return out;
}

let seed = 7;
const rand = (): number => {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return seed / 2 ** 32;
};

/** Bit patterns, so that -0 and 0 (and every last bit) count. */
const bitsOf = (a: Float64Array): string => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('hex');

describe('fft (wasm kernel)', () => {
  it('gives the bits of the JavaScript transform, forward and inverse, for every size from 1 to 65536', () => {
    for (let bits = 0; bits <= 16; bits++) {
      const n = 1 << bits;
      for (const inverse of [false, true]) {
        const re = Float64Array.from({ length: n }, () => rand() - 0.5);
        const im = Float64Array.from({ length: n }, (_, i) => (i % 7 === 0 ? -0 : Math.fround(rand() * 1e-3)));
        const [wr, wi, jr, ji] = [re.slice(), im.slice(), re.slice(), im.slice()];
        fft(wr, wi, inverse);
        referenceFft(jr, ji, inverse);
        expect(bitsOf(wr), `re, n = ${n}`).toBe(bitsOf(jr));
        expect(bitsOf(wi), `im, n = ${n}`).toBe(bitsOf(ji));
      }
    }
  });

  it('refuses a size that is not a power of two', () => {
    expect(() => fft(new Float64Array(6), new Float64Array(6))).toThrow(/power of two/);
  });

  it('gives the lag estimator the cross-spectrum the JavaScript loop gave', () => {
    const n = 4096;
    const x = Float64Array.from({ length: n }, () => rand() - 0.5);
    const y = Float64Array.from({ length: n }, () => rand() - 0.5);
    const [zr, zi] = [x.slice(), y.slice()];
    referenceFft(zr, zi);
    const cr = new Float64Array(n);
    const ci = new Float64Array(n);
    for (let k = 0; k < n; k++) {
      const m = (n - k) & (n - 1);
      const xr = 0.5 * (zr[k]! + zr[m]!);
      const xi = 0.5 * (zi[k]! - zi[m]!);
      const yr = 0.5 * (zi[k]! + zi[m]!);
      const yi = 0.5 * (zr[m]! - zr[k]!);
      cr[k] = xr * yr + xi * yi;
      ci[k] = xr * yi - xi * yr;
    }
    referenceFft(cr, ci, true);
    const ours = withTransforms(n, 4, ([ar, ai, br, bi], transform, cross) => {
      ar!.set(x);
      ai!.set(y);
      transform(0, 1, false);
      cross(0, 1, 2, 3);
      transform(2, 3, true);
      return [br!.slice(), bi!.slice()];
    });
    expect(bitsOf(ours[0]!)).toBe(bitsOf(cr));
    expect(bitsOf(ours[1]!)).toBe(bitsOf(ci));
  });
});

describe('spectralWindowSums (wasm kernel)', () => {
  it('adds the dot products of the magnitudes Math.hypot gave, bin by bin, for full and partial windows', () => {
    const win = hannSymmetric();
    const kinds: [string, () => number][] = [
      ['noise', () => Math.fround(rand() - 0.5)],
      ['quiet', () => Math.fround((rand() - 0.5) * 1e-6)],
      ['loud', () => Math.fround(rand() < 0.5 ? -1 : 1)],
      ['silence', () => 0],
    ];
    for (const [name, sample] of kinds) {
      for (const fill of [SPECTRAL_WINDOW, 1, 2, 511, 512, 777, 1023]) {
        const a = Float64Array.from({ length: SPECTRAL_WINDOW }, sample);
        const b = Float64Array.from({ length: SPECTRAL_WINDOW }, (_, i) => (name === 'silence' ? 0 : Math.fround(a[i]! + (rand() - 0.5) * 1e-3)));
        const start = Float64Array.of(rand(), rand(), rand());
        const ours = start.slice();
        spectralWindowSums(a, b, win, fill, ours);
        const ma = referenceMagnitudes(a, win, fill);
        const mb = referenceMagnitudes(b, win, fill);
        let [ab, aa, bb] = start;
        for (let k = 0; k < ma.length; k++) {
          ab! += ma[k]! * mb[k]!;
          aa! += ma[k]! * ma[k]!;
          bb! += mb[k]! * mb[k]!;
        }
        expect(bitsOf(ours), `${name}, fill ${fill}`).toBe(bitsOf(Float64Array.of(ab!, aa!, bb!)));
      }
    }
  });

  it('keeps an exactly silent window at exact zeros', () => {
    const sums = new Float64Array(3);
    spectralWindowSums(new Float64Array(SPECTRAL_WINDOW), new Float64Array(SPECTRAL_WINDOW), hannSymmetric(), SPECTRAL_WINDOW, sums);
    expect([...sums]).toEqual([0, 0, 0]);
  });
});
