/**
 * Phase 3 of compare(): judging and the report model, from the plan and the
 * measured pairs alone. This is the only phase that applies the policy.
 * Nothing here measures or writes, so a merge that read the measurements
 * from partials builds the very same report.
 */
import { comparisonReport, ownRepetitionReport, ownRepetitionsView, pairReport, runReport, type PairVerdict } from './report-model.js';
import { FidelityError } from '../errors.js';
import type { FfmpegToolchain } from '../media/ffmpeg.js';
import { disclaimerFor } from '../policy/default.js';
import { evaluatePolicy, pairStatus } from '../policy/evaluate.js';
import type { MetricSelection } from '../metrics/names.js';
import type { Policy } from '../schemas/policy.js';
import type { MeasureOutcome } from '../schemas/measurement.js';
import type { OwnRepetition, OwnRepetitionsMeasured, Report } from '../schemas/report.js';
import type { ClipAnalysis } from '../schemas/clip.js';
import { TOOL_NAME, TOOL_VERSION } from '../version.js';
import type { MeasuredPairs, MeasuredRepetition } from './measure.js';
import type { SlotAnalysis } from './report-model.js';
import type { DecoderIdentity } from './types.js';
import type { ComparisonPlan } from './plan.js';
import type { VerifiedRun } from '../archive/types.js';

/** The identity of a resolved toolchain, as report.json and partial.json record it. */
export function decoderIdentity(tools: FfmpegToolchain): DecoderIdentity {
  return {
    ffmpeg_version: tools.ffmpeg.version,
    sha256: tools.ffmpeg.sha256,
    source: tools.ffmpeg.source,
    ffprobe_version: tools.ffprobe.version,
    ffprobe_sha256: tools.ffprobe.sha256,
  };
}

/** What the report needs besides the plan and the measurements. */
export interface AssembleSettings {
  /** The thresholds every pair is judged by. */
  policy: Policy;
  /** The ffmpeg/ffprobe that measured, as the report records them ({@link decoderIdentity}). */
  decoder: DecoderIdentity;
  /** The report's generated_at. */
  generatedAt: Date;
  /** The metric set the pairs were measured with. */
  metrics: MetricSelection;
  /** How many of the measured pairs this command measured itself (merge: re-measured); default all of them (compare). */
  measuredHere?: number;
  /**
   * The baseline's own repetitions measured against its repetition 0 (compare's `repeatability`):
   * every case they cover gets `own_repetitions_measured`; absent, no case has it.
   */
  repetitions?: readonly MeasuredRepetition[];
}

/**
 * The one place a pair is judged: every check of the policy on its
 * measurement, and the status they give (invalid when nothing was measured).
 */
export function judgePair(outcome: MeasureOutcome | null, policy: Policy): PairVerdict {
  const measurement = outcome?.ok ? outcome.measurement : null;
  // A pair with an invalid clip on either side is never judged (docs/metrics.md, "Clip validity"):
  // its metrics stay in the report as a diagnosis, its checks are inconclusive.
  const clipsValid = !measurement?.clips || (measurement.clips.baseline.valid && measurement.clips.candidate.valid);
  const judged = clipsValid ? measurement : null;
  const checks = evaluatePolicy(policy, judged);
  return { status: pairStatus(judged !== null, checks), checks };
}

/**
 * The baseline's own repetitions by case, each judged by the policy as a pair is (a diagnosis:
 * it counts in no summary, case status or gate).
 */
function ownRepetitionsByCase(repetitions: readonly MeasuredRepetition[], policy: Policy): Map<string, OwnRepetitionsMeasured> {
  const byCase = new Map<string, OwnRepetition[]>();
  for (const r of repetitions) byCase.set(r.case_id, [...(byCase.get(r.case_id) ?? []), ownRepetitionReport(r, judgePair(r.outcome, policy))]);
  return new Map([...byCase].map(([caseId, list]) => [caseId, ownRepetitionsView(list)]));
}

/**
 * A run's clips for runs[].clips: every completed measurement request's sealed media, in slot order,
 * with its analysis, or its failure's code where it could not be analysed (undecodable, off the plan),
 * or null where no analysis was made; undefined when the run has no completed request with media
 * (runs[].clips is absent then).
 */
function runClips(run: VerifiedRun, bySha: ReadonlyMap<string, ClipAnalysis | string>): SlotAnalysis[] | undefined {
  const slots = run.records
    .filter((r) => r.kind === 'measurement' && r.status === 'ok' && run.media.has(r.slot_id))
    .map((r) => r.slot_id)
    .sort();
  if (slots.length === 0) return undefined;
  return slots.map((slot) => ({ slot_id: slot, clip: bySha.get(run.media.get(slot)!.sha256) ?? null }));
}

/**
 * Every analysed clip by its file's SHA-256, with that SHA-256: the measured pairs' analyses (in pair
 * order, the first one kept: the same bytes give the same analysis), then the clips analysed on their
 * own; a clip that could not be analysed gives its failure's code instead.
 */
function analysesBySha(plan: ComparisonPlan, measured: MeasuredPairs): Map<string, ClipAnalysis | string> {
  const bySha = new Map<string, ClipAnalysis | string>();
  for (const m of [...measured.pairs].sort((a, b) => a.index - b.index)) {
    const clips = m.outcome?.ok ? m.outcome.measurement.clips : undefined;
    const pair = plan.pairs[m.index]?.pair;
    if (!clips || !pair) continue;
    for (const side of ['baseline', 'candidate'] as const) {
      const sha = pair[side].media?.sha256;
      if (sha && !bySha.has(sha)) bySha.set(sha, { sha256: sha, ...clips[side] });
    }
  }
  for (const c of measured.clips) if (!bySha.has(c.sha256)) bySha.set(c.sha256, c.outcome.ok ? { sha256: c.sha256, ...c.outcome.clip } : c.outcome.failure.code);
  return bySha;
}

/**
 * The report (pair `files` still empty: writing the bundle fills them). `measured.pairs` must hold
 * every pair of the plan; `measured.clips` the clips no pair analysed, analysed on their own.
 */
export function assembleReport(plan: ComparisonPlan, measured: MeasuredPairs, settings: AssembleSettings): Report {
  const byIndex = new Map(measured.pairs.map((m) => [m.index, m]));
  const outcomeOf = (index: number, id: string) => {
    const m = byIndex.get(index);
    if (!m || m.pair !== id) throw new FidelityError('INTERNAL', `no measurement for pair ${index} (${id})`);
    return m.outcome;
  };
  const own = settings.repetitions ? ownRepetitionsByCase(settings.repetitions, settings.policy) : null;
  // Every clip's analysis by its file's SHA-256 (an analysis depends only on the bytes and the plan):
  // the measured pairs' and the ones made on their own; for a clip that could not be analysed, its failure's code.
  const bySha = analysesBySha(plan, measured);
  const comparisons = plan.comparisons.map((cmp, c) => {
    const refs = plan.pairs.filter((r) => r.comparison === c);
    const comparison = comparisonReport(
      plan.baseline,
      cmp.candidate,
      refs.map((r) => {
        const outcome = outcomeOf(r.index, r.id);
        return pairReport(r.pair, outcome, judgePair(outcome, settings.policy), bySha);
      }),
    );
    if (!own) return comparison;
    // The baseline is every comparison's: each shows the same measurement of its own repetitions beside its own finding.
    return { ...comparison, cases: comparison.cases.map((v) => (own.has(v.case_id) ? { ...v, own_repetitions_measured: own.get(v.case_id)! } : v)) };
  });
  // Pairs that went through measuring: pairing refused the others, so nobody measured them.
  const measuredPairs = plan.pairs.filter((r) => r.measurable).length;
  const here = settings.measuredHere ?? measuredPairs;
  if (!(Number.isInteger(here) && here >= 0 && here <= measuredPairs)) throw new FidelityError('INTERNAL', `measured here ${here} of ${measuredPairs} pairs`);
  return {
    schema_version: 1,
    generated_at: settings.generatedAt.toISOString(),
    tool: { name: TOOL_NAME, version: TOOL_VERSION },
    decoder: settings.decoder,
    metrics: { set: settings.metrics.set, list: [...settings.metrics.list] },
    measurement_origin: { pairs: measuredPairs, measured_here: here, taken_from_shards: measuredPairs - here },
    policy: settings.policy,
    disclaimer: disclaimerFor(settings.policy),
    runs: plan.runs.map((r, i) => runReport(r, i === 0 ? 'baseline' : 'candidate', plan.warnings[i], runClips(r, bySha))),
    comparisons,
  };
}
