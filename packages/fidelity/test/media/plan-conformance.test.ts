/**
 * Media against the plan (media/plan-conformance.ts): each field compared as
 * docs/media.md says (fps from the timestamps, within a tick and FPS_SLACK),
 * the reason's side, fields and values, and through measurePair on real
 * clips: media that break the plan are refused (MEDIA_PLAN_MISMATCH) before
 * any frame, after the pair checks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AUDIO_SLACK_SECONDS,
  checkPlanConformance,
  describeFieldMismatches,
  describePlanSpec,
  FPS_SLACK,
  planFieldMismatches,
  planFpsText,
  planValueText,
  timestampFrameRate,
  type MediaPlanSpec,
} from '../../src/media/plan-conformance.js';
import type { AudioProbe, MediaProbe, VideoProbe } from '../../src/media/probe.js';
import { measurePair } from '../../src/pool/measure-pair.js';
import { MeasureOutcome } from '../../src/schemas/measurement.js';
import { ClipFactory, ffmpegChildren } from './clips.js';

const PLAN: MediaPlanSpec = { video: { width: 1344, height: 768, fps: 24, frames: 192 }, audio: { sample_rate: 32000, channels: 2 } };

/** A probe with `frames` timestamps `step` ticks apart in `timeBase`. */
function probe(frames: number, step: number, timeBase: { num: number; den: number }, audio: Partial<AudioProbe> | null = {}, size = { width: 1344, height: 768 }): MediaProbe {
  const video = { ...size, pts: Array.from({ length: frames }, (_, i) => Math.round(i * step)), frames, timeBase } as unknown as VideoProbe;
  return { video, audio: audio === null ? null : ({ sampleRate: 32000, channels: 2, ...audio } as AudioProbe) } as MediaProbe;
}

describe('planFieldMismatches', () => {
  it('finds nothing in media as planned (24 fps in MP4s 12288 Hz time base)', () => {
    expect(planFieldMismatches(probe(192, 512, { num: 1, den: 12288 }), PLAN)).toEqual([]);
    expect(timestampFrameRate(probe(192, 512, { num: 1, den: 12288 }).video!)).toEqual({ num: 24, den: 1 });
  });

  it('names every field that differs, with the plan value and the media value', () => {
    const off = probe(96, 512, { num: 1, den: 12288 }, { sampleRate: 48000 }, { width: 640, height: 360 });
    expect(planFieldMismatches(off, PLAN)).toEqual([
      { field: 'width', plan: 1344, media: 640 },
      { field: 'height', plan: 768, media: 360 },
      { field: 'frames', plan: 192, media: 96 },
      { field: 'sample_rate', plan: 32000, media: 48000 },
    ]);
    // No audio stream at all: both audio fields, media null.
    expect(planFieldMismatches(probe(192, 512, { num: 1, den: 12288 }, null), PLAN)).toEqual([
      { field: 'sample_rate', plan: 32000, media: null },
      { field: 'channels', plan: 2, media: null },
    ]);
  });

  it('holds the audio to the plan\'s duration (frames / fps) plus AUDIO_SLACK_SECONDS, longer only', () => {
    const timed = (listedSeconds: number | null) => probe(192, 512, { num: 1, den: 12288 }, { listedSeconds });
    // 8 s planned: priming and padding within the slack, a shorter track (the clip checks' CLIP_AV_SKEW), no length known.
    for (const ok of [8, 8 + AUDIO_SLACK_SECONDS, 3, null]) expect(planFieldMismatches(timed(ok), PLAN), String(ok)).toEqual([]);
    expect(planFieldMismatches(timed(7200), PLAN)).toEqual([{ field: 'audio_duration', plan: 8, media: 7200 }]);
    expect(describeFieldMismatches(planFieldMismatches(timed(7200.0004), PLAN))).toBe('audio_duration 7200 s (plan 8 s + 1 s at most)');
  });

  it('compares fps as the timestamps give it: 24000/1001 is not 24, but is 23.976; within a tick on a coarse time base', () => {
    const ntsc = probe(192, 1001, { num: 1, den: 24000 });
    expect(timestampFrameRate(ntsc.video!)).toEqual({ num: 24000, den: 1001 });
    expect(planFieldMismatches(ntsc, PLAN)).toEqual([{ field: 'fps', plan: 24, media: 24000 / 1001 }]);
    expect(planFieldMismatches(ntsc, { ...PLAN, video: { ...PLAN.video, fps: 23.976 } })).toEqual([]);
    // 23.98 is 0.004 away: more than FPS_SLACK.
    expect(FPS_SLACK).toBeLessThan(0.004);
    expect(planFieldMismatches(ntsc, { ...PLAN, video: { ...PLAN.video, fps: 23.98 } }).map((x) => x.field)).toEqual(['fps']);
    // Millisecond timestamps (41.67 ms rounded): 12 frames span 458 ms, 24.02 fps, within one tick of 24.
    const ms = probe(12, 1000 / 24, { num: 1, den: 1000 });
    expect(ms.video!.pts.at(-1)).toBe(458);
    expect(planFieldMismatches(ms, { ...PLAN, video: { ...PLAN.video, frames: 12 } })).toEqual([]);
    // 25 fps is not 24 on any time base.
    expect(planFieldMismatches(probe(12, 40, { num: 1, den: 1000 }), { ...PLAN, video: { ...PLAN.video, frames: 12 } })).toEqual([{ field: 'fps', plan: 24, media: 25 }]);
  });

  it('a single frame has no rate: fps is not compared, frames is', () => {
    expect(timestampFrameRate(probe(1, 512, { num: 1, den: 12288 }).video!)).toBeNull();
    expect(planFieldMismatches(probe(1, 512, { num: 1, den: 12288 }), PLAN)).toEqual([{ field: 'frames', plan: 192, media: 1 }]);
  });
});

describe('checkPlanConformance', () => {
  const good = probe(192, 512, { num: 1, den: 12288 });
  it('is MEDIA_PLAN_MISMATCH naming the side, each field, the plan value and the media value', () => {
    const short = probe(191, 512, { num: 1, den: 12288 });
    expect(checkPlanConformance(good, good, PLAN)).toBeNull();
    const f = checkPlanConformance(good, short, PLAN)!;
    expect(f).toMatchObject({ code: 'MEDIA_PLAN_MISMATCH', side: 'candidate', plan_mismatches: [{ side: 'candidate', field: 'frames', plan: 192, media: 191 }] });
    expect(f.message).toBe("The candidate's media differ from the plan: frames 191 (plan 192)");
    const both = checkPlanConformance(probe(192, 512, { num: 1, den: 12288 }, null), short, PLAN)!;
    expect(both.side).toBe('both');
    expect(both.plan_mismatches!.map((x) => `${x.side} ${x.field}`)).toEqual(['baseline sample_rate', 'baseline channels', 'candidate frames']);
    expect(both.message).toBe("Both sides' media differ from the plan: baseline sample_rate none (plan 32000 Hz), channels none (plan 2); candidate frames 191 (plan 192)");
    // Both alike (clips made the same way): the fields once.
    expect(checkPlanConformance(short, short, PLAN)!.message).toBe("Both sides' media differ alike from the plan: frames 191 (plan 192)");
  });
});

describe('the frame rate as every text shows it', () => {
  it('six decimals, but never a nonzero rate as 0: a plan of fps 1e-300 reads 1e-300 in the spec line and in the field', () => {
    expect(planFpsText(24)).toBe('24');
    expect(planFpsText(24000 / 1001)).toBe('23.976024');
    expect(planFpsText(1e-300)).toBe('1e-300');
    expect(planFpsText(1.23456789e-7)).toBe('1.23457e-7');
    expect(planFpsText(0.0000004)).toBe('4e-7');
    expect(planFpsText(0.000001)).toBe('0.000001');
    expect(planFpsText(0)).toBe('0');
    expect(planFpsText(1e300)).toBe('1e+300');
    const plan: MediaPlanSpec = { ...PLAN, video: { ...PLAN.video, fps: 1e-300 } };
    const spec = describePlanSpec(plan);
    const fields = describeFieldMismatches(planFieldMismatches(probe(192, 512, { num: 1, den: 12288 }), plan));
    expect(spec).toBe('1344x768, 1e-300 fps, 192 frames; 32000 Hz, 2 channels');
    expect(fields).toBe('fps 24 fps (plan 1e-300 fps)');
    expect(fields).not.toMatch(/plan 0 fps/);
    expect(planValueText('fps', 1e-300)).toBe('1e-300 fps');
  });
});

describe('measurePair with the plan (real clips)', () => {
  const clips = new ClipFactory();
  let a: string;
  let b: string;
  let shorter: string;
  const asMade: MediaPlanSpec = { video: { width: 128, height: 72, fps: 24, frames: 24 }, audio: { sample_rate: 32000, channels: 2 } };
  beforeAll(async () => {
    a = await clips.make({}, 'a');
    b = await clips.make({ crf: 30 }, 'b');
    shorter = await clips.make({ frames: 20 }, 'shorter');
  }, 60_000);
  afterAll(() => clips.remove());

  it('measures media as planned', async () => {
    const outcome = await measurePair(a, b, { plan: asMade });
    expect(outcome.ok).toBe(true);
  });

  it('refuses media that agree with each other but break the plan, before any frame, naming both sides', async () => {
    const progress: number[] = [];
    const outcome = await measurePair(a, b, { plan: PLAN, onProgress: (p) => progress.push(p.framesDone) });
    expect(MeasureOutcome.parse(outcome)).toEqual(outcome);
    expect(outcome).toMatchObject({ ok: false, failure: { code: 'MEDIA_PLAN_MISMATCH', side: 'both' } });
    if (outcome.ok) return;
    expect(outcome.failure.plan_mismatches).toEqual(
      (['baseline', 'candidate'] as const).flatMap((side) => [
        { side, field: 'width', plan: 1344, media: 128 },
        { side, field: 'height', plan: 768, media: 72 },
        { side, field: 'frames', plan: 192, media: 24 },
      ]),
    );
    expect(progress).toEqual([]);
    expect(await ffmpegChildren()).toEqual([]);
    // One field is enough: a plan of 25 fps.
    const fps = await measurePair(a, b, { plan: { ...asMade, video: { ...asMade.video, fps: 25 } } });
    expect(fps).toMatchObject({ ok: false, failure: { code: 'MEDIA_PLAN_MISMATCH', plan_mismatches: [{ side: 'baseline', field: 'fps', plan: 25, media: 24 }, { side: 'candidate', field: 'fps' }] } });
  });

  it('names media off the plan first (the root cause), the pair difference they explain after it', async () => {
    const outcome = await measurePair(a, shorter, { plan: asMade });
    expect(outcome).toMatchObject({ ok: false, failure: { code: 'MEDIA_PLAN_MISMATCH', side: 'candidate', also: { code: 'INCOMPATIBLE_FRAME_COUNT' } } });
  });

  it('refuses a malformed plan option', async () => {
    await expect(measurePair(a, b, { plan: { video: { width: 128 } } as never })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
