/**
 * plan.json's optional clip expectations (docs/run-archive.md), validated like InferenceX's
 * _validate_expected: a wrong type or a value outside its domain refuses the plan, and the issue
 * names the field; absent fields leave the defaults.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { clipExpectationsOf } from '../../src/metrics/clip-checks.js';
import { PlanJson } from '../../src/schemas/run-archive.js';

const PLAN = JSON.parse(readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../fixtures/runs/h200/plan.json'), 'utf8')) as Record<string, unknown>;
const withVideo = (extra: Record<string, unknown>) => ({ ...PLAN, video: { ...(PLAN.video as object), ...extra } });
const withAudio = (extra: Record<string, unknown>) => ({ ...PLAN, audio: { ...(PLAN.audio as object), ...extra } });

function refusedAt(plan: unknown): string[] {
  const r = PlanJson.safeParse(plan);
  expect(r.success).toBe(false);
  return r.success ? [] : r.error.issues.map((i) => i.path.join('.'));
}

describe('plan.json clip expectations', () => {
  it('accepts every field in its domain, and the plan without them', () => {
    const plan = PlanJson.parse({
      ...withVideo({ requires_motion: false, max_frozen_fraction: 0.5, max_blank_fraction: 0, duration_seconds: 8, duration_tolerance_seconds: 0.05 }),
      audio: { ...(PLAN.audio as object), requires_sound: true },
      max_av_start_skew_seconds: 0,
      max_av_end_skew_seconds: 0.1,
    });
    expect(clipExpectationsOf(plan)).toEqual({
      fps: 12, requires_motion: false, max_frozen_fraction: 0.5, max_blank_fraction: 0, duration_seconds: 8, duration_tolerance_seconds: 0.05,
      requires_sound: true, max_av_start_skew_seconds: 0, max_av_end_skew_seconds: 0.1,
    });
    expect(clipExpectationsOf(PlanJson.parse(PLAN))).toEqual({ fps: 12 });
  });

  it('refuses a wrong type or domain, naming the field', () => {
    expect(refusedAt(withVideo({ requires_motion: 'yes' }))).toEqual(['video.requires_motion']);
    expect(refusedAt(withVideo({ requires_motion: 1 }))).toEqual(['video.requires_motion']);
    expect(refusedAt(withVideo({ max_frozen_fraction: 1.5 }))).toEqual(['video.max_frozen_fraction']);
    expect(refusedAt(withVideo({ max_blank_fraction: -0.1 }))).toEqual(['video.max_blank_fraction']);
    expect(refusedAt(withVideo({ duration_seconds: 0 }))).toEqual(['video.duration_seconds']);
    expect(refusedAt(withVideo({ duration_tolerance_seconds: '1' }))).toEqual(['video.duration_tolerance_seconds']);
    expect(refusedAt(withAudio({ requires_sound: null }))).toEqual(['audio.requires_sound']);
    expect(refusedAt({ ...PLAN, max_av_start_skew_seconds: -1 })).toEqual(['max_av_start_skew_seconds']);
    expect(refusedAt({ ...PLAN, max_av_end_skew_seconds: 'inf' })).toEqual(['max_av_end_skew_seconds']);
  });
});
