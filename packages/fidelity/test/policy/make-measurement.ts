// Builds PairMeasurement values for policy and pairing tests: only the figures a test names differ from a clean pair.
import type { AudioMetrics, PairMeasurement, SsimSeries, VideoMetrics } from '../../src/schemas/measurement.js';

function series(min: number, frames = 3): SsimSeries {
  const per_frame = Array.from({ length: frames }, (_, i) => (i === 0 ? min : 1));
  return { min, mean: per_frame.reduce((a, b) => a + b, 0) / frames, p05: min, max: 1, worst_frame: 0, harmonic_mean: min, per_frame };
}

export interface Figures {
  ssimMin?: number;
  psnrDb?: number | null;
  spectralCosine?: number;
  rmsRatio?: number | null;
  audio?: boolean;
}

export function makeMeasurement(f: Figures = {}): PairMeasurement {
  const ssimMin = f.ssimMin ?? 0.99;
  const psnr = f.psnrDb === undefined ? 40 : f.psnrDb;
  const video: VideoMetrics = {
    width: 16,
    height: 16,
    frames: 3,
    ssim: series(ssimMin),
    ssim_ffmpeg: { y: series(ssimMin), u: series(1), v: series(1), all: series(ssimMin) },
    ssim_rgb7: series(ssimMin),
    psnr_y: { min: psnr, mean: psnr, p05: psnr, max: psnr, worst_frame: psnr === null ? null : 0, identical_frames: psnr === null ? 3 : 0, per_frame: [psnr, psnr, psnr] },
    psnr_db: psnr,
    mae: psnr === null ? 0 : 0.01,
    identical: psnr === null,
  };
  const rms = f.rmsRatio === undefined ? 1 : f.rmsRatio;
  const channel = {
    channel: 0,
    samples: 100,
    max_abs_diff: 0,
    mae: 0,
    rmse: 0,
    snr_db: null,
    pearson: 1,
    rms_ratio: rms,
    rms_ratio_reason: rms === null ? 'baseline_silent' : null,
    spectral_cosine: f.spectralCosine ?? 1,
    newly_silent: false,
    identical: false,
    baseline_peak: rms === null ? 0 : 0.5,
    candidate_peak: 0.5,
    lag_estimate_samples: 0,
  };
  const audio: AudioMetrics = {
    sample_rate: 32000,
    channels: [channel],
    spectral_cosine: channel.spectral_cosine,
    rms_ratio: rms,
    identical: false,
    newly_silent_channels: [],
  };
  return { video, audio: f.audio === false ? null : audio };
}
