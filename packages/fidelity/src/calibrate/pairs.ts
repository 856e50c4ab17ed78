/**
 * Same-hardware pairs, the noise sample (docs/calibration.md): two ok
 * measurement slots of the same case on the same hardware class, from
 *   1. repetitions inside one run: repetition 0 against every repetition r >= 1;
 *   2. every unordered pair of runs of the same class and workload, slot by
 *      slot, the older run (lower run id, then attempt) as the baseline side.
 * Pairs that cannot be measured keep their reason, so the calibration can
 * say how many were left out and why.
 */
import type { MediaEntry, VerifiedRun } from '../archive/types.js';
import { measurementSlotId, type RunRecord } from '../schemas/run-archive.js';

/** A run's hardware class: the GPU model and how many GPUs served it. */
export function hardwareClass(run: Pick<VerifiedRun, 'ci'>): string {
  return `${run.ci.hardware.gpu_model} x${run.ci.hardware.gpus_participating}`;
}

/** One slot of one run. */
export interface NoiseSide {
  run: VerifiedRun;
  slot_id: string;
  record: RunRecord | undefined;
  media: MediaEntry | null;
}

/** A same-hardware pair, measurable when `reason` is null. */
export interface NoisePair {
  /** `<run>/<slot> vs <run>/<slot>`: unique within a calibration. */
  id: string;
  kind: 'repetition' | 'rerun';
  hardware: string;
  case_id: string;
  /** The candidate side's repetition: a repetition pair measures it against repetition 0 of its run, a rerun pair against the same repetition of the older run. */
  repetition: number;
  baseline: NoiseSide;
  candidate: NoiseSide;
  /** `side`: the side without ok media (`baseline` the older run or repetition 0), `both` when neither has any. */
  reason: { code: string; message: string; side: 'baseline' | 'candidate' | 'both' } | null;
}

const key = (run: VerifiedRun): string => `${run.ci.run_id}-${run.ci.run_attempt}`;

function side(run: VerifiedRun, slotId: string): NoiseSide {
  const record = run.records.find((r) => r.kind === 'measurement' && r.slot_id === slotId);
  return { run, slot_id: slotId, record, media: run.media.get(slotId) ?? null };
}

function reasonFor(a: NoiseSide, b: NoiseSide): NoisePair['reason'] {
  const failed = (s: NoiseSide): boolean => !s.record || s.record.status !== 'ok' || !s.media;
  if (failed(a) && failed(b)) return { code: 'FAILED_BOTH', message: `${key(a.run)}/${a.slot_id} and ${key(b.run)}/${b.slot_id} have no ok media`, side: 'both' };
  if (failed(a)) return { code: 'FAILED_BASELINE', message: `${key(a.run)}/${a.slot_id} has no ok media`, side: 'baseline' };
  if (failed(b)) return { code: 'FAILED_CANDIDATE', message: `${key(b.run)}/${b.slot_id} has no ok media`, side: 'candidate' };
  return null;
}

function pair(kind: NoisePair['kind'], caseId: string, repetition: number, a: NoiseSide, b: NoiseSide): NoisePair {
  return { id: `${key(a.run)}/${a.slot_id} vs ${key(b.run)}/${b.slot_id}`, kind, hardware: hardwareClass(a.run), case_id: caseId, repetition, baseline: a, candidate: b, reason: reasonFor(a, b) };
}

/** Older first: lower run id, then lower attempt. */
export function olderFirst(a: VerifiedRun, b: VerifiedRun): number {
  return a.ci.run_id - b.ci.run_id || a.ci.run_attempt - b.ci.run_attempt;
}

/**
 * Every same-hardware pair the runs can form, in a fixed order: runs sorted
 * older first; for each run its repetition pairs; then each run pair (i < j)
 * slot by slot in plan order. The runs must share one workload (the caller
 * checks plan_sha256).
 */
export function noisePairs(runs: readonly VerifiedRun[]): NoisePair[] {
  const sorted = [...runs].sort(olderFirst);
  const out: NoisePair[] = [];
  for (const run of sorted) {
    const plan = run.plan;
    plan.cases.forEach((c, caseIndex) => {
      for (let r = 1; r < plan.repetitions; r++) {
        out.push(pair('repetition', c.case_id, r, side(run, measurementSlotId(0, caseIndex)), side(run, measurementSlotId(r, caseIndex))));
      }
    });
  }
  for (let i = 0; i < sorted.length; i++) {
    for (let j = i + 1; j < sorted.length; j++) {
      const a = sorted[i]!;
      const b = sorted[j]!;
      if (hardwareClass(a) !== hardwareClass(b)) continue;
      for (let r = 0; r < a.plan.repetitions; r++) {
        a.plan.cases.forEach((c, caseIndex) => {
          const slot = measurementSlotId(r, caseIndex);
          out.push(pair('rerun', c.case_id, r, side(a, slot), side(b, slot)));
        });
      }
    }
  }
  return out;
}
