/**
 * A clip's reasons come root cause first, in the one order ClipCode declares (docs/reason-codes.md,
 * "Clip validity"): a black clip is CLIP_BLANK before CLIP_NO_MOTION, held frames CLIP_FROZEN before
 * it, whatever order the checks run in.
 */
import { describe, expect, it } from 'vitest';
import { clipReasons, judgeClip } from '../../src/metrics/clip-checks.js';
import { ClipCode, type ClipAudio, type ClipVideo } from '../../src/schemas/clip.js';

/** 36 black frames, every step frozen (no motion), timestamps in order at 24 fps. */
const black: ClipVideo = {
  frame_count: 36,
  width: 112,
  height: 64,
  blank_fraction: 1,
  black_fraction: 1,
  white_fraction: 0,
  duplicate_fraction: 1,
  mean_adjacent_frame_mae: 0,
  frozen_fraction: 1,
  min_frame_interval_seconds: 1 / 24,
  max_frame_interval_seconds: 1 / 24,
  missing_timestamps: 0,
  nonincreasing_timestamps: 0,
  corrupt_frame_count: 0,
  geometry_stable: true,
  time_base_seconds: 1 / 12288,
  start_seconds: 0,
  end_seconds: 1.5,
  blank_runs: [[0, 35]],
  frozen_runs: [[0, 35]],
};

/** Two silent channels of 1.5 s at 16 kHz. */
const silent: ClipAudio = {
  sample_rate: 16000,
  channel_count: 2,
  sample_count: 24000,
  rms_channels: [0, 0],
  rms_dbfs_channels: [null, null],
  peak_channels: [0, 0],
  dc_offset_channels: [0, 0],
  clipping_fraction_channels: [0, 0],
  silence_fraction_channels: [1, 1],
  silent_channels: [0, 1],
  identical_channel_pairs: [[0, 1]],
  max_timestamp_gap_seconds: 0,
  max_timestamp_gap_at_sample: 1024,
  missing_timestamps: 0,
  nonincreasing_timestamps: 0,
  corrupt_frame_count: 0,
  time_base_seconds: 1 / 16000,
  start_seconds: 0,
  end_seconds: 1.5,
  silent_runs: [[0, 23999]],
} as ClipAudio;

describe('clip reasons, root cause first', () => {
  it('a black clip is CLIP_BLANK before CLIP_NO_MOTION', () => {
    expect(clipReasons(black, null).map((r) => r.code)).toEqual(['CLIP_BLANK', 'CLIP_NO_MOTION']);
  });

  it('held frames and silence: the picture first, then why it does not move, then the sound', () => {
    const codes = judgeClip(black, silent, { max_frozen_fraction: 0.5 }).reasons.map((r) => r.code);
    expect(codes).toEqual(['CLIP_BLANK', 'CLIP_FROZEN', 'CLIP_NO_MOTION', 'CLIP_SILENT']);
  });

  it('every list of reasons is in the declared order', () => {
    const codes = judgeClip(black, silent, { max_frozen_fraction: 0.5, duration_seconds: 3 }).reasons.map((r) => r.code);
    expect(codes).toEqual([...codes].sort((a, b) => ClipCode.options.indexOf(a) - ClipCode.options.indexOf(b)));
    expect(codes).toContain('CLIP_DURATION');
  });
});
