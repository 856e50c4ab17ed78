import { beforeAll, describe, expect, it } from 'vitest';
import type { DecodedFrame } from '../../src/metrics/frame.js';
import { createOrderedSeries, createVideoAccumulator, measureFrameValues } from '../../src/metrics/video.js';
import { VideoMetrics } from '../../src/schemas/measurement.js';
import { ssimGaussian } from '../../src/metrics/ssim-gaussian.js';
import { ssimRgb7 } from '../../src/metrics/ssim-rgb7.js';
import type { RgbConversion } from '../../src/metrics/rgb24.js';
import { yuvToRgb24 } from '../../src/metrics/rgb24.js';
import { decodePlanes, goldenPair } from './oracle.js';

type RgbFrame = DecodedFrame & { rgb: Uint8Array };
/** The planes as decoded (what measuring gets: rgb24 is converted from them). */
let a: DecodedFrame[];
let b: DecodedFrame[];
/** The same frames carrying rgb24 themselves, for the `ffmpeg` conversion path. */
let ra: RgbFrame[];
let rb: RgbFrame[];
const golden = goldenPair('noise');
const FFMPEG: { rgb: RgbConversion } = { rgb: { by: 'ffmpeg', matrix: 'bt601', range: 'limited' } };

beforeAll(async () => {
  [a, b] = await Promise.all([decodePlanes(golden.baselineFile), decodePlanes(golden.candidateFile)]);
  [ra, rb] = [a.map((f) => ({ ...f, rgb: yuvToRgb24(f) })), b.map((f) => ({ ...f, rgb: yuvToRgb24(f) }))];
});

function measure(x: DecodedFrame[], y: DecodedFrame[], options = {}) {
  const acc = createVideoAccumulator(x[0]!, 'all', options);
  x.forEach((fx, i) => acc.addFrame(fx, y[i]!));
  return acc.finish();
}

describe('createVideoAccumulator', () => {
  it('produces a valid VideoMetrics whose per-frame SSIMs match scikit-image', () => {
    const m = VideoMetrics.parse(measure(a, b)) as Required<VideoMetrics>;
    expect(m).toMatchObject({ width: 174, height: 98, frames: golden.frames, identical: false });
    m.ssim.per_frame.forEach((v, i) => expect(Math.abs(v - golden.ssim.per_frame[i]!)).toBeLessThanOrEqual(1e-5));
    m.ssim_rgb7.per_frame.forEach((v, i) => expect(Math.abs(v - golden.ssim_rgb7.per_frame[i]!)).toBeLessThanOrEqual(1e-5));
    expect(Math.abs(m.ssim.p05 - golden.ssim.p05)).toBeLessThanOrEqual(1e-5);
    expect(m.ssim.worst_frame).toBe(golden.ssim.worst_frame);
    // The pooled figures over PyAV's rgb24 (numpy, exact sums), to the bit.
    expect([m.psnr_db, m.mae]).toEqual([golden.rgb_pooled.psnr_db, golden.rgb_pooled.mae]);
    expect([m.rgb_conversion, m.rgb_matrix, m.rgb_range]).toEqual(['fidelity', 'bt601', 'limited']);
  });

  it('gives the same values from frames that carry that rgb24 themselves (the ffmpeg path); only the conversion field differs', () => {
    const own = measure(a, b);
    const carried = measure(ra, rb, FFMPEG);
    expect(carried.rgb_conversion).toBe('ffmpeg');
    expect(JSON.stringify({ ...carried, rgb_conversion: 'fidelity' })).toBe(JSON.stringify(own));
  });

  it('pools MAE and PSNR over every rgb24 sample of every frame', () => {
    let sad = 0;
    let sse = 0;
    let n = 0;
    ra.forEach((fa, i) => {
      for (let k = 0; k < fa.rgb.length; k++) {
        const d = fa.rgb[k]! - rb[i]!.rgb[k]!;
        sad += Math.abs(d);
        sse += d * d;
        n++;
      }
    });
    const m = measure(a, b);
    expect(m.mae).toBeCloseTo(sad / (n * 255), 15);
    expect(m.psnr_db).toBeCloseTo(-10 * Math.log10(sse / (n * 255 * 255)), 12);
  });

  it('reports a stream compared with itself as identical, with no PSNR', () => {
    const copy = a.map((f) => ({ ...f, y: f.y.slice(), u: f.u.slice(), v: f.v.slice() }));
    const m = measure(a, copy) as Required<VideoMetrics>;
    expect(m.identical).toBe(true);
    expect(m.psnr_db).toBeNull();
    expect(m.mae).toBe(0);
    expect(m.psnr_y).toMatchObject({ min: null, worst_frame: null, identical_frames: a.length });
    expect(m.psnr_y.per_frame.every((v) => v === null)).toBe(true);
    for (const s of [m.ssim, m.ssim_rgb7, m.ssim_ffmpeg.y, m.ssim_ffmpeg.u, m.ssim_ffmpeg.v, m.ssim_ffmpeg.all]) {
      expect(s.min).toBeCloseTo(1, 6);
      expect(s.harmonic_mean).toBeCloseTo(1, 6);
    }
  });

  it('skips the SSIM kernels on equal planes with the value they would give: exactly 1', () => {
    for (const f of ra.slice(0, 3)) {
      // The kernels themselves give exactly 1 on equal planes; the skip returns that same value.
      expect(ssimGaussian(f.y, f.y.slice(), f.width, f.height)).toBe(1);
      expect(ssimRgb7(f.rgb, f.rgb.slice(), f.width, f.height)).toBe(1);
      const same = measureFrameValues(f, { ...f, y: f.y.slice(), rgb: f.rgb.slice() }, f, 'all', FFMPEG);
      expect(same).toMatchObject({ metrics: { ssim: 1, ssim_rgb7: 1 }, identical: true });
      // Converted here: equal planes are not even converted.
      const planes = { ...f, rgb: undefined };
      expect(measureFrameValues(planes, { ...planes, y: f.y.slice() }, f, 'all')).toMatchObject({ metrics: { ssim: 1, ssim_rgb7: 1 }, identical: true });
    }
    // Only one side equal: the other metric still runs its kernel.
    const [fa, fb] = [ra[2]!, rb[2]!];
    const yOnly = measureFrameValues(fa, { ...fb, y: fa.y.slice() }, fa, 'all', FFMPEG).metrics;
    expect(yOnly['ssim']).toBe(1);
    expect(yOnly['ssim_rgb7']).toBe(ssimRgb7(fa.rgb, fb.rgb, fa.width, fa.height));
    expect(yOnly['ssim_rgb7']).toBeLessThan(1);
    const rgbOnly = measureFrameValues(fa, { ...fb, rgb: fa.rgb.slice() }, fa, 'all', FFMPEG).metrics;
    expect(rgbOnly['ssim_rgb7']).toBe(1);
    expect(rgbOnly['ssim']).toBe(ssimGaussian(fa.y, fb.y, fa.width, fa.height));
    expect(rgbOnly['ssim']).toBeLessThan(1);
    // Converted from the planes: a Y-only change still changes rgb24.
    const converted = measureFrameValues(a[2]!, { ...a[2]!, y: b[2]!.y }, fa, 'all').metrics;
    expect(converted['ssim_rgb7']).toBe(ssimRgb7(fa.rgb, yuvToRgb24({ ...a[2]!, y: b[2]!.y }), fa.width, fa.height));
    expect(converted['ssim_rgb7']).toBeLessThan(1);
  });

  it('is not identical when only a chroma sample differs', () => {
    const copy = a.map((f) => ({ ...f, u: f.u.slice() }));
    copy[3]!.u[17] = (copy[3]!.u[17]! + 1) % 256;
    expect(measure(a, copy).identical).toBe(false);
  });

  it('gives the same bytes when the two parts of each frame come in separately and out of order', () => {
    const whole = JSON.stringify(measure(a, b));
    const acc = createVideoAccumulator(a[0]!, 'all');
    const series = createOrderedSeries(a[0]!, 'all');
    // The ordered part must see the frames in order; when it is filed does not matter.
    const ordered = a.map((fa, i) => series.next(fa, b[i]!));
    const indices = [...a.keys()];
    // Last frame first, then the even ones, then the odd ones.
    const last = indices.length - 1;
    const order = [last, ...indices.filter((i) => i % 2 === 0 && i !== last), ...indices.filter((i) => i % 2 === 1 && i !== last)];
    for (const i of order) acc.addValues(i, measureFrameValues(a[i]!, b[i]!, a[0]!, 'all'));
    for (const i of [...order].reverse()) acc.addOrdered(i, ordered[i]!);
    expect(JSON.stringify(acc.finish())).toBe(whole);
  });

  it('tells onValues every part as it is filed, by frame index, with the values the series are made of', () => {
    const seen: { index: number; ssim: unknown; ffmpeg: unknown }[] = [];
    const acc = createVideoAccumulator(a[0]!, 'default', { onValues: (index, v) => seen.push({ index, ssim: v.metrics['ssim'], ffmpeg: v.metrics['ssim_ffmpeg'] }) });
    a.forEach((fa, i) => acc.addFrame(fa, b[i]!));
    const m = acc.finish() as Required<VideoMetrics>;
    // Two parts per frame (ordered, then the rest), in frame order for addFrame.
    expect(seen.map((s) => s.index)).toEqual(a.flatMap((_, i) => [i, i]));
    expect(seen.filter((s) => s.ssim !== undefined).map((s) => s.ssim)).toEqual(m.ssim.per_frame);
    expect(seen.filter((s) => s.ffmpeg !== undefined).map((s) => (s.ffmpeg as { all: number }).all)).toEqual(m.ssim_ffmpeg.all.per_frame);
  });

  it('refuses a part filed twice or at a bad index, and finish() with a part missing', () => {
    const acc = createVideoAccumulator(a[0]!);
    const series = createOrderedSeries(a[0]!);
    const ff = [series.next(a[0]!, b[0]!), series.next(a[1]!, b[1]!)];
    const values = [measureFrameValues(a[0]!, b[0]!, a[0]!), measureFrameValues(a[1]!, b[1]!, a[0]!)];
    for (const bad of [-1, 1.5, Number.NaN]) {
      expect(() => acc.addValues(bad, values[0]!)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    }
    acc.addValues(0, values[0]!);
    expect(() => acc.addValues(0, values[0]!)).toThrow(/already added/);
    acc.addOrdered(1, ff[1]!);
    expect(() => acc.finish()).toThrow(/ordered part of frame 0/);
    acc.addOrdered(0, ff[0]!);
    expect(() => acc.finish()).toThrow(/values of frame 1/);
    acc.addValues(1, values[1]!);
    expect(acc.finish().frames).toBe(2);
    expect(() => acc.addFrame(a[2]!, b[2]!)).toThrow(/after finish/);
  });

  it('gives the same bytes whether pairs run one after the other or interleaved', () => {
    const first = JSON.stringify(measure(a, b));
    const second = JSON.stringify(measure(b, a));
    const x = createVideoAccumulator(a[0]!, 'all');
    const y = createVideoAccumulator(a[0]!, 'all');
    a.forEach((fa, i) => {
      x.addFrame(fa, b[i]!);
      y.addFrame(b[i]!, fa);
    });
    expect(JSON.stringify(x.finish())).toBe(first);
    expect(JSON.stringify(y.finish())).toBe(second);
  });

  it('refuses bad geometry, mismatched frames and empty streams', () => {
    expect(() => createVideoAccumulator({ width: 10, height: 10, chromaWidth: 5, chromaHeight: 5 })).toThrow(/at least/);
    expect(() => createVideoAccumulator({ width: 0, height: 10, chromaWidth: 5, chromaHeight: 5 })).toThrow(/positive integer/);
    const acc = createVideoAccumulator(a[0]!);
    // Converted from the planes: rgb24 handed in would be ignored, so it is refused.
    expect(() => acc.addFrame(a[0]!, rb[0]!)).toThrow(/converted from the planes.*b\.rgb/);
    const carried = createVideoAccumulator(a[0]!, 'default', FFMPEG);
    expect(() => carried.addFrame(ra[0]!, { ...rb[0]!, rgb: rb[0]!.rgb.subarray(1) })).toThrow(/b\.rgb\.length/);
    expect(() => carried.addFrame(ra[0]!, b[0]!)).toThrow(/b\.rgb/);
    expect(() => acc.finish()).toThrow(/No frame/);
    // 4:4:4 (or an odd height in 4:2:0) is not the formula's: only frames carrying ffmpeg's rgb24.
    const yuv444 = { width: 32, height: 32, chromaWidth: 32, chromaHeight: 32 };
    expect(() => createVideoAccumulator(yuv444)).toThrow(/"ffmpeg"/);
    expect(() => createVideoAccumulator({ width: 32, height: 33, chromaWidth: 16, chromaHeight: 17 })).toThrow(/"ffmpeg"/);
    expect(createVideoAccumulator(yuv444, 'ffmpeg')).toBeDefined();
    expect(createVideoAccumulator(yuv444, 'default', FFMPEG)).toBeDefined();
    expect(() => createVideoAccumulator(a[0]!, 'default', { rgb: { by: 'fidelity', matrix: 'bt2020', range: 'limited' } as never })).toThrow(/matrix/);
  });
});
