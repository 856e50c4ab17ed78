/**
 * InferenceX's figures from this library's sums (metrics/inferencex.ts), on hand-made inputs: the
 * nulls, the template, the clip validity hook and the exact timestamp deltas. The figures of real
 * pairs are checked against InferenceX's recipe in inferencex.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { createAudioAccumulator } from '../../src/metrics/audio.js';
import {
  exactDeltaSeconds,
  inferencexFigures,
  inferencexRefused,
  inferencexTemplate,
  maxDeltaSeconds,
  withClipValidity,
} from '../../src/metrics/inferencex.js';
import { isUnconditionallyValid, type ClipCode } from '../../src/schemas/clip.js';
import { InferencexFigures } from '../../src/schemas/measurement.js';

const sine = (n: number, amp: number) => Float32Array.from({ length: n }, (_, i) => amp * Math.sin(i / 7));

function sumsOf(a: Float32Array[], b: Float32Array[]) {
  const acc = createAudioAccumulator(32000, a.length);
  acc.push(a, b);
  acc.finish();
  return acc.sums();
}

const video = { mae: 0.01, psnrDb: 40, frames: 12, maxAlignmentDeltaSeconds: 0 };

/** An accepted pair's figures (the schema's `compatible: true` side). */
function accepted(f: InferencexFigures): Extract<InferencexFigures, { compatible: true }> {
  if (!f.compatible) throw new Error('InferenceX refused the pair');
  return f;
}

describe("InferenceX's figures from the sums", () => {
  it('pools the audio MAE and RMS ratio over channels, with its nulls for silent baselines and zero spectra', () => {
    const n = 3000;
    const zero = new Float32Array(n);
    // ch0: silent baseline; ch1: both silent; ch2: candidate at half gain; ch3: candidate at 1e-5 (newly silent).
    const sums = sumsOf([zero, zero, sine(n, 0.5), sine(n, 0.2)], [sine(n, 0.1), zero, sine(n, 0.25), sine(n, 1e-5)]);
    const { compatible, metrics: m } = accepted(InferencexFigures.parse(inferencexFigures(video, { sums, maxAlignmentDeltaSeconds: 0 })));
    expect(compatible).toBe(true);
    expect(m.audio_channel_count).toBe(4);
    expect(m.audio_compared_samples_per_channel).toBe(n);
    expect(m.audio_spectral_windows).toBe(3);
    expect(m.audio_rms_ratio_channels[0]).toBeNull();
    expect(m.audio_rms_ratio_channels[1]).toBeNull();
    expect(m.audio_rms_ratio_channels[2]).toBeCloseTo(0.5, 6);
    expect(m.audio_spectral_cosine_channels.slice(0, 2)).toEqual([null, null]);
    expect(m.audio_spectral_cosine).toBeNull();
    expect(m.audio_newly_silent_channels).toEqual([3]);
    const e = sums.map((s) => [s.energyA, s.energyB]);
    expect(m.audio_rms_ratio).toBe(Math.sqrt(e.reduce((t, x) => t + x[1]!, 0) / e.reduce((t, x) => t + x[0]!, 0)));
    expect(m.audio_waveform_mae).toBe(sums.reduce((t, s) => t + s.sumAbsDiff, 0) / (4 * n));
    expect(m.audio_identical).toBe(false);
    expect(m.video_identical).toBe(false);
  });

  it('gives null PSNR and video_identical for identical video, and leaves the audio as the template without audio', () => {
    const { metrics: m } = inferencexFigures({ ...video, mae: 0, psnrDb: null }, null);
    expect(m).toMatchObject({ video_psnr_db: null, video_identical: true, video_mae: 0, video_sample_coverage_fraction: 1 });
    expect(m).toMatchObject({ audio_channel_count: 0, audio_waveform_mae: null, audio_waveform_mae_channels: [], audio_identical: null, audio_spectral_windows: 0, audio_newly_silent_channels: [] });
  });

  it('refuses with the template when either clip fails an unconditional check; conditional codes do not count', () => {
    const f = inferencexFigures(video, null);
    expect(withClipValidity(f, { baseline: true, candidate: true })).toBe(f);
    expect(withClipValidity(f, { baseline: true, candidate: false })).toEqual(inferencexRefused());
    expect(inferencexRefused()).toEqual({ compatible: false, metrics: inferencexTemplate() });
    expect(InferencexFigures.parse(inferencexRefused()).metrics.video_total_frames).toBe(0);
    // InferenceX's template exactly (evaluator v1.0.0): its 13 keys with its values, nothing more.
    expect(inferencexTemplate()).toStrictEqual({
      video_mae: null,
      video_psnr_db: null,
      video_identical: null,
      video_compared_frames: 0,
      video_total_frames: 0,
      video_sample_coverage_fraction: 0,
      audio_waveform_mae: null,
      audio_spectral_cosine: null,
      audio_rms_ratio: null,
      audio_rms_ratio_channels: [],
      audio_spectral_cosine_channels: [],
      audio_waveform_mae_channels: [],
      audio_channel_count: 0,
    });
    expect(Object.keys(inferencexTemplate())).toHaveLength(13);
    expect(inferencexTemplate()).not.toHaveProperty('audio_waveform_rmse_channels');
    expect(inferencexTemplate()).not.toHaveProperty('audio_newly_silent_channels');
    // A refused pair with any other key is not InferenceX's answer: the schema refuses it.
    expect(InferencexFigures.safeParse({ compatible: false, metrics: { ...inferencexTemplate(), audio_identical: null } }).success).toBe(false);
    const clip = (...codes: ClipCode[]) => ({ reasons: codes.map((code) => ({ code, message: '' })) });
    expect(isUnconditionallyValid(clip('CLIP_NO_MOTION', 'CLIP_SILENT'))).toBe(true);
    expect(isUnconditionallyValid(clip('CLIP_NO_MOTION', 'CLIP_AUDIO_GAP'))).toBe(false);
  });

  it('measures timestamp deltas exactly and rounds once', () => {
    // 1 tick of 1/90000 against 0 of 1/24: exactly 1/90000 s.
    expect(maxDeltaSeconds([0, 3750, 7501], { num: 1, den: 90000 }, [0, 1, 2], { num: 1, den: 24 })).toBe(1 / 90000);
    expect(maxDeltaSeconds([], { num: 1, den: 1 }, [], { num: 1, den: 1 })).toBeNull();
    // 0.1 s + 0.2 s against 0.3 s in exact arithmetic: 0, where floating point would give 5.6e-17.
    expect(exactDeltaSeconds(3, { num: 1, den: 10 }, 3, { num: 1, den: 10 })).toBe(0);
    expect(exactDeltaSeconds(1, { num: 1, den: 10 }, 2, { num: 1, den: 20 })).toBe(0);
    expect(exactDeltaSeconds(-1024, { num: 1, den: 32000 }, 0, { num: 1, den: 48000 })).toBe(0.032);
  });
});
