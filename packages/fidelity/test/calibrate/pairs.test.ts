/** Counting same-hardware pairs (docs/calibration.md): repetitions, k runs -> k(k-1)/2 run pairs, exclusions. */
import { describe, expect, it } from 'vitest';
import type { VerifiedRun } from '../../src/archive/types.js';
import { noisePairs } from '../../src/calibrate/pairs.js';
import { measurementSlotId } from '../../src/schemas/run-archive.js';

interface Fake {
  id: number;
  attempt?: number;
  gpu?: string;
  gpus?: number;
  cases?: number;
  reps?: number;
  failed?: string[];
}

function run(f: Fake): VerifiedRun {
  const cases = f.cases ?? 3;
  const reps = f.reps ?? 1;
  const records: { kind: string; slot_id: string; status: string }[] = [{ kind: 'warmup', slot_id: 'warmup-000', status: 'ok' }];
  const media = new Map<string, unknown>();
  for (let r = 0; r < reps; r++) {
    for (let c = 0; c < cases; c++) {
      const slot = measurementSlotId(r, c);
      const failed = f.failed?.includes(slot) ?? false;
      records.push({ kind: 'measurement', slot_id: slot, status: failed ? 'failed' : 'ok' });
      if (!failed) media.set(slot, { slot_id: slot, path: `media/${slot}.mp4`, size: 1, sha256: 'x' });
    }
  }
  return {
    ci: { run_id: f.id, run_attempt: f.attempt ?? 1, hardware: { gpu_model: f.gpu ?? 'H200', gpus_allocated: 8, gpus_participating: f.gpus ?? 2 } },
    plan: { repetitions: reps, cases: Array.from({ length: cases }, (_, i) => ({ case_id: `case-${i}`, prompt: 'p', seed: i })) },
    records,
    media,
  } as unknown as VerifiedRun;
}

describe('same-hardware pairs', () => {
  it('inside one run: repetition 0 against every repetition r >= 1, per case', () => {
    const pairs = noisePairs([run({ id: 1, cases: 4, reps: 3 })]);
    expect(pairs).toHaveLength(4 * 2);
    expect(pairs.every((p) => p.kind === 'repetition' && p.baseline.slot_id.startsWith('measurement-r000-'))).toBe(true);
    expect(pairs.map((p) => p.candidate.slot_id)).toContain('measurement-r002-c003');
    expect(new Set(pairs.map((p) => p.id)).size).toBe(pairs.length);
  });

  it('k runs of one class give k(k-1)/2 run pairs, slot by slot, the older run as baseline', () => {
    for (const k of [2, 3, 4]) {
      const runs = Array.from({ length: k }, (_, i) => run({ id: 100 - i, cases: 5 }));
      const pairs = noisePairs(runs);
      expect(pairs).toHaveLength(((k * (k - 1)) / 2) * 5);
      for (const p of pairs) expect(p.baseline.run.ci.run_id).toBeLessThan(p.candidate.run.ci.run_id);
    }
  });

  it('orders by attempt when the run id is the same; a rerun attempt is a run of its own', () => {
    const pairs = noisePairs([run({ id: 5, attempt: 2, cases: 1 }), run({ id: 5, attempt: 1, cases: 1 })]);
    expect(pairs).toHaveLength(1);
    expect([pairs[0]!.baseline.run.ci.run_attempt, pairs[0]!.candidate.run.ci.run_attempt]).toEqual([1, 2]);
  });

  it('never pairs other GPU models or GPU counts', () => {
    const pairs = noisePairs([run({ id: 1 }), run({ id: 2, gpu: 'B200' }), run({ id: 3, gpus: 4 }), run({ id: 4 })]);
    expect(pairs).toHaveLength(3); // only runs 1 and 4
    expect(new Set(pairs.map((p) => `${p.baseline.run.ci.run_id}-${p.candidate.run.ci.run_id}`))).toEqual(new Set(['1-4']));
  });

  it('repetitions and reruns together: 2 runs x 3 reps x 2 cases', () => {
    const pairs = noisePairs([run({ id: 1, cases: 2, reps: 3 }), run({ id: 2, cases: 2, reps: 3 })]);
    expect(pairs.filter((p) => p.kind === 'repetition')).toHaveLength(2 * 2 * 2);
    expect(pairs.filter((p) => p.kind === 'rerun')).toHaveLength(3 * 2);
  });

  it('keeps pairs with a failed side, with the reason, so they are counted as left out', () => {
    const pairs = noisePairs([run({ id: 1, cases: 2, failed: ['measurement-r000-c001'] }), run({ id: 2, cases: 2, failed: ['measurement-r000-c001', 'measurement-r000-c000'] })]);
    expect(pairs.map((p) => p.reason?.code ?? null)).toEqual(['FAILED_CANDIDATE', 'FAILED_BOTH']);
    const warmups = pairs.filter((p) => p.baseline.slot_id.startsWith('warmup') || p.candidate.slot_id.startsWith('warmup'));
    expect(warmups).toEqual([]);
  });

  it('one run without repetitions forms no pair', () => {
    expect(noisePairs([run({ id: 1 })])).toEqual([]);
  });
});
