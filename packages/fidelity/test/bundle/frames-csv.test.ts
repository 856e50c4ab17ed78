import { describe, expect, it } from 'vitest';
import { pairFramesCsv } from '../../src/bundle/frames-csv.js';
import { summarizePsnr, summarizeSsim } from '../../src/metrics/series.js';
import type { VideoMetrics } from '../../src/schemas/measurement.js';

const ssim = summarizeSsim([0.5, 0.25]);
const full: VideoMetrics = {
  width: 16,
  height: 16,
  frames: 2,
  ssim,
  ssim_ffmpeg: { y: ssim, u: ssim, v: ssim, all: ssim },
  ssim_rgb7: summarizeSsim([0.75, 0.125]),
  psnr_y: summarizePsnr([30, null]),
  psnr_db: 31,
  mae: 0.01,
  identical: false,
};
const { ssim: _s, ssim_rgb7: _r, psnr_db: _p, mae: _m, ...ffmpegOnly } = full;

describe('frames.csv', () => {
  it('has a column for each computed series only, in a fixed order', () => {
    expect(pairFramesCsv(full)).toBe(
      'frame,ssim,ssim_ffmpeg_y,ssim_ffmpeg_u,ssim_ffmpeg_v,ssim_ffmpeg_all,ssim_rgb7,psnr_y\n0,0.5,0.5,0.5,0.5,0.5,0.75,30\n1,0.25,0.25,0.25,0.25,0.25,0.125,\n',
    );
    expect(pairFramesCsv(ffmpegOnly)).toBe('frame,ssim_ffmpeg_y,ssim_ffmpeg_u,ssim_ffmpeg_v,ssim_ffmpeg_all,psnr_y\n0,0.5,0.5,0.5,0.5,30\n1,0.25,0.25,0.25,0.25,\n');
  });
});
