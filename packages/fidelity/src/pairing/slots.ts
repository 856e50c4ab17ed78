/**
 * Pairs baseline and candidate records by slot_id over the plan's
 * measurement slots (docs/run-archive.md, "How runs are paired"). Warmups are never paired:
 * they exist to warm caches, and their output is not part of the workload's
 * result. A slot that cannot be measured keeps its reasons, so
 * valid + invalid = planned always holds.
 */
import type { MediaEntry, VerifiedRun } from '../archive/types.js';
import type { Reason } from '../schemas/report.js';
import { measurementSlotId, type RunRecord } from '../schemas/run-archive.js';

export type PairingInput = Pick<VerifiedRun, 'plan' | 'records' | 'media'>;

/** One side of a planned pair: its record's status and error, and its sealed media. */
export interface PairSide {
  status: 'ok' | 'failed';
  error: string | null;
  /** The sealed media of an ok record; null when failed or missing. */
  media: MediaEntry | null;
}

/** A baseline slot and the candidate's slot of the same id, before measuring; `reasons` say why it cannot be measured. */
export interface PlannedPair {
  slot_id: string;
  case_id: string;
  prompt: string;
  seed: number;
  repetition: number;
  case_index: number;
  baseline: PairSide;
  candidate: PairSide;
  /** Why the pair cannot be measured; empty when it can. */
  reasons: Reason[];
}

function side(run: PairingInput, slotId: string, record: RunRecord | undefined): PairSide {
  if (!record) return { status: 'failed', error: `no record for ${slotId}`, media: null };
  if (record.status === 'failed') return { status: 'failed', error: record.error ?? 'failed (no error text recorded)', media: null };
  return { status: 'ok', error: null, media: run.media.get(slotId) ?? null };
}

function byMeasurementSlot(run: PairingInput): Map<string, RunRecord> {
  return new Map(run.records.filter((r) => r.kind === 'measurement').map((r) => [r.slot_id, r]));
}

export function pairSlots(baseline: PairingInput, candidate: PairingInput): PlannedPair[] {
  const plan = baseline.plan;
  const a = byMeasurementSlot(baseline);
  const b = byMeasurementSlot(candidate);
  const pairs: PlannedPair[] = [];
  for (let repetition = 0; repetition < plan.repetitions; repetition++) {
    plan.cases.forEach((planCase, caseIndex) => {
      const slotId = measurementSlotId(repetition, caseIndex);
      const base = side(baseline, slotId, a.get(slotId));
      const cand = side(candidate, slotId, b.get(slotId));
      pairs.push({
        slot_id: slotId,
        case_id: planCase.case_id,
        prompt: planCase.prompt,
        seed: planCase.seed,
        repetition,
        case_index: caseIndex,
        baseline: base,
        candidate: cand,
        reasons: reasonsFor(base, cand),
      });
    });
  }
  return pairs;
}

function reasonsFor(base: PairSide, cand: PairSide): Reason[] {
  const reasons: Reason[] = [];
  if (base.status === 'failed' && cand.status === 'failed') {
    reasons.push({ code: 'FAILED_BOTH', message: `baseline: ${base.error}; candidate: ${cand.error}`, side: 'both' });
  } else if (base.status === 'failed') {
    reasons.push({ code: 'FAILED_BASELINE', message: base.error ?? '', side: 'baseline' });
  } else if (cand.status === 'failed') {
    reasons.push({ code: 'FAILED_CANDIDATE', message: cand.error ?? '', side: 'candidate' });
  }
  // A verified run seals the media of every ok record, so this only fires on a run that verify let through with a gap.
  if (base.status === 'ok' && !base.media) reasons.push({ code: 'MEDIA_MISSING', message: 'the baseline record is ok but has no sealed media', side: 'baseline' });
  if (cand.status === 'ok' && !cand.media) reasons.push({ code: 'MEDIA_MISSING', message: 'the candidate record is ok but has no sealed media', side: 'candidate' });
  return reasons;
}
