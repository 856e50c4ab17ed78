/**
 * Phase 1 of compare() (and of every shard and of merge): verify every run,
 * refuse differing workloads, pair slots, and number every planned pair.
 * The numbering is the contract shards and merge share: index j walks the
 * comparisons in candidate order and, inside one, the pairs in slot order,
 * exactly the order of report.json.
 */
import type { VerifiedRun } from '../archive/types.js';
import { verifyRun } from '../archive/verify.js';
import { sourceName } from '../archive/source.js';
import { runKey } from '../bundle/layout.js';
import { FidelityError, type Problem } from '../errors.js';
import { pairSlots, type PlannedPair } from '../pairing/slots.js';
import { workloadProblems } from '../pairing/workload.js';
import { counted } from '../words.js';

/** What planning needs from the compare options. */
export interface PlanSettings {
  /** Make a missing artifact digest (`<archive>.sha256`) an error for every run. */
  requireDigest?: boolean;
  /** Every run must prove its identity with a provenance file (docs/provenance.md). */
  requireProvider?: boolean;
  /** Where zip / tar.gz runs are unpacked while they are read (default the OS temp folder). */
  tempDir?: string;
  /** Cancels: the promise rejects with a FidelityError `ABORTED`. */
  signal?: AbortSignal;
  /** Told after each run is verified, with how many of how many are done. */
  onVerify?: (event: { done: number; total: number; run: string }) => void;
}

/** compare()'s and merge()'s options as planning reads them (verification flags, temp folder, cancel, progress). */
export function planSettingsOf(options: {
  requireDigest?: boolean;
  requireProvider?: boolean;
  tempDir?: string;
  signal?: AbortSignal;
  onProgress?: (event: { stage: 'verify'; done: number; total: number; run: string }) => void;
}): PlanSettings {
  return {
    ...(options.requireDigest ? { requireDigest: true } : {}),
    ...(options.requireProvider ? { requireProvider: true } : {}),
    ...(options.tempDir ? { tempDir: options.tempDir } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    onVerify: (e) => options.onProgress?.({ stage: 'verify', ...e }),
  };
}

/** One candidate against the baseline: its planned pairs in slot order. */
export interface PlannedComparison {
  candidate: VerifiedRun;
  pairs: PlannedPair[];
}

/** One entry of the ordered pair list. */
export interface PairRef {
  /** j, the position in the ordered pair list: the shard rule reads `j mod N`. */
  index: number;
  /** Which comparison (candidate order) and where in its pairs. */
  comparison: number;
  position: number;
  candidate: VerifiedRun;
  pair: PlannedPair;
  /** `<candidate run_id>-<run_attempt>/<slot_id>`: unique over the whole plan. */
  id: string;
  /** False when pairing already refused the pair (failed request, missing media): nothing to measure. */
  measurable: boolean;
}

/** Verified runs, their pairs, and the ordered pair list. close() releases what verification unpacked. */
export interface ComparisonPlan {
  /** Baseline first, then the candidates, in the order given. */
  runs: VerifiedRun[];
  /** Each run's warning codes, in the order of `runs`. */
  warnings: string[][];
  baseline: VerifiedRun;
  comparisons: PlannedComparison[];
  pairs: PairRef[];
  close(): Promise<void>;
}

/**
 * A run as its user typed it (`runs/h2000`, not `h2000`), for refusals: a wrong path must be
 * recognisable as the one given, and a refusal is printed to its user, never written into a bundle.
 */
function typedRun(input: string): string {
  return JSON.stringify(input);
}

function prefixProblems(input: string, problems: readonly Problem[]): Problem[] {
  const label = typedRun(input);
  return problems.map((p) => ({
    ...p,
    // "runs/h2000": "runs/h2000" does not exist says the path twice: a message that starts with it keeps its own words.
    message: p.message.startsWith(label) ? p.message : `${label}: ${p.message}`,
    where: { ...p.where, file: p.where?.file ? `${input}/${p.where.file}` : input },
  }));
}

/** Verifies every run (every problem reported), refusing invalid and duplicate runs; compare, merge and calibrate share it. */
export async function verifyAll(inputs: readonly string[], settings: PlanSettings): Promise<{ runs: VerifiedRun[]; warnings: string[][] }> {
  const runs: VerifiedRun[] = [];
  const warnings: string[][] = [];
  const problems: Problem[] = [];
  try {
    for (const [i, input] of inputs.entries()) {
      settings.onVerify?.({ done: i, total: inputs.length, run: sourceName(input) });
      const result = await verifyRun(input, {
        ...(settings.requireDigest ? { requireDigest: true } : {}),
        ...(settings.requireProvider ? { requireProvider: true } : {}),
        ...(settings.tempDir ? { tempDir: settings.tempDir } : {}),
        ...(settings.signal ? { signal: settings.signal } : {}),
      });
      if (result.ok) {
        runs.push(result.run);
        warnings.push(result.warnings.map((w) => w.code));
      } else {
        problems.push({ code: 'RUN_INVALID', message: `${typedRun(input)} failed verification (${counted(result.problems.length, 'problem')} below)`, where: { file: input } });
        problems.push(...prefixProblems(input, result.problems));
      }
    }
    settings.onVerify?.({ done: inputs.length, total: inputs.length, run: '' });
    if (problems.length) {
      const failed = problems.filter((p) => p.code === 'RUN_INVALID').length;
      throw new FidelityError('RUN_INVALID', `${failed} of ${counted(inputs.length, 'run')} failed verification; nothing was compared`, { problems });
    }
    const seen = new Map<string, string>();
    for (const [i, run] of runs.entries()) {
      const key = runKey(run);
      const label = typedRun(inputs[i]!);
      const earlier = seen.get(key);
      if (earlier !== undefined) {
        problems.push({ code: 'DUPLICATE_RUN', message: `${label} is run ${key}, already given as ${earlier}; each run may appear once` });
      }
      seen.set(key, label);
    }
    if (problems.length) throw new FidelityError('DUPLICATE_RUN', problems[0]!.message, { problems });
    return { runs, warnings };
  } catch (error) {
    await Promise.all(runs.map((r) => r.close()));
    throw error;
  }
}

function checkWorkloads(baseline: VerifiedRun, candidates: readonly VerifiedRun[], labels: readonly string[]): void {
  const problems = candidates.flatMap((c, i) => workloadProblems(baseline.plan, c.plan, labels[i]!));
  if (problems.length) {
    throw new FidelityError('PLAN_MISMATCH', `the candidate workload differs from the baseline in ${counted(problems.length, 'field')}: ${problems.map((p) => p.where?.path).join(', ')}`, {
      problems,
    });
  }
}

/**
 * Verifies the baseline and every candidate (all of them, every time: a shard
 * never trusts another), refuses differing workloads, and pairs slots.
 * The caller owns the result and must close() it.
 */
export async function planComparison(baseline: string, candidates: readonly string[], settings: PlanSettings = {}): Promise<ComparisonPlan> {
  const { runs, warnings } = await verifyAll([baseline, ...candidates], settings);
  const close = async (): Promise<void> => {
    await Promise.all(runs.map((r) => r.close()));
  };
  try {
    const [base, ...cands] = runs as [VerifiedRun, ...VerifiedRun[]];
    checkWorkloads(base, cands, candidates.map(sourceName));
    const comparisons = cands.map((candidate) => ({ candidate, pairs: pairSlots(base, candidate) }));
    const pairs: PairRef[] = [];
    for (const [c, cmp] of comparisons.entries()) {
      for (const [position, pair] of cmp.pairs.entries()) {
        pairs.push({
          index: pairs.length,
          comparison: c,
          position,
          candidate: cmp.candidate,
          pair,
          id: `${runKey(cmp.candidate)}/${pair.slot_id}`,
          measurable: pair.reasons.length === 0,
        });
      }
    }
    return { runs, warnings, baseline: base, comparisons, pairs, close };
  } catch (error) {
    await close();
    throw error;
  }
}
