import { beforeAll, describe, expect, it } from 'vitest';
import type { DecodedFrame } from '../../src/metrics/frame.js';
import { METRIC_NAMES, METRIC_SETS, resolveMetrics } from '../../src/metrics/names.js';
import type { MetricName, MetricSetName } from '../../src/metrics/names.js';
import { VIDEO_METRICS, needsAudio, needsRgb24, videoMetricDefs } from '../../src/metrics/registry.js';
import { createVideoAccumulator } from '../../src/metrics/video.js';
import { VideoMetrics } from '../../src/schemas/measurement.js';
import { yuvToRgb24 } from '../../src/metrics/rgb24.js';
import { decodePlanes, goldenPair } from './oracle.js';

let a: DecodedFrame[];
let b: DecodedFrame[];

beforeAll(async () => {
  const golden = goldenPair('noise');
  [a, b] = await Promise.all([decodePlanes(golden.baselineFile), decodePlanes(golden.candidateFile)]);
});

function measure(metrics: string, x = a, y = b, options = {}): VideoMetrics {
  const acc = createVideoAccumulator(x[0]!, metrics, options);
  x.forEach((fx, i) => acc.addFrame(fx, y[i]!));
  return VideoMetrics.parse(acc.finish());
}

/** The report fields of `video` a list of metric names fills. */
const fieldsOf = (list: readonly MetricName[]): string[] => list.filter((n) => n !== 'audio').sort();
const RGB_FIELDS = ['rgb_conversion', 'rgb_matrix', 'rgb_range'];
const measuredFields = (v: VideoMetrics): string[] => Object.keys(v).filter((k) => !['width', 'height', 'frames', 'identical', ...RGB_FIELDS].includes(k)).sort();

describe('resolveMetrics', () => {
  it('reads set names, comma-separated lists and arrays; default when absent', () => {
    expect(resolveMetrics(undefined)).toEqual({ set: 'default', list: ['ssim', 'ssim_ffmpeg', 'psnr_y', 'psnr_db', 'mae', 'audio'] });
    expect(resolveMetrics('all').list).toEqual([...METRIC_NAMES]);
    expect(resolveMetrics('ffmpeg')).toEqual({ set: 'ffmpeg', list: ['ssim_ffmpeg', 'psnr_y'] });
    expect(resolveMetrics('inferencex')).toEqual({ set: 'inferencex', list: ['psnr_db', 'mae', 'audio'] });
    expect(resolveMetrics('ssim,psnr_y')).toEqual({ set: null, list: ['ssim', 'psnr_y'] });
    expect(resolveMetrics(' psnr_y , ssim ')).toEqual({ set: null, list: ['ssim', 'psnr_y'] });
    expect(resolveMetrics(['mae'])).toEqual({ set: null, list: ['mae'] });
    // A list that names exactly a set's metrics is that set: one choice, one report.
    expect(resolveMetrics('psnr_y,ssim_ffmpeg')).toEqual({ set: 'ffmpeg', list: ['ssim_ffmpeg', 'psnr_y'] });
    expect(resolveMetrics({ set: null, list: ['psnr_db', 'mae', 'audio'] })).toEqual({ set: 'inferencex', list: ['psnr_db', 'mae', 'audio'] });
  });

  it('refuses unknown names, empty items, repeats and a set inside a list', () => {
    for (const bad of ['bogus', '', 'ssim,', 'ssim,ssim', 'ffmpeg,ssim', 'SSIM', [] as string[], 7 as unknown as string]) {
      expect(() => resolveMetrics(bad), JSON.stringify(bad)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    }
    expect(() => resolveMetrics('ssim,vmaf')).toThrow(/vmaf/);
  });

  it('decodes rgb24 and audio only for the sets that read them', () => {
    expect(needsRgb24(METRIC_SETS.ffmpeg)).toBe(false);
    expect(needsRgb24(resolveMetrics('ssim,psnr_y').list)).toBe(false);
    expect(needsRgb24(METRIC_SETS.default)).toBe(true);
    expect(needsRgb24(METRIC_SETS.inferencex)).toBe(true);
    expect(needsRgb24(['ssim_rgb7'])).toBe(true);
    expect(needsAudio(METRIC_SETS.ffmpeg)).toBe(false);
    expect(needsAudio(METRIC_SETS.inferencex)).toBe(true);
    // Every selectable video metric has exactly one definition; ssim_ffmpeg alone is temporal.
    for (const name of METRIC_NAMES.filter((n) => n !== 'audio')) expect(VIDEO_METRICS.filter((d) => d.provides.includes(name))).toHaveLength(1);
    expect(VIDEO_METRICS.filter((d) => d.temporal).map((d) => d.name)).toEqual(['ssim_ffmpeg']);
    expect(videoMetricDefs(METRIC_SETS.ffmpeg).map((d) => d.name)).toEqual(['ssim_ffmpeg', 'psnr_y']);
  });
});

describe('metric sets on the golden frames', () => {
  it('each set computes exactly its metrics, with the bytes the `all` set gives for them', () => {
    const all = measure('all');
    expect(measuredFields(all)).toEqual(fieldsOf(METRIC_SETS.all));
    for (const set of Object.keys(METRIC_SETS) as MetricSetName[]) {
      const v = measure(set);
      expect(measuredFields(v), set).toEqual(fieldsOf(METRIC_SETS[set]));
      // The conversion is recorded exactly when a chosen metric reads rgb24.
      expect(RGB_FIELDS.every((f) => f in v), set).toBe(needsRgb24(METRIC_SETS[set]));
      expect([v.width, v.height, v.frames, v.identical]).toEqual([all.width, all.height, all.frames, all.identical]);
      for (const field of measuredFields(v)) expect(JSON.stringify(v[field as keyof VideoMetrics]), `${set}: ${field}`).toBe(JSON.stringify(all[field as keyof VideoMetrics]));
    }
    const list = measure('ssim,psnr_y');
    expect(measuredFields(list)).toEqual(['psnr_y', 'ssim']);
    expect(JSON.stringify(list.ssim)).toBe(JSON.stringify(all.ssim));
    // One of the pooled pair alone: only that field.
    expect(measuredFields(measure('mae'))).toEqual(['mae']);
    expect(measure('mae').mae).toBe(all.mae);
  });

  it('no set needs rgb24 from the frames: it is converted from the planes, and frames carrying the same rgb24 (ffmpeg path) measure the same', () => {
    const withRgb = (f: DecodedFrame): DecodedFrame => ({ ...f, rgb: yuvToRgb24(f) });
    const ffmpeg = { rgb: { by: 'ffmpeg', matrix: 'bt601', range: 'limited' } };
    for (const set of ['inferencex', 'all', 'ssim_rgb7', 'ffmpeg']) {
      const own = measure(set);
      const carried = measure(set, a.map(withRgb), b.map(withRgb), ffmpeg);
      expect(JSON.stringify({ ...carried, ...(carried.rgb_conversion ? { rgb_conversion: 'fidelity' } : {}) }), set).toBe(JSON.stringify(own));
    }
    // The ffmpeg path refuses a frame without its rgb24; a Y-only set never looks at it.
    expect(() => measure('inferencex', a, b, ffmpeg)).toThrow(/rgb/);
    expect(JSON.stringify(measure('ffmpeg', a, b, ffmpeg))).toBe(JSON.stringify(measure('ffmpeg')));
  });

  it('checks only the chosen metrics\' windows: a frame too small for one is refused only when it is chosen', () => {
    const g = { width: 8, height: 8, chromaWidth: 4, chromaHeight: 4 };
    expect(() => createVideoAccumulator(g, 'ssim')).toThrow(expect.objectContaining({ code: 'FRAME_TOO_SMALL' }));
    expect(() => createVideoAccumulator(g, 'ssim_ffmpeg')).toThrow(expect.objectContaining({ code: 'FRAME_TOO_SMALL' }));
    const acc = createVideoAccumulator(g, 'psnr_y,mae');
    const frame = (v: number): DecodedFrame => ({ ...g, y: new Uint8Array(64).fill(v), u: new Uint8Array(16).fill(128), v: new Uint8Array(16).fill(128) });
    acc.addFrame(frame(100), frame(102));
    const m = acc.finish();
    expect(m.psnr_y?.per_frame[0]).toBeCloseTo(10 * Math.log10((255 * 255) / 4), 12);
    // Neutral chroma: R = G = B = ((8Y - 128) * 9539) >> 16, 97 and 100.
    expect([...yuvToRgb24(frame(100)).subarray(0, 3), ...yuvToRgb24(frame(102)).subarray(0, 3)]).toEqual([97, 97, 97, 100, 100, 100]);
    expect(m.mae).toBeCloseTo(3 / 255, 15);
    expect(m.ssim).toBeUndefined();
  });
});
