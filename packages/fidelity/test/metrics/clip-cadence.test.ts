/**
 * CLIP_CADENCE (metrics/clip-checks.ts): a missing frame is never within the tolerance, whatever
 * the stream's time base. With a time base of one frame (1/24 at 24 fps) the rounding allowance
 * max(time base, 0.001/fps) was a whole frame, so an interval of two frames passed; the allowance
 * now stays under half a frame. A clip made here with a dropped frame at both time bases.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveFfmpeg } from '../../src/media/ffmpeg.js';
import { clipReasons } from '../../src/metrics/clip-checks.js';
import { analyseClip } from '../../src/pool/analyse-clip.js';
import type { ClipVideo } from '../../src/schemas/clip.js';

const run = promisify(execFile);
const dir = mkdtempSync(path.join(os.tmpdir(), 'clip-cadence-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** 12 frames at 24 fps, the 4th dropped (its neighbours keep their timestamps) unless `whole`, in an MP4 of time base 1/`timescale`. */
async function clip(timescale: number, whole = false): Promise<string> {
  const { ffmpeg } = await resolveFfmpeg();
  const file = path.join(dir, `${timescale}-${whole ? 'whole' : 'dropped'}.mp4`);
  const select = whole ? 'null' : 'select=not(eq(n\\,3))';
  await run(ffmpeg.path, [
    '-nostdin', '-v', 'error', '-y', '-f', 'lavfi', '-i', `testsrc2=size=64x48:rate=24,trim=end_frame=12,${select}`,
    '-vsync', 'passthrough', '-c:v', 'libx264', '-preset', 'ultrafast', '-bf', '0', '-video_track_timescale', String(timescale), file,
  ]);
  return file;
}

async function cadence(file: string): Promise<{ video: ClipVideo; codes: string[] }> {
  const outcome = await analyseClip(file);
  if (!outcome.ok) throw new Error(outcome.failure.message);
  return { video: outcome.clip.video, codes: clipReasons(outcome.clip.video, null, { fps: 24 }).map((r) => r.code) };
}

describe('CLIP_CADENCE: a missing frame is always a defect', () => {
  it('fires on a dropped frame at time base 1/24 as at 1/24000', async () => {
    for (const timescale of [24, 24_000]) {
      const { video, codes } = await cadence(await clip(timescale));
      expect(video.time_base_seconds).toBeCloseTo(1 / timescale, 12);
      expect(video.max_frame_interval_seconds).toBeCloseTo(2 / 24, 6);
      expect(codes, `time base 1/${timescale}`).toContain('CLIP_CADENCE');
    }
  }, 60_000);

  it('does not fire on the whole clip at either time base', async () => {
    for (const timescale of [24, 24_000]) expect((await cadence(await clip(timescale, true))).codes).not.toContain('CLIP_CADENCE');
  }, 60_000);

  it('keeps the rounding allowance of ordinary time bases', () => {
    const figures = (tb: number, min: number, max: number): ClipVideo =>
      ({ time_base_seconds: tb, min_frame_interval_seconds: min, max_frame_interval_seconds: max, missing_timestamps: 0, nonincreasing_timestamps: 0, corrupt_frame_count: 0, geometry_stable: true, blank_fraction: null, frozen_fraction: null, mean_adjacent_frame_mae: null, start_seconds: null, end_seconds: null }) as unknown as ClipVideo;
    // Milliseconds at 30 fps: 33 and 34 ms intervals are rounding, not a defect.
    expect(clipReasons(figures(0.001, 0.033, 0.034), null, { fps: 30 }).map((r) => r.code)).toEqual([]);
    // A time base coarser than half a frame no longer stretches the allowance to a whole interval.
    expect(clipReasons(figures(1 / 24, 1 / 24, 2 / 24), null, { fps: 24 }).map((r) => r.code)).toEqual(['CLIP_CADENCE']);
    expect(clipReasons(figures(1 / 10, 0.1, 0.1), null, { fps: 24 }).map((r) => r.code)).toEqual(['CLIP_CADENCE']);
  });
});
