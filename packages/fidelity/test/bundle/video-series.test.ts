import { describe, expect, it } from 'vitest';
import { chartedSeries, worstFrameOf } from '../../src/bundle/video-series.js';
import { summarizePsnr, summarizeSsim } from '../../src/metrics/series.js';
import type { VideoMetrics } from '../../src/schemas/measurement.js';

const base = { width: 16, height: 16, frames: 3, identical: false };
const gauss = summarizeSsim([0.9, 0.5, 0.8]); // worst 1
const ff = summarizeSsim([0.4, 0.9, 0.9]); // worst 0
const rgb7 = summarizeSsim([0.9, 0.9, 0.3]); // worst 2
const psnr = summarizePsnr([40, 35, 20]); // worst 2

describe('the series a page charts', () => {
  it('is the one the min_ssim check reads when computed, else Gaussian, else FFmpeg All, else 7x7', () => {
    const all: VideoMetrics = { ...base, ssim: gauss, ssim_ffmpeg: { y: ff, u: ff, v: ff, all: ff }, ssim_rgb7: rgb7, psnr_y: psnr };
    expect(chartedSeries(all)?.path).toBe('video.ssim');
    expect(chartedSeries(all, 'video.ssim_rgb7.min')?.series).toBe(rgb7);
    expect(chartedSeries(all, 'video.ssim_ffmpeg.y.p05')?.path).toBe('video.ssim_ffmpeg.y');
    // A check on a series the set did not compute falls back to the first computed one.
    const ffmpeg: VideoMetrics = { ...base, ssim_ffmpeg: { y: ff, u: ff, v: ff, all: ff }, psnr_y: psnr };
    expect(chartedSeries(ffmpeg, 'video.ssim.min')?.path).toBe('video.ssim_ffmpeg.all');
    expect(chartedSeries({ ...base, ssim_rgb7: rgb7 })?.path).toBe('video.ssim_rgb7');
    expect(chartedSeries({ ...base, psnr_db: 30, mae: 0.1 })).toBeNull();
  });

  it('gives the stills the worst frame of that series, else of PSNR Y, else frame 0', () => {
    expect(worstFrameOf({ ...base, ssim: gauss, ssim_rgb7: rgb7 })).toBe(1);
    expect(worstFrameOf({ ...base, ssim_ffmpeg: { y: ff, u: ff, v: ff, all: ff } })).toBe(0);
    expect(worstFrameOf({ ...base, psnr_y: psnr })).toBe(2);
    expect(worstFrameOf({ ...base, mae: 0.1 })).toBe(0);
  });
});
