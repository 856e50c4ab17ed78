import { describe, expect, it } from 'vitest';
import { comparisonFramesCsv, pairFramesCsv } from '../../src/bundle/frames-csv.js';
import { summarizePsnr, summarizeSsim } from '../../src/metrics/series.js';
import type { VideoMetrics } from '../../src/schemas/measurement.js';
import type { PairReport } from '../../src/schemas/report.js';

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

  it('follows the metric set for a comparison, also when no pair was measured', () => {
    const pair = { slot_id: 's', case_id: 'c,1', repetition: 0, video: ffmpegOnly } as unknown as PairReport;
    const invalid = { slot_id: 't', case_id: 'd', repetition: 0, video: null } as unknown as PairReport;
    expect(comparisonFramesCsv([invalid, pair], ['ssim_ffmpeg', 'psnr_y'])).toBe(
      'slot_id,case_id,repetition,frame,ssim_ffmpeg_y,ssim_ffmpeg_u,ssim_ffmpeg_v,ssim_ffmpeg_all,psnr_y\ns,"c,1",0,0,0.5,0.5,0.5,0.5,30\ns,"c,1",0,1,0.25,0.25,0.25,0.25,\n',
    );
    expect(comparisonFramesCsv([invalid], ['psnr_db', 'mae', 'audio'])).toBe('slot_id,case_id,repetition,frame\n');
    expect(comparisonFramesCsv([invalid], ['ssim', 'psnr_y'])).toBe('slot_id,case_id,repetition,frame,ssim,psnr_y\n');
  });
});
