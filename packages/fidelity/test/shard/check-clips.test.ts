/**
 * merge checks every clip analysis of a measured pair against itself, merge's ffmpeg build, its pair
 * and the same sealed bytes' analysis in other pairs (shard/check-clips.ts), without re-measuring:
 * each forgery below is a real partial (`compare --shard 0/1` of the H200 baseline against B200 and
 * H100: every baseline clip in two pairs) edited and resealed as someone with write access to the
 * partials folder would, merged with `remeasure: 0`, and must be refused with
 * PARTIAL_MEASUREMENT_INVALID naming the pair and the field. The honest partial merges.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FidelityError } from '../../src/errors.js';
import { logsCorruptFrames } from '../../src/media/decoder-log.js';
import { resolveFfmpeg } from '../../src/media/ffmpeg.js';
import type { ClipAnalysis } from '../../src/schemas/clip.js';
import type { PairMeasurement } from '../../src/schemas/measurement.js';
import { merge } from '../../src/shard/merge.js';
import { partialJsonText, ShardPartial } from '../../src/shard/schema.js';
import { reseal } from '../../../../test/e2e/helpers.js';
import { fixturePartials, SHARED_EPOCH } from '../../../../test/shared/fixtures.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const FIX = path.join(ROOT, 'fixtures', 'runs');
const BASE = path.join(FIX, 'h200');
const CANDS = [path.join(FIX, 'b200'), path.join(FIX, 'h100')];
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-check-clips-'));
const at = (...p: string[]): string => path.join(tmp, ...p);
const saved = process.env.SOURCE_DATE_EPOCH;
let n = 0;
let partial = '';

beforeAll(async () => {
  process.env.SOURCE_DATE_EPOCH = SHARED_EPOCH;
  // The one partial of compare(BASE, CANDS, { shard: 0/1, threads: 2 }) at that epoch, shared with the
  // other files of the run: read here, copied before any edit.
  partial = path.join((await fixturePartials(['b200', 'h100'], 1)).dir, '0');
}, 300_000);
afterAll(() => {
  if (saved === undefined) delete process.env.SOURCE_DATE_EPOCH;
  else process.env.SOURCE_DATE_EPOCH = saved;
  rmSync(tmp, { recursive: true, force: true });
});

const doc = (): ShardPartial => ShardPartial.parse(JSON.parse(readFileSync(path.join(partial, 'partial.json'), 'utf8')));

/** A measured pair with audio whose clips are both valid: the ones the forgeries below start from. */
function measuredPair(d: ShardPartial, from = 0): { index: number; m: PairMeasurement } {
  const pair = d.pairs.find((p) => p.index >= from && p.outcome?.ok && p.outcome.measurement.audio && p.outcome.measurement.clips?.candidate.valid && p.outcome.measurement.clips.baseline.valid)!;
  return { index: pair.index, m: (pair.outcome as { measurement: PairMeasurement }).measurement };
}

/** Edits a copy of the partial as `edit` says, reseals it, merges it, and returns the refusal. */
async function forged(edit: (d: ShardPartial) => void): Promise<FidelityError> {
  const dir = at(`forged-${n++}`);
  cpSync(partial, dir, { recursive: true });
  const d = doc();
  edit(d);
  writeFileSync(path.join(dir, 'partial.json'), partialJsonText(d));
  reseal(dir);
  const error = await merge(BASE, CANDS, { partials: [dir], out: at(`out-${n++}`), remeasure: 0, threads: 2 }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FidelityError);
  return error as FidelityError;
}

/** The refusal's problems about `index`'s pair, all PARTIAL_MEASUREMENT_INVALID, one of them matching `field`. */
function expectRefused(error: FidelityError, index: number, field: RegExp): void {
  expect(error.code).toBe('PARTIAL_MEASUREMENT_INVALID');
  const about = error.problems.filter((p) => p.message.includes(`: pair ${index} (`));
  expect(about.length, JSON.stringify(error.problems)).toBeGreaterThan(0);
  for (const p of error.problems) expect(p.code).toBe('PARTIAL_MEASUREMENT_INVALID');
  expect(about.map((p) => p.message).join('\n')).toMatch(field);
}

describe('merge checks each clip analysis', () => {
  it('merges the honest partial (every analysis of the fixtures passes the checks)', async () => {
    const result = await merge(BASE, CANDS, { partials: [partial], out: at('honest'), remeasure: 0, threads: 2 });
    expect(result).toBeTruthy();
  }, 120_000);

  it('refuses a measured pair whose clips field is deleted', async () => {
    const { index } = measuredPair(doc());
    const e = await forged((d) => {
      delete (d.pairs[index]!.outcome as { measurement: PairMeasurement }).measurement.clips;
    });
    expectRefused(e, index, /clips is missing, though the pair was measured/);
  }, 120_000);

  it('refuses zero fractions beside blank and frozen runs that cover every frame', async () => {
    const { index } = measuredPair(doc());
    const e = await forged((d) => {
      const v = (d.pairs[index]!.outcome as { measurement: PairMeasurement }).measurement.clips!.candidate.video;
      v.blank_runs = [[0, v.frame_count - 1]];
      v.frozen_runs = [[0, v.frame_count - 1]];
      v.blank_fraction = v.black_fraction = v.white_fraction = v.frozen_fraction = v.duplicate_fraction = 0;
    });
    expectRefused(e, index, /clips\.candidate\.video\.blank_fraction is 0, but its blank_runs cover 1 of the frames/);
    expectRefused(e, index, /clips\.candidate\.video\.frozen_fraction is 0, but its frozen_runs cover 1/);
  }, 120_000);

  it('refuses a corrupt-frame count null (with its reason gone) where merge\'s build counts them, or a count where it cannot', async () => {
    const { ffmpeg } = await resolveFfmpeg();
    const counts = logsCorruptFrames(ffmpeg.version);
    const { index } = measuredPair(doc());
    const e = await forged((d) => {
      const clip = (d.pairs[index]!.outcome as { measurement: PairMeasurement }).measurement.clips!.candidate;
      clip.video.corrupt_frame_count = counts ? null : 0;
    });
    expectRefused(e, index, counts ? /clips\.candidate\.video\.corrupt_frame_count is null \(not counted\), but this ffmpeg build reports corrupt frames/ : /corrupt_frame_count is 0, but this ffmpeg build cannot report/);
  }, 120_000);

  it('refuses a candidate clip without audio while the pair has audio', async () => {
    const { index } = measuredPair(doc());
    const e = await forged((d) => {
      (d.pairs[index]!.outcome as { measurement: PairMeasurement }).measurement.clips!.candidate.audio = null;
    });
    expectRefused(e, index, /clips\.candidate\.audio is null \(no audio stream\), but the pair's audio is measured/);
  }, 120_000);

  it('refuses one file analysed differently in two pairs (the baseline clip of a slot, against B200 and against H100)', async () => {
    const d0 = doc();
    const first = measuredPair(d0);
    // The same baseline slot in the H100 comparison: the same sealed bytes.
    const slot = d0.pairs[first.index]!.pair.split('/')[1]!;
    const other = d0.pairs.find((p) => p.index > first.index && p.pair.endsWith(`/${slot}`) && p.outcome?.ok)!;
    expect(other).toBeTruthy();
    const e = await forged((d) => {
      const audio = (d.pairs[other.index]!.outcome as { measurement: PairMeasurement }).measurement.clips!.baseline.audio!;
      audio.dc_offset_channels[0] = (audio.dc_offset_channels[0] ?? 0) + 1e-6;
    });
    expectRefused(e, other.index, new RegExp(`clips\\.baseline\\.audio\\.dc_offset_channels\\[0\\] differs from the analysis of the same sealed bytes \\(sha256 [0-9a-f]{12}…\\) in .*pair ${first.index} \\(`));
  }, 120_000);

  it('refuses a clip analysed on its own whose figures contradict themselves', async () => {
    const alone = doc().clips.findIndex((c) => c.outcome.ok);
    expect(alone, 'the fixtures leave a clip no measured pair analyses (B200 has a failed request)').toBeGreaterThanOrEqual(0);
    const e = await forged((d) => {
      const clip = (d.clips[alone]!.outcome as { clip: ClipAnalysis }).clip;
      clip.video.blank_runs = [[0, clip.video.frame_count - 1]];
      clip.video.blank_fraction = 0;
    });
    expect(e.code).toBe('PARTIAL_MEASUREMENT_INVALID');
    expect(e.problems.map((p) => p.message).join('\n')).toMatch(/analysed on its own: clip\.video\.blank_fraction is 0, but its blank_runs cover 1 of the frames/);
  }, 120_000);
});
