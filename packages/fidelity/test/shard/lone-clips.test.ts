/**
 * merge re-derives the clips a partial analysed on their own (partial.json `clips`) as it re-measures
 * pairs: with `remeasure: 'all'` every one, otherwise a sample of each partial's; a partial that gives
 * such a clip another clip's analysis, or claims DECODE_TIMEOUT for a clip that decodes, is refused
 * with PARTIAL_MEASUREMENT_MISMATCH. The fixtures' H200 clip of c006 is one: B200's request c006
 * failed, so pairing refuses its pair before measuring and the shard analyses the clip on its own.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FidelityError } from '../../src/errors.js';
import type { ClipAnalysis } from '../../src/schemas/clip.js';
import { merge } from '../../src/shard/merge.js';
import { partialJsonText, ShardPartial } from '../../src/shard/schema.js';
import { reseal } from '../../../../test/e2e/helpers.js';
import { fixturePartials, SHARED_EPOCH } from '../../../../test/shared/fixtures.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const FIX = path.join(ROOT, 'fixtures', 'runs');
const BASE = path.join(FIX, 'h200');
const CANDS = [path.join(FIX, 'b200')];
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-lone-clips-'));
const at = (...p: string[]): string => path.join(tmp, ...p);
const saved = process.env.SOURCE_DATE_EPOCH;
let n = 0;
let partial = '';

beforeAll(async () => {
  process.env.SOURCE_DATE_EPOCH = SHARED_EPOCH;
  partial = path.join((await fixturePartials(['b200'], 1)).dir, '0');
}, 300_000);
afterAll(() => {
  if (saved === undefined) delete process.env.SOURCE_DATE_EPOCH;
  else process.env.SOURCE_DATE_EPOCH = saved;
  rmSync(tmp, { recursive: true, force: true });
});

const doc = (): ShardPartial => ShardPartial.parse(JSON.parse(readFileSync(path.join(partial, 'partial.json'), 'utf8')));

/** A copy of the partial with `edit` applied to partial.json, resealed as a forger would. */
function forged(edit: (d: ShardPartial) => void): string {
  const dir = at(`forged-${n++}`);
  cpSync(partial, dir, { recursive: true });
  const d = doc();
  edit(d);
  writeFileSync(path.join(dir, 'partial.json'), partialJsonText(d));
  reseal(dir);
  return dir;
}

/** The sealed SHA-256 of H200's c006 clip, whose pair (against B200's failed request) pairing refuses. */
const C006 = /^([0-9a-f]{64}) {2}media\/measurement-r000-c006\.mp4$/m.exec(readFileSync(path.join(BASE, 'SHA256SUMS'), 'utf8'))![1]!;

/** Where the partial holds H200's c006 clip, analysed on its own, and a valid analysis of another clip of a measured pair. */
function loneAndOther(d: ShardPartial): { lone: number; other: ClipAnalysis } {
  const lone = d.clips.findIndex((c) => c.sha256 === C006 && c.outcome.ok);
  expect(lone).toBeGreaterThanOrEqual(0);
  const pair = d.pairs.find((p) => p.outcome?.ok && p.outcome.measurement.clips && p.outcome.measurement.clips.baseline.valid)!;
  const clips = (pair.outcome as { measurement: { clips: { baseline: ClipAnalysis } } }).measurement.clips;
  return { lone, other: structuredClone(clips.baseline) };
}

async function mergeOf(dir: string, remeasure: number | 'all'): Promise<FidelityError | null> {
  return merge(BASE, CANDS, { partials: [dir], out: at(`out-${n++}`), remeasure, threads: 2 }).then(
    () => null,
    (e: unknown) => e as FidelityError,
  );
}

describe('merge re-derives the clips analysed on their own', () => {
  it("the fixtures leave one, H200's c006, whose pair pairing refused", () => {
    const d = doc();
    expect(d.clips.find((c) => c.sha256 === C006)?.outcome.ok).toBe(true);
    expect(d.pairs.find((p) => p.pair.endsWith('/measurement-r000-c006'))?.outcome).toBeNull();
  });

  it("a clip given another clip's analysis is PARTIAL_MEASUREMENT_MISMATCH under remeasure 'all'", async () => {
    const dir = forged((d) => {
      const { lone, other } = loneAndOther(d);
      d.clips[lone] = { sha256: d.clips[lone]!.sha256, outcome: { ok: true, clip: other } };
    });
    const e = await mergeOf(dir, 'all');
    expect(e, 'merged').toBeInstanceOf(FidelityError);
    expect(e!.code).toBe('PARTIAL_MEASUREMENT_MISMATCH');
    expect(e!.problems.map((p) => p.message).join('\n')).toMatch(/the clip [0-9a-f]{12}… analysed again by merge differs/);
    // Self-consistent: without re-measuring, nothing else could tell.
    expect(await mergeOf(dir, 0)).toBeNull();
  }, 240_000);

  it('a DECODE_TIMEOUT claimed for a clip that decodes is PARTIAL_MEASUREMENT_MISMATCH', async () => {
    const dir = forged((d) => {
      const { lone } = loneAndOther(d);
      d.clips[lone] = { sha256: d.clips[lone]!.sha256, outcome: { ok: false, failure: { code: 'DECODE_TIMEOUT', message: 'ffmpeg (clip) ran past 600 s' } } };
    });
    const e = await mergeOf(dir, 'all');
    expect(e).toBeInstanceOf(FidelityError);
    expect(e!.code).toBe('PARTIAL_MEASUREMENT_MISMATCH');
    expect(e!.problems.map((p) => p.message).join('\n')).toMatch(/the partial has failure DECODE_TIMEOUT; merge found \{/);
  }, 240_000);
});

describe("a shard's decode limit", () => {
  it('travels in its partial, bounded as the command line bounds it', () => {
    const d = doc();
    expect(d.decode_timeout_ms).toBeNull();
    for (const bad of [0, 1.5, 3e9, -1]) expect(ShardPartial.safeParse({ ...d, decode_timeout_ms: bad }).success, String(bad)).toBe(false);
    expect(ShardPartial.safeParse({ ...d, decode_timeout_ms: 2_147_483_647 }).success).toBe(true);
  });
});
