/**
 * Both languages say the same facts: every figure in an English clip or reason sentence is in its
 * Chinese sentence, for every reason code of the catalogue and every clip code, and the clip
 * sentences read as prose with frame numbers and times ("frames 0–35 show one picture").
 */
import { describe, expect, it } from 'vitest';
import { REASONS } from '../../src/errors.js';
import { judgeClip } from '../../src/metrics/clip-checks.js';
import { clipSentence } from '../../src/pages/clip-words.js';
import { messages } from '../../src/pages/i18n.js';
import { reasonText } from '../../src/pages/reasons.js';
import { ClipCode, type ClipAudio, type ClipVideo } from '../../src/schemas/clip.js';

const en = messages('en');
const zh = messages('zh');

/** The numbers of a sentence, as a sorted list: the facts both languages must carry. */
const numbers = (text: string): string[] => (text.match(/\d+(?:\.\d+)?(?:e-?\d+)?/g) ?? []).sort();

/** A 36-frame clip, black and still throughout, whose stereo audio is silent and jumps 256 ms at sample 16384 (0.51 s at 32 kHz). */
const video: ClipVideo = {
  frame_count: 36, width: 112, height: 64,
  blank_fraction: 1, black_fraction: 1, white_fraction: 0,
  duplicate_fraction: 1, mean_adjacent_frame_mae: 0, frozen_fraction: 1,
  min_frame_interval_seconds: 1 / 24, max_frame_interval_seconds: 1 / 12, missing_timestamps: 1, nonincreasing_timestamps: 0,
  corrupt_frame_count: 2, geometry_stable: false, time_base_seconds: 1 / 12288, start_seconds: 0, end_seconds: 1.5,
  blank_runs: [[0, 35]], frozen_runs: [[0, 35]],
};
const audio: ClipAudio = {
  sample_rate: 32000, channel_count: 2, sample_count: 48000,
  rms_channels: [0, 0], rms_dbfs_channels: [null, null], peak_channels: [0, 0], dc_offset_channels: [0, 0],
  clipping_fraction_channels: [0, 0], silence_fraction_channels: [1, 1], silent_channels: [0, 1], identical_channel_pairs: [[0, 1]],
  max_timestamp_gap_seconds: 0.256, max_timestamp_gap_at_sample: 16384, missing_timestamps: 0, nonincreasing_timestamps: 0,
  corrupt_frame_count: 0, time_base_seconds: 1 / 32000, start_seconds: 0.2, end_seconds: 1.8, silent_runs: [[0, 47999]],
};
const clip = judgeClip(video, audio, { fps: 24, max_frozen_fraction: 0.5, duration_seconds: 3, max_av_start_skew_seconds: 0.05 });

describe('clip sentences', () => {
  it('the clip fails every check the fixture aims at (the walk below is not empty)', () => {
    expect(clip.reasons.map((r) => r.code).sort()).toEqual(
      ['CLIP_AUDIO_GAP', 'CLIP_AV_SKEW', 'CLIP_BLANK', 'CLIP_CADENCE', 'CLIP_CORRUPT_FRAMES', 'CLIP_DURATION', 'CLIP_FROZEN', 'CLIP_GEOMETRY_CHANGED', 'CLIP_NO_MOTION', 'CLIP_SILENT', 'CLIP_TIMESTAMPS'].sort(),
    );
  });

  it('read as prose, with where it happens as frame numbers and times', () => {
    expect(clipSentence('CLIP_BLANK', clip, en)).toBe('the picture is black in every frame (36 of 36)');
    expect(clipSentence('CLIP_NO_MOTION', clip, en)).toMatch(/^frames 0–35 show one picture \(/);
    expect(clipSentence('CLIP_SILENT', clip, en)).toMatch(/^the sound is silent on both channels \(RMS 0 and 0;/);
    expect(clipSentence('CLIP_AUDIO_GAP', clip, en)).toBe('the audio jumps 256 ms at 0.512 s (sample 16384)');
    for (const code of ['CLIP_BLANK', 'CLIP_NO_MOTION', 'CLIP_SILENT', 'CLIP_AUDIO_GAP']) expect(clipSentence(code, clip, en)).not.toMatch(/e-\d|1\/1024/);
  });

  it.each(ClipCode.options)('%s: the Chinese sentence carries every figure of the English one', (code) => {
    const english = clipSentence(code, clip, en);
    const chinese = clipSentence(code, clip, zh);
    expect(chinese).not.toBe(english);
    expect(numbers(chinese)).toEqual(numbers(english));
  });
});

describe('reason sentences', () => {
  // A message with the shapes the tool writes: sides, figures with units, a time and a sample.
  const message = 'baseline 12, candidate 10 (audio jumps 256 ms at 0.51 s, sample 16384; 3 of 36 frames)';
  const sides = 'frame count differs: baseline 12, candidate 10';
  it.each(Object.keys(REASONS))('%s: the Chinese sentence carries every figure of the English one', (code) => {
    for (const text of [message, sides]) {
      const english = reasonText(code, text, en);
      const chinese = reasonText(code, text, zh);
      for (const n of numbers(english)) expect(numbers(chinese), text).toContain(n);
    }
  });
});
