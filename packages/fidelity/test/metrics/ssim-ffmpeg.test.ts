import { describe, expect, it } from 'vitest';
import { ffmpegPlaneWeights, ssimFfmpegAll, ssimFfmpegPlane } from '../../src/metrics/ssim-ffmpeg.js';
import { createVideoAccumulator } from '../../src/metrics/video.js';
import { decodePlanes, ffmpegSsimFiles, ffmpegSsimGray, goldenPair, goldenPlanes, PAIR_NAMES, ssimOracleMode } from './oracle.js';

// Oracle: FFmpeg's own ssim filter, run live with the resolved binary; its
// stats_file prints 6 decimals. Where that build's x86 SIMD end-line code is
// the broken one of FFmpeg 5.1, the oracle is its C code (ssimOracleMode).
const TOLERANCE = 1e-6;

describe('ssim_ffmpeg against the ssim filter', () => {
  it('knows which of the filter\'s code paths is the oracle', async () => {
    const mode = await ssimOracleMode();
    expect(Number.isInteger(mode.libavfilterMajor)).toBe(true);
    if (mode.brokenSimd) {
      // Ours is SSIM there, the C path agrees; the SIMD path of this build is not (FFmpeg 5.1: 1.0-ish nonsense for 4k+1 windows a row).
      const a = Uint8Array.from({ length: 24 * 24 }, (_, i) => (((i % 24) + Math.floor(i / 24)) % 2) * 255);
      const ours = ssimFfmpegPlane(a, a.map((v) => 255 - v), 24, 24);
      expect(Math.abs(ours - mode.brokenSimd.c)).toBeLessThanOrEqual(TOLERANCE);
      expect(Math.abs(ours - mode.brokenSimd.simd)).toBeGreaterThan(0.1);
      console.warn(`NOTE: this ffmpeg's x86 SIMD ssim filter is wrong for rows of 4k+1 windows (${mode.brokenSimd.simd} against its C code's ${mode.brokenSimd.c}): the oracle runs with -cpuflags 0.`);
    }
  });

  for (const name of PAIR_NAMES) {
    it(`matches Y, U, V and All of every frame of the ${name} pair`, async () => {
      const golden = goldenPair(name);
      const [a, b, stats] = await Promise.all([
        decodePlanes(golden.baselineFile),
        decodePlanes(golden.candidateFile),
        ffmpegSsimFiles(golden.baselineFile, golden.candidateFile),
      ]);
      expect(stats).toHaveLength(a.length);
      const acc = createVideoAccumulator(a[0]!);
      a.forEach((fa, i) => acc.addFrame(fa, b[i]!));
      const ff = acc.finish().ssim_ffmpeg!;
      let exact = 0;
      stats.forEach((line, i) => {
        const ours = [ff.y.per_frame[i]!, ff.u.per_frame[i]!, ff.v.per_frame[i]!, ff.all.per_frame[i]!];
        const theirs = [line.Y, line.U, line.V, line.All];
        ours.forEach((v, k) => {
          expect(Math.abs(v - Number(theirs[k]))).toBeLessThanOrEqual(TOLERANCE);
          if (v.toFixed(6) === theirs[k]) exact++;
        });
        // The stateless per-plane function: the same within the tolerance.
        expect(Math.abs(ssimFfmpegPlane(a[i]!.y, b[i]!.y, a[i]!.width, a[i]!.height) - Number(line.Y))).toBeLessThanOrEqual(TOLERANCE);
      });
      // On x86-64 with FFmpeg 4.x (the SSE4 code whose float order ssim_ffmpeg follows) the
      // whole-stream run reproduces every printed digit. Other builds run FFmpeg's C or NEON
      // code, or (FFmpeg 5) sum rows in double: their rounding differs within the tolerance.
      const mode = await ssimOracleMode();
      if (process.arch === 'x64' && mode.floatSums && !mode.brokenSimd) expect(exact).toBe(4 * stats.length);
    });
  }

  for (const c of goldenPlanes().filter((p) => p.channels === 1 && p.width >= 8 && p.height >= 8)) {
    it(`matches the filter on the ${c.name} gray plane (${c.width}x${c.height})`, async () => {
      const line = await ffmpegSsimGray(c.aBytes, c.bBytes, c.width, c.height);
      expect(Math.abs(ssimFfmpegPlane(c.aBytes, c.bBytes, c.width, c.height) - Number(line.Y))).toBeLessThanOrEqual(TOLERANCE);
    });
  }
});

describe('ssim_ffmpeg', () => {
  it('weights the planes by area, in float32, as vf_ssim.c', () => {
    const g = { width: 174, height: 98, chromaWidth: 87, chromaHeight: 49 };
    const [wy, wu, wv] = ffmpegPlaneWeights(g);
    expect(wy).toBe(Math.fround((174 * 98) / (174 * 98 + 2 * 87 * 49)));
    expect(wu).toBe(wv);
    expect(ssimFfmpegAll(1, 1, 1, g)).toBeCloseTo(1, 6);
    expect(ssimFfmpegAll(0.5, 0.25, 0.75, g)).toBe(Math.fround(Math.fround(Math.fround(wy * 0.5) + Math.fround(wu * 0.25)) + Math.fround(wv * 0.75)));
  });

  it('ignores the columns and rows past the last whole 4x4 block', () => {
    const w = 19;
    const h = 14;
    const a = Uint8Array.from({ length: w * h }, (_, i) => (i * 31) % 256);
    const b = a.slice();
    for (let y = 0; y < h; y++) for (let x = 16; x < w; x++) b[y * w + x] = 255 - a[y * w + x]!;
    for (let x = 0; x < w; x++) for (let y = 12; y < h; y++) b[y * w + x] = 0;
    expect(ssimFfmpegPlane(a, b, w, h)).toBe(1);
  });

  it('refuses planes without two whole blocks a side', () => {
    expect(() => ssimFfmpegPlane(new Uint8Array(49), new Uint8Array(49), 7, 7)).toThrow(/at least 8x8/);
  });
});
