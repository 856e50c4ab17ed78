/**
 * One judgement of a clip against the plan, whichever command asks: the committed B200 run's c007
 * (10 frames, plan 12) and c008 (no audio stream, plan 2 channels at 32 kHz) are invalid with
 * MEDIA_PLAN_MISMATCH first, analysed (figures written) since neither costs more to decode than
 * planned; verify --clips (analyseRunClips) and compare (the pool's analysis on its own, and the
 * pair reasons) name the same clips with the same codes.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { verifyRun } from '../../src/archive/verify.js';
import { analyseRunClips } from '../../src/archive/run-clips.js';
import { measurePairs } from '../../src/comparison/measure.js';
import { planComparison } from '../../src/comparison/plan.js';
import { analyseClip } from '../../src/pool/analyse-clip.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const B200 = path.join(ROOT, 'fixtures', 'runs', 'b200');
const PLAN = { video: { width: 112, height: 64, fps: 12, frames: 12 }, audio: { sample_rate: 32000, channels: 2 } };
const media = (slot: string): string => path.join(B200, 'media', `${slot}.mp4`);

describe('a clip off the plan is invalid with MEDIA_PLAN_MISMATCH first', () => {
  it('a clip with fewer frames than planned is analysed, its figures written, and invalid', async () => {
    const out = await analyseClip(media('measurement-r000-c007'), { plan: PLAN });
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.clip.valid).toBe(false);
    expect(out.clip.reasons[0]!.code).toBe('MEDIA_PLAN_MISMATCH');
    expect(out.clip.reasons[0]!.message).toMatch(/frames 10 \(plan 12\)/);
    expect(out.clip.video.frame_count).toBe(10);
  }, 60_000);

  it('a clip without the planned audio stream is invalid (audio presence is a field the plan states)', async () => {
    const out = await analyseClip(media('measurement-r000-c008'), { plan: PLAN });
    expect(out.ok && out.clip.audio).toBeNull();
    expect(out.ok && out.clip.valid).toBe(false);
    expect(out.ok && out.clip.reasons.map((r) => r.code)[0]).toBe('MEDIA_PLAN_MISMATCH');
    expect(out.ok && out.clip.reasons[0]!.message).toMatch(/sample_rate none \(plan 32000 Hz\), channels none \(plan 2\)/);
  }, 60_000);

  it('a conforming clip carries no such reason', async () => {
    const out = await analyseClip(media('measurement-r000-c000'), { plan: PLAN });
    expect(out.ok && out.clip.reasons.map((r) => r.code)).toEqual([]);
  }, 60_000);

  it('verify --clips and compare judge the same clips invalid with the same codes', async () => {
    const checked = await verifyRun(B200);
    expect(checked.ok).toBe(true);
    if (!checked.ok) return;
    let verified;
    try {
      verified = await analyseRunClips(checked.run);
    } finally {
      await checked.run.close();
    }
    const verifyCodes = new Map(verified.clips.map((c) => [c.sha256, c.clip ? c.clip.reasons.map((r) => r.code) : [c.failure!.code]]));
    expect(verified.invalid_by_code).toEqual({ MEDIA_PLAN_MISMATCH: 2 });
    const plan = await planComparison(path.join(ROOT, 'fixtures', 'runs', 'h200'), [B200]);
    try {
      const refs = plan.pairs.filter((r) => ['measurement-r000-c007', 'measurement-r000-c008'].includes(r.pair.slot_id));
      const measured = await measurePairs(plan, refs, { threads: 2 });
      for (const m of measured.pairs) {
        expect(m.outcome!.ok).toBe(false);
        // The root cause first, the pair's own difference after it.
        if (!m.outcome!.ok) expect([m.outcome!.failure.code, m.outcome!.failure.also?.code]).toEqual(['MEDIA_PLAN_MISMATCH', expect.stringMatching(/^INCOMPATIBLE_/)]);
      }
      for (const slot of ['measurement-r000-c007', 'measurement-r000-c008']) {
        const sha = createHash('sha256').update(readFileSync(media(slot))).digest('hex');
        const alone = measured.clips.find((c) => c.sha256 === sha)!.outcome;
        expect(alone.ok && alone.clip.reasons.map((r) => r.code), slot).toEqual(verifyCodes.get(sha));
      }
    } finally {
      await plan.close();
    }
  }, 180_000);
});
