import { describe, expect, it } from 'vitest';
import { gaussianTaps, ssimGaussian } from '../../src/metrics/ssim-gaussian.js';
import { decodePlanes, goldenPair, goldenPlanes, PAIR_NAMES } from './oracle.js';

// Oracle: scikit-image structural_similarity(gaussian_weights=True, sigma=1.5,
// use_sample_covariance=False, data_range=255), fixtures/golden/make_golden.py.
const TOLERANCE = 1e-5;

describe('ssimGaussian against scikit-image', () => {
  for (const name of PAIR_NAMES) {
    it(`matches every frame of the ${name} pair within ${TOLERANCE}`, async () => {
      const golden = goldenPair(name);
      const [a, b] = await Promise.all([decodePlanes(golden.baselineFile), decodePlanes(golden.candidateFile)]);
      expect(a).toHaveLength(golden.frames);
      expect(b).toHaveLength(golden.frames);
      const worst = Math.max(...a.map((fa, i) => Math.abs(ssimGaussian(fa.y, b[i]!.y, fa.width, fa.height) - golden.ssim.per_frame[i]!)));
      expect(worst).toBeLessThanOrEqual(TOLERANCE);
    });
  }

  for (const c of goldenPlanes().filter((p) => p.ssim !== undefined)) {
    it(`matches the ${c.name} planes (${c.width}x${c.height})`, () => {
      expect(Math.abs(ssimGaussian(c.aBytes, c.bBytes, c.width, c.height) - c.ssim!)).toBeLessThanOrEqual(TOLERANCE);
    });
  }
});

describe('ssimGaussian', () => {
  it('uses scipy.ndimage kernel: 11 taps, normalised, centre first', () => {
    const taps = gaussianTaps();
    expect(taps).toHaveLength(6);
    expect(taps[0]! + 2 * taps.slice(1).reduce((s, t) => s + t, 0)).toBeCloseTo(1, 15);
    expect(taps[1]! / taps[0]!).toBeCloseTo(Math.exp(-0.5 / 2.25), 15);
  });

  it('is exactly 1 for identical planes, whatever their content', () => {
    const a = Uint8Array.from({ length: 40 * 30 }, (_, i) => (i * 7919) % 256);
    expect(ssimGaussian(a, a.slice(), 40, 30)).toBe(1);
  });

  it('stays within 1e-7 of float64 on bright, nearly flat planes, where float32 sums of squares cancel', () => {
    // Near-white planes with one-level differences: E[x^2] - E[x]^2 is ~62500 - ~62500.
    const w = 40;
    const h = 24;
    const a = Uint8Array.from({ length: w * h }, (_, i) => 250 + (i % 7 === 0 ? 1 : 0));
    const b = Uint8Array.from({ length: w * h }, (_, i) => 250 + (i % 3 === 0 ? 1 : 0));
    // Direct 2-D weighted statistics per window, in float64 with two-pass variances.
    const t = gaussianTaps();
    const wt = (k: number) => t[Math.abs(k)]!;
    let sum = 0;
    for (let y = 5; y < h - 5; y++) {
      for (let x = 5; x < w - 5; x++) {
        let ma = 0;
        let mb = 0;
        for (let j = -5; j <= 5; j++) for (let i = -5; i <= 5; i++) {
          ma += wt(i) * wt(j) * a[(y + j) * w + x + i]!;
          mb += wt(i) * wt(j) * b[(y + j) * w + x + i]!;
        }
        let va = 0;
        let vb = 0;
        let cov = 0;
        for (let j = -5; j <= 5; j++) for (let i = -5; i <= 5; i++) {
          const da = a[(y + j) * w + x + i]! - ma;
          const db = b[(y + j) * w + x + i]! - mb;
          va += wt(i) * wt(j) * da * da;
          vb += wt(i) * wt(j) * db * db;
          cov += wt(i) * wt(j) * da * db;
        }
        const c1 = (0.01 * 255) ** 2;
        const c2 = (0.03 * 255) ** 2;
        sum += ((2 * ma * mb + c1) * (2 * cov + c2)) / ((ma * ma + mb * mb + c1) * (va + vb + c2));
      }
    }
    const expected = sum / ((w - 10) * (h - 10));
    // The float32 kernel is off by about 6e-9 here (exact integer maps, var(d) from the difference map).
    expect(Math.abs(ssimGaussian(a, b, w, h) - expected)).toBeLessThan(1e-7);
  });

  it('refuses planes smaller than the 11x11 window and wrong lengths', () => {
    expect(() => ssimGaussian(new Uint8Array(100), new Uint8Array(100), 10, 10)).toThrow(/FRAME_TOO_SMALL|at least 11x11/);
    expect(() => ssimGaussian(new Uint8Array(120), new Uint8Array(121), 11, 11)).toThrow(/Expected 121/);
  });
});
