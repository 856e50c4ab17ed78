/**
 * Every completed clip is analysed, also when its pair is not measured (docs/metrics.md, "Clip
 * validity"), on the committed fixtures: B200's c006 failed (H200's c006 has no B200 partner), its
 * c007 holds more frames than the plan (the pair and the clip are refused: MEDIA_PLAN_MISMATCH) and
 * its c008 has no audio (the pair is refused for audio presence, the clip itself is fine). Before
 * these clips were analysed on their own, B200 counted 7 of its 9 completed clips and its energy per
 * valid clip fell back to ok records.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { homeClips, measurePairs } from '../../src/comparison/measure.js';
import { planComparison, type ComparisonPlan } from '../../src/comparison/plan.js';
import { FidelityError } from '../../src/errors.js';
import { analyseClip } from '../../src/pool/analyse-clip.js';
import { merge } from '../../src/shard/merge.js';
import { shardIndices } from '../../src/shard/spec.js';
import { Report } from '../../src/schemas/report.js';
import { reseal } from '../../../../test/e2e/helpers.js';
import { fixtureBundle, fixturePartials } from '../../../../test/shared/fixtures.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const FIX = path.join(ROOT, 'fixtures', 'runs');
const BASE = path.join(FIX, 'h200');
const CANDS = [path.join(FIX, 'b200'), path.join(FIX, 'h100')];
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-unpaired-'));
const at = (...p: string[]) => path.join(tmp, ...p);

let report: Report;
let plan: ComparisonPlan;
beforeAll(async () => {
  // compare(BASE, CANDS, { threads: 2 }), shared with the other files of the run (read only).
  report = Report.parse(JSON.parse(readFileSync(path.join((await fixtureBundle(['b200', 'h100'])).dir, 'report.json'), 'utf8')));
  plan = await planComparison(BASE, CANDS);
}, 300_000);
afterAll(async () => {
  await plan?.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe('every completed clip analysed', () => {
  it('runs[].clips counts every completed clip and energy per valid clip counts validated clips, in every run', () => {
    for (const run of report.runs) {
      expect(run.clips!.analysed, run.hardware.gpu_model).toBe(run.slots.ok);
      expect(run.power!.valid_clips_basis, run.hardware.gpu_model).toBe('valid_clips');
      expect(run.power!.valid_clips).toBe(run.clips!.valid);
    }
    const b200 = report.runs.find((r) => r.hardware.gpu_model === 'B200')!;
    // c007 (fewer frames) and c008 (no audio) differ from the plan: analysed, invalid under MEDIA_PLAN_MISMATCH.
    expect(b200.clips).toEqual({
      analysed: 9,
      valid: 7,
      invalid_by_code: { MEDIA_PLAN_MISMATCH: 2 },
      invalid: [
        { slot_id: 'measurement-r000-c007', code: 'MEDIA_PLAN_MISMATCH' },
        { slot_id: 'measurement-r000-c008', code: 'MEDIA_PLAN_MISMATCH' },
      ],
    });
    expect(b200.accounting!.valid_clips).toBe(7);
  });

  it("the pool's analysis of a clip on its own is analyseClip's, and a refused pair's clips are analysed that way", async () => {
    const ref = plan.pairs.find((r) => r.comparison === 0 && r.pair.slot_id === 'measurement-r000-c008')!;
    const measured = await measurePairs(plan, [ref], { threads: 2 });
    expect(measured.pairs[0]!.outcome!.ok).toBe(false);
    // This pair is the home of both clips (the first pair that shows each): both analysed on their own.
    expect(measured.clips.map((c) => c.sha256)).toEqual([ref.pair.baseline.media!.sha256, ref.pair.candidate.media!.sha256].sort());
    const { video, audio } = plan.baseline.plan;
    const direct = await analyseClip(await ref.candidate.mediaPath(ref.pair.slot_id), { plan: { video, audio } });
    expect(measured.clips.find((c) => c.sha256 === ref.pair.candidate.media!.sha256)!.outcome).toEqual(direct);
    expect(direct.ok && direct.clip.audio).toBeNull();
  }, 120_000);

  it('each clip has one home among the pairs, whatever the shard count', () => {
    const completed = plan.runs.reduce((n, r) => n + r.records.filter((x) => x.kind === 'measurement' && x.status === 'ok').length, 0);
    for (const n of [1, 2, 3, 7, 25]) {
      const homes = [...Array(n).keys()].flatMap((k) => homeClips(plan, shardIndices(plan.pairs.length, { index: k, count: n }).map((j) => plan.pairs[j]!)));
      expect(homes.length, `N = ${n}`).toBe(completed);
    }
  });
});

describe('shards analyse the clips of their own pairs; merge checks them', () => {
  // The partials of two shards (threads: 2), shared with the other files of the run: read here, copied before any edit.
  let partials = '';
  beforeAll(async () => {
    partials = (await fixturePartials(['b200', 'h100'], 2)).dir;
  }, 300_000);

  const refused = async (dir: string): Promise<FidelityError> => {
    const error = await merge(BASE, CANDS, { partials: [dir], out: at('refused'), remeasure: 0 }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(FidelityError);
    return error as FidelityError;
  };
  /** A copy of the two partials with shard `k`'s partial.json changed by `edit`, resealed. */
  const tampered = (name: string, k: number, edit: (doc: { clips: { sha256: string; outcome: { ok: boolean; clip?: { valid: boolean } } }[] }) => void): string => {
    cpSync(partials, at(name), { recursive: true });
    const file = at(name, String(k), 'partial.json');
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    edit(doc);
    writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`);
    reseal(at(name, String(k)));
    return at(name);
  };
  const shardWithClips = (): number => [0, 1].find((k) => JSON.parse(readFileSync(path.join(partials, String(k), 'partial.json'), 'utf8')).clips.length > 0)!;

  it("the merged report counts the clips as compare's does", async () => {
    const merged = await merge(BASE, CANDS, { partials: [partials], out: at('merged'), remeasure: 0 });
    expect(merged.report.runs.map((r) => [r.clips, r.power])).toEqual(report.runs.map((r) => [r.clips, r.power]));
  }, 300_000);

  it('refuses a partial that leaves out a clip it had to analyse on its own', async () => {
    const e = await refused(tampered('dropped', shardWithClips(), (doc) => void doc.clips.pop()));
    expect(e.problems.map((p) => p.code)).toContain('PARTIAL_PAIRS_MISMATCH');
    expect(e.problems.find((p) => p.code === 'PARTIAL_PAIRS_MISMATCH')!.message).toMatch(/clips analysed on their own .* missing [0-9a-f]{12}/);
  });

  it("refuses a clip whose verdict is not what its own figures give", async () => {
    const e = await refused(
      tampered('flipped', shardWithClips(), (doc) => {
        const c = doc.clips.find((x) => x.outcome.ok)!;
        c.outcome.clip!.valid = !c.outcome.clip!.valid;
      }),
    );
    expect(e.problems.map((p) => p.code)).toContain('PARTIAL_MEASUREMENT_INVALID');
  });
});
