import { describe, expect, it } from 'vitest';
import { ssimPlane7, ssimRgb7 } from '../../src/metrics/ssim-rgb7.js';
import { decodeVideo, goldenPair, goldenPlanes, PAIR_NAMES } from './oracle.js';

// Oracle: scikit-image structural_similarity(a, b, channel_axis=2, data_range=255)
// (7x7 uniform window, sample covariance), fixtures/golden/make_golden.py.
const TOLERANCE = 1e-5;

describe('ssimRgb7 against scikit-image', () => {
  for (const name of PAIR_NAMES) {
    // The golden rgb24 is PyAV's; ours is converted from the decoded planes (decodeVideo): both the conversion and the kernel are checked.
    it(`matches every rgb24 frame of the ${name} pair within ${TOLERANCE}`, async () => {
      const golden = goldenPair(name);
      const [a, b] = await Promise.all([decodeVideo(golden.baselineFile), decodeVideo(golden.candidateFile)]);
      const worst = Math.max(...a.map((fa, i) => Math.abs(ssimRgb7(fa.rgb, b[i]!.rgb, fa.width, fa.height) - golden.ssim_rgb7.per_frame[i]!)));
      expect(worst).toBeLessThanOrEqual(TOLERANCE);
    });
  }

  for (const c of goldenPlanes()) {
    if (c.ssim_rgb7 !== undefined) {
      it(`matches the ${c.name} rgb planes (${c.width}x${c.height})`, () => {
        expect(Math.abs(ssimRgb7(c.aBytes, c.bBytes, c.width, c.height) - c.ssim_rgb7!)).toBeLessThanOrEqual(TOLERANCE);
      });
    }
    if (c.ssim7 !== undefined) {
      it(`matches the ${c.name} gray plane with the 7x7 window (${c.width}x${c.height})`, () => {
        expect(Math.abs(ssimPlane7(c.aBytes, c.bBytes, c.width, c.height) - c.ssim7!)).toBeLessThanOrEqual(TOLERANCE);
      });
    }
  }
});

describe('ssimRgb7', () => {
  it('averages the three channels, each its own image', () => {
    const w = 12;
    const h = 9;
    const r = Uint8Array.from({ length: w * h }, (_, i) => (i * 37) % 256);
    const g = Uint8Array.from({ length: w * h }, (_, i) => (i * 11 + 5) % 256);
    const b = Uint8Array.from({ length: w * h }, (_, i) => (i * i) % 256);
    const r2 = r.map((v, i) => Math.min(255, v + (i % 5)));
    const g2 = g.map((v) => 255 - v);
    const interleave = (x: Uint8Array, y: Uint8Array, z: Uint8Array) => Uint8Array.from({ length: 3 * w * h }, (_, i) => [x, y, z][i % 3]![Math.floor(i / 3)]!);
    const expected = (ssimPlane7(r, r2, w, h) + ssimPlane7(g, g2, w, h) + ssimPlane7(b, b, w, h)) / 3;
    expect(ssimRgb7(interleave(r, g, b), interleave(r2, g2, b), w, h)).toBeCloseTo(expected, 12);
  });

  it('refuses frames smaller than 7x7', () => {
    expect(() => ssimRgb7(new Uint8Array(108), new Uint8Array(108), 6, 6)).toThrow(/at least 7x7/);
  });
});
