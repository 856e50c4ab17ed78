import { describe, expect, it } from 'vitest';
import type { MediaEntry } from '../../src/archive/types.js';
import { pairSlots, type PairingInput } from '../../src/pairing/slots.js';
import { measurementSlotId, type PlanJson, type RunRecord } from '../../src/schemas/run-archive.js';

const plan: PlanJson = {
  plan_id: 'p1',
  model: { id: 'org/model', revision: 'r1' },
  video: { width: 128, height: 72, fps: 12, frames: 12 },
  audio: { sample_rate: 32000, channels: 2 },
  warmup_runs: 1,
  repetitions: 2,
  cases: ['a', 'b', 'c'].map((id, i) => ({ case_id: id, prompt: `prompt ${id}`, seed: 11 + i })),
};

/** A run whose measurement slots are ok except those named in `failed`; `unsealed` slots are ok without media. */
function run(failed: string[] = [], unsealed: string[] = []): PairingInput {
  const records: RunRecord[] = [
    { slot_id: 'warmup-000', kind: 'warmup', case_id: 'a', prompt: 'prompt a', seed: 11, repetition: 0, status: 'ok', media: 'media/warmup-000.mp4', latency_s: 1 },
  ];
  const media = new Map<string, MediaEntry>();
  media.set('warmup-000', { slot_id: 'warmup-000', path: 'media/warmup-000.mp4', size: 1, sha256: 'f'.repeat(64) });
  for (let r = 0; r < plan.repetitions; r++) {
    plan.cases.forEach((c, i) => {
      const slot = measurementSlotId(r, i);
      const bad = failed.includes(slot);
      records.push({ slot_id: slot, kind: 'measurement', case_id: c.case_id, prompt: c.prompt, seed: c.seed, repetition: r, status: bad ? 'failed' : 'ok', error: bad ? `boom ${slot}` : null, media: bad ? null : `media/${slot}.mp4`, latency_s: bad ? null : 1 });
      if (!bad && !unsealed.includes(slot)) media.set(slot, { slot_id: slot, path: `media/${slot}.mp4`, size: 1, sha256: `${r}${i}`.padEnd(64, '0') });
    });
  }
  return { plan, records, media };
}

describe('pairSlots', () => {
  it('pairs every measurement slot (repetitions x cases), in plan order, and never a warmup', () => {
    const pairs = pairSlots(run(), run());
    expect(pairs.map((p) => p.slot_id)).toEqual([
      'measurement-r000-c000',
      'measurement-r000-c001',
      'measurement-r000-c002',
      'measurement-r001-c000',
      'measurement-r001-c001',
      'measurement-r001-c002',
    ]);
    expect(pairs.map((p) => [p.case_id, p.seed, p.repetition])).toEqual([
      ['a', 11, 0],
      ['b', 12, 0],
      ['c', 13, 0],
      ['a', 11, 1],
      ['b', 12, 1],
      ['c', 13, 1],
    ]);
    expect(pairs.every((p) => p.reasons.length === 0 && p.baseline.media && p.candidate.media)).toBe(true);
  });

  it('keeps each failure with its side and error text', () => {
    const base = run(['measurement-r000-c000', 'measurement-r000-c002']);
    const cand = run(['measurement-r000-c001', 'measurement-r000-c002']);
    const [p0, p1, p2, p3] = pairSlots(base, cand);
    expect(p0!.reasons).toEqual([{ code: 'FAILED_BASELINE', message: 'boom measurement-r000-c000', side: 'baseline' }]);
    expect(p1!.reasons).toEqual([{ code: 'FAILED_CANDIDATE', message: 'boom measurement-r000-c001', side: 'candidate' }]);
    expect(p2!.reasons.map((r) => [r.code, r.side])).toEqual([['FAILED_BOTH', 'both']]);
    expect(p2!.reasons[0]!.message).toContain('boom measurement-r000-c002');
    expect(p3!.reasons).toEqual([]);
    // The side that did succeed keeps its media, so the bundle can still show it.
    expect(p0!.candidate.media?.path).toBe('media/measurement-r000-c000.mp4');
    expect(p0!.baseline).toEqual({ status: 'failed', error: 'boom measurement-r000-c000', media: null });
  });

  it('reports an ok record without sealed media as MEDIA_MISSING on its side', () => {
    const [p0] = pairSlots(run(), run([], ['measurement-r000-c000']));
    expect(p0!.reasons.map((r) => [r.code, r.side])).toEqual([['MEDIA_MISSING', 'candidate']]);
  });
});
