/**
 * merge re-derives each clip's verdict from its figures (shard/check-measurement.ts clipProblems):
 * a partial that calls a black, still clip valid, or drops a reason, is caught; an honest one is not.
 */
import { describe, expect, it } from 'vitest';
import { judgeClip } from '../../src/metrics/clip-checks.js';
import { clipProblems } from '../../src/shard/check-measurement.js';
import type { PairMeasurement } from '../../src/schemas/measurement.js';
import type { ClipVideo } from '../../src/schemas/clip.js';

const video = (mae: number, black: number): ClipVideo => ({
  frame_count: 12, width: 112, height: 64,
  blank_fraction: black, black_fraction: black, white_fraction: 0,
  duplicate_fraction: mae === 0 ? 1 : 0, mean_adjacent_frame_mae: mae, frozen_fraction: mae === 0 ? 1 : 0,
  min_frame_interval_seconds: 1 / 12, max_frame_interval_seconds: 1 / 12, missing_timestamps: 0, nonincreasing_timestamps: 0,
  corrupt_frame_count: null, geometry_stable: true, time_base_seconds: 1 / 12288, start_seconds: 0, end_seconds: 1,
  blank_runs: black === 1 ? [[0, 11]] : [], frozen_runs: mae === 0 ? [[0, 11]] : [],
});

/** A build that cannot report corrupt frames: the clips below leave the count null. */
const BUILD = { countsCorrupt: false };

const measurement = (clips: PairMeasurement['clips']): PairMeasurement => ({ video: { frames: 12 } as PairMeasurement['video'], clips });

describe('clipProblems', () => {
  const good = judgeClip(video(0.01, 0), null, { fps: 12 });
  const black = judgeClip(video(0, 1), null, { fps: 12 });

  it('accepts clips whose verdicts follow from their figures', () => {
    expect(clipProblems(measurement({ baseline: good, candidate: black }), { fps: 12 }, BUILD)).toEqual([]);
  });

  it('refuses a black, still clip called valid, naming the side', () => {
    const forged = { ...black, valid: true, reasons: [] };
    const problems = clipProblems(measurement({ baseline: good, candidate: forged }), { fps: 12 }, BUILD);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^clips\.candidate says .*CLIP_NO_MOTION/);
  });

  it('judges under the plan: an opt-out the plan does not state is not taken', () => {
    expect(clipProblems(measurement({ baseline: judgeClip(video(0, 0), null, { requires_motion: false }), candidate: good }), { fps: 12 }, BUILD)).toHaveLength(1);
  });

  it('refuses a clip analysis of another frame count', () => {
    expect(clipProblems(measurement({ baseline: { ...good, video: { ...good.video, frame_count: 10 } }, candidate: good }), { fps: 12 }, BUILD)[0]).toMatch(/frame_count is 10/);
  });
});
