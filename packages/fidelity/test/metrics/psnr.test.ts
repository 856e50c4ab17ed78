import { describe, expect, it } from 'vitest';
import { diffStats, PooledDiff, psnrFromSse, psnrY } from '../../src/metrics/psnr.js';
import { decodePlanes, ffmpegPsnrFiles, goldenPair, PAIR_NAMES } from './oracle.js';

describe('psnr_y against the psnr filter', () => {
  for (const name of PAIR_NAMES) {
    it(`matches the psnr_y column for every frame of the ${name} pair`, async () => {
      const golden = goldenPair(name);
      const [a, b, stats] = await Promise.all([
        decodePlanes(golden.baselineFile),
        decodePlanes(golden.candidateFile),
        ffmpegPsnrFiles(golden.baselineFile, golden.candidateFile),
      ]);
      expect(stats).toHaveLength(a.length);
      stats.forEach((line, i) => {
        const ours = psnrY(a[i]!.y, b[i]!.y);
        // The filter prints two decimals, and inf for identical planes.
        if (line.psnr_y === 'inf') expect(ours).toBeNull();
        else expect(Math.abs(ours! - Number(line.psnr_y))).toBeLessThanOrEqual(0.005 + 1e-9);
        expect(Math.abs(diffStats(a[i]!.y, b[i]!.y).sse / a[i]!.y.length - Number(line.mse_y))).toBeLessThanOrEqual(0.005 + 1e-9);
      });
    });
  }

  it('gives null for identical frames where the filter prints inf', async () => {
    const golden = goldenPair('blur');
    const [a, stats] = await Promise.all([decodePlanes(golden.baselineFile), ffmpegPsnrFiles(golden.baselineFile, golden.baselineFile)]);
    stats.forEach((line, i) => {
      expect(line.psnr_y).toBe('inf');
      expect(psnrY(a[i]!.y, a[i]!.y.slice())).toBeNull();
    });
  });
});

describe('sample differences', () => {
  it('sums |a-b| and (a-b)^2 exactly, past the SIMD width and its int32 flush', () => {
    const n = 16 * 4096 * 2 + 13;
    const a = Uint8Array.from({ length: n }, (_, i) => (i * 97) % 256);
    const b = Uint8Array.from({ length: n }, (_, i) => (i % 2 ? 0 : 255));
    let sad = 0;
    let sse = 0;
    for (let i = 0; i < n; i++) {
      sad += Math.abs(a[i]! - b[i]!);
      sse += (a[i]! - b[i]!) ** 2;
    }
    expect(diffStats(a, b)).toEqual({ sad, sse });
  });

  it('computes PSNR as 10*log10(255^2/MSE)', () => {
    // MSE 1 on 255 levels: 48.1308... dB
    expect(psnrFromSse(100, 100)).toBeCloseTo(20 * Math.log10(255), 12);
    expect(psnrFromSse(0, 100)).toBeNull();
  });

  it("pools rgb24 samples over frames (InferenceX's video_mae and video_psnr_db)", () => {
    const pooled = new PooledDiff();
    pooled.add({ sad: 30, sse: 300 }, 12);
    pooled.add({ sad: 0, sse: 0 }, 12);
    expect(pooled.mae()).toBeCloseTo(30 / (24 * 255), 15);
    expect(pooled.psnrDb()).toBeCloseTo(-10 * Math.log10(300 / (24 * 255 * 255)), 12);
    const same = new PooledDiff();
    same.add({ sad: 0, sse: 0 }, 12);
    expect(same.psnrDb()).toBeNull();
    expect(same.mae()).toBe(0);
  });
});
