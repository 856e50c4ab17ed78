/**
 * Turns typed pipeline results into report.json objects. Nothing here reads
 * a machine path: a run is named by its archive's base name only.
 */
import path from 'node:path';
import type { VerifiedRun } from '../archive/types.js';
import { caseViews, summarize } from '../pairing/summary.js';
import type { PlannedPair } from '../pairing/slots.js';
import { evaluatePolicy, pairStatus } from '../policy/evaluate.js';
import type { MeasureOutcome } from '../schemas/measurement.js';
import type { Policy } from '../schemas/policy.js';
import type { Comparison, PairReport, Reason, RunReport } from '../schemas/report.js';

export function runKey(run: Pick<VerifiedRun, 'ci'>): string {
  return `${run.ci.run_id}-${run.ci.run_attempt}`;
}

export function sourcesDir(run: Pick<VerifiedRun, 'ci'>): string {
  return `sources/${runKey(run)}`;
}

export function mediaPath(sha256: string): string {
  return `media/${sha256}.mp4`;
}

/** The base name of an archive path, without a trailing separator. */
export function sourceName(source: string): string {
  return path.basename(source.replace(/[\\/]+$/, '')) || source;
}

/**
 * WIRE (power and timing): runs[].power, runs[].timing and runs[].accounting
 * come from src/power and src/timing. Until they are wired, power is null
 * ("no telemetry evaluated") and timing/accounting are absent.
 */
export function runEvidence(_run: VerifiedRun): Pick<RunReport, 'power' | 'timing' | 'accounting'> {
  return { power: null };
}

export function runReport(run: VerifiedRun, role: RunReport['role'], warnings: readonly string[] = []): RunReport {
  const measurement = run.records.filter((r) => r.kind === 'measurement');
  return {
    role,
    run_id: run.ci.run_id,
    run_attempt: run.ci.run_attempt,
    head_sha: run.ci.head_sha,
    server_url: run.ci.server_url,
    repository: run.ci.repository,
    workflow: run.ci.workflow,
    job: run.ci.job,
    artifact: { id: run.ci.artifact.id, name: run.ci.artifact.name },
    hardware: { ...run.ci.hardware },
    runtime: run.ci.runtime ?? null,
    plan_id: run.plan.plan_id,
    plan_sha256: run.plan_sha256,
    source: { name: sourceName(run.source.path), kind: run.source.kind },
    digest: { checked: run.digest.checked, archive_sha256: run.digest.archive_sha256, expected: run.digest.expected },
    links: { run: run.links.run, artifact: run.links.artifact },
    sources_dir: sourcesDir(run),
    // Measurement slots only: warmups are counted, never compared.
    slots: {
      warmup: run.records.filter((r) => r.kind === 'warmup').length,
      measurement: measurement.length,
      ok: measurement.filter((r) => r.status === 'ok').length,
      failed: measurement.filter((r) => r.status === 'failed').length,
    },
    warnings: [...new Set(warnings)].sort(),
    ...runEvidence(run),
  };
}

/** `outcome` is null when the pair was never sent to measuring (its reasons say why). */
export function pairReport(planned: PlannedPair, outcome: MeasureOutcome | null, policy: Policy): PairReport {
  const reasons: Reason[] = [...planned.reasons];
  if (outcome && !outcome.ok) reasons.push({ code: outcome.failure.code, message: outcome.failure.message, side: null });
  const measurement = outcome?.ok ? outcome.measurement : null;
  const checks = evaluatePolicy(policy, measurement);
  return {
    slot_id: planned.slot_id,
    case_id: planned.case_id,
    prompt: planned.prompt,
    seed: planned.seed,
    repetition: planned.repetition,
    status: pairStatus(measurement !== null, checks),
    reasons: reasons.map((r) => r.code),
    reason_details: reasons,
    baseline_media: planned.baseline.media ? mediaPath(planned.baseline.media.sha256) : null,
    candidate_media: planned.candidate.media ? mediaPath(planned.candidate.media.sha256) : null,
    baseline_status: planned.baseline.status,
    candidate_status: planned.candidate.status,
    baseline_error: planned.baseline.error,
    candidate_error: planned.candidate.error,
    // timings_ms is left out on purpose: it differs run to run and report.json must not.
    video: measurement?.video ?? null,
    audio: measurement?.audio ?? null,
    checks,
    files: {},
  };
}

export function comparisonReport(baseline: VerifiedRun, candidate: VerifiedRun, pairs: PairReport[]): Comparison {
  return {
    baseline_run_id: baseline.ci.run_id,
    baseline_run_attempt: baseline.ci.run_attempt,
    candidate_run_id: candidate.ci.run_id,
    candidate_run_attempt: candidate.ci.run_attempt,
    baseline_gpu_model: baseline.ci.hardware.gpu_model,
    candidate_gpu_model: candidate.ci.hardware.gpu_model,
    summary: summarize(pairs),
    pairs,
    cases: caseViews(pairs),
  };
}
