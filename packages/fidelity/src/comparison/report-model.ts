/**
 * Turns typed pipeline results into report.json objects. Nothing here reads
 * a machine path: a run is named by its archive's base name only.
 */
import { describeCi } from '../archive/identity.js';
import { sourceName } from '../archive/source.js';
import type { CiDescription, VerifiedRun } from '../archive/types.js';
import { caseViews, summarize, worstChecks } from '../pairing/summary.js';
import type { PlannedPair } from '../pairing/slots.js';
import type { GpuAccounting } from '../power/accounting.js';
import { runAccounting, runPower, validClipsOf } from '../power/run.js';
import { PowerAudit, type PowerResult } from '../power/schemas.js';
import { failedCheckCodes } from '../policy/evaluate.js';
import type { MeasureOutcome } from '../schemas/measurement.js';
import { byClipOrder, ClipCode, type ClipAnalysis, type PairClips } from '../schemas/clip.js';
import type { Comparison, OwnRepetition, OwnRepetitionsMeasured, PairReport, PowerDetail, Reason, ReportPairClips, RunClips, RunIdentity, RunReport } from '../schemas/report.js';
import type { MeasuredRepetition } from './measure.js';
import { deriveServerTiming } from '../timing/derive.js';
import type { ServerTimingReport } from '../timing/schemas.js';
import { timingSideBySide } from '../timing/side-by-side.js';
import { mediaPath, powerAuditPath, sourcesDir } from '../bundle/layout.js';
import { escapeDel } from '../json-file.js';

/** What a run's evidence needs from a verified run (tests may hand in a plain object). */
export type EvidenceSource = Pick<VerifiedRun, 'ci' | 'run' | 'records' | 'telemetry'>;

interface Evidence {
  power: PowerResult | null;
  accounting: GpuAccounting;
  timing: ServerTimingReport;
}

// runReport, comparisonReport and evidenceFiles each need the same figures; one computation per run keeps them in step.
const computed = new WeakMap<EvidenceSource, Map<number | undefined, Evidence>>();

/** `validClips`: the run's valid clips when every ok record's clip was analysed; absent: its ok records. */
function evidenceOf(run: EvidenceSource, validClips?: number): Evidence {
  let byCount = computed.get(run);
  if (!byCount) computed.set(run, (byCount = new Map()));
  let evidence = byCount.get(validClips);
  if (!evidence) {
    const power = runPower(run, validClips === undefined ? {} : { validClips });
    evidence = { power, accounting: runAccounting(run, power, validClips), timing: deriveServerTiming(run.records) };
    byCount.set(validClips, evidence);
  }
  return evidence;
}

function powerDetail(audit: PowerAudit): PowerDetail {
  return {
    window: audit.window,
    duration_s: audit.duration_s,
    truncated_last_line: audit.rows.truncated_last_line,
    per_gpu: audit.per_gpu.map((g) => ({
      index: g.index,
      id: g.id,
      samples_in_range: g.samples_in_range,
      samples_used: g.samples_used,
      missing_readings: g.missing_readings,
      max_gap_s: g.max_gap_s,
      bracketed: g.bracketed,
      energy_j: g.energy_j,
      avg_power_w: g.avg_power_w,
      reasons: g.reasons,
    })),
  };
}

/**
 * runs[].power, its audit, accounting and timing. Power is null only when
 * the run has no telemetry at all (docs/power-and-timing.md); accounting and
 * timing are always there, with their own reasons when a figure is missing.
 */
export function runEvidence(run: EvidenceSource, validClips?: number): Pick<RunReport, 'power' | 'power_audit' | 'power_detail' | 'timing' | 'accounting'> {
  const { power, accounting, timing } = evidenceOf(run, validClips);
  return {
    power: power?.report ?? null,
    power_audit: power ? powerAuditPath(run) : null,
    power_detail: power ? powerDetail(power.audit) : null,
    timing,
    accounting,
  };
}

/** The files a run adds to the bundle besides its sources: the power audit sidecar, when there is a power result. */
export function evidenceFiles(run: EvidenceSource): { path: string; text: string }[] {
  const { power } = evidenceOf(run);
  if (!power) return [];
  // GPU ids come from the telemetry as written: a DEL among them leaves escaped (json-file.ts escapeDel).
  return [{ path: powerAuditPath(run), text: `${escapeDel(JSON.stringify(PowerAudit.parse(power.audit), null, 2))}\n` }];
}

/** runs[].identity from the provenance check: the provider's facts a reader wants next to the run, no machine path. */
export function identityReport(provenance: VerifiedRun['provenance']): RunIdentity {
  const r = provenance.attested_by === 'provider' ? provenance.record : null;
  if (!r) return { attested_by: 'self', provider: null };
  return {
    attested_by: 'provider',
    provider: {
      name: r.provider.name,
      api_url: r.provider.api_url,
      fetched_at: r.fetched_at,
      fetched_by: `${r.tool.name} ${r.tool.version}`,
      run_html_url: r.run.html_url,
      workflow_path: r.run.path,
      status: r.run.status,
      conclusion: r.run.conclusion,
      run_updated_at: r.run.updated_at,
      artifact_digest: r.artifact.digest,
      artifact_created_at: r.artifact.created_at,
      artifact_expires_at: r.artifact.expires_at,
    },
  };
}

/** The CI fields of a run's report, in the order report.json has always had them (the provider's extras after). */
function reportCi(d: CiDescription): Pick<RunReport, 'run_id' | 'run_attempt' | 'head_sha' | 'provider' | 'server_url' | 'repository' | 'workflow' | 'job' | 'artifact' | 'gitlab' | 'run_ref'> {
  return {
    run_id: d.run_id,
    run_attempt: d.run_attempt,
    head_sha: d.head_sha,
    provider: d.provider,
    server_url: d.server_url,
    repository: d.repository,
    workflow: d.workflow,
    job: d.job,
    artifact: d.artifact,
    ...(d.gitlab ? { gitlab: d.gitlab } : {}),
    ...(d.run_ref !== undefined ? { run_ref: d.run_ref } : {}),
  };
}

/**
 * A run's report. `clips`: the clip of each of its completed measurement requests: its analysis, the
 * code of why it could not be analysed (an invalid clip), or null where none was made; absent when the
 * run has no completed request with media.
 */
export function runReport(run: VerifiedRun, role: RunReport['role'], warnings: readonly string[] = [], clips?: readonly SlotAnalysis[]): RunReport {
  const measurement = run.records.filter((r) => r.kind === 'measurement');
  const judged = clips?.filter((c): c is SlotAnalysis & { clip: ClipAnalysis | string } => c.clip !== null);
  const counts = judged ? clipCounts(judged.map((c) => c.clip), judged.map((c) => c.slot_id)) : null;
  // Power and accounting count valid clips once every ok record's clip was judged; else ok records, and the report says which.
  const basis = validClipsOf(run.records, counts);
  const validClips = basis.basis === 'valid_clips' ? basis.valid_clips : undefined;
  return {
    role,
    ...reportCi(describeCi(run.ci)),
    hardware: { ...run.ci.hardware },
    runtime: run.ci.runtime ?? null,
    plan_id: run.plan.plan_id,
    plan_sha256: run.plan_sha256,
    plan_spec: {
      video: { width: run.plan.video.width, height: run.plan.video.height, fps: run.plan.video.fps, frames: run.plan.video.frames },
      audio: { sample_rate: run.plan.audio.sample_rate, channels: run.plan.audio.channels },
    },
    source: { name: sourceName(run.source.path), kind: run.source.kind },
    digest: { checked: run.digest.checked, archive_sha256: run.digest.archive_sha256, expected: run.digest.expected },
    links: { run: run.links.run, artifact: run.links.artifact, ...(run.links.pipeline ? { pipeline: run.links.pipeline } : {}) },
    identity: identityReport(run.provenance),
    sources_dir: sourcesDir(run),
    // ok / failed: measurement slots only (warmups are never compared); the warm-ups' outcome on its own, so a page can state it.
    slots: {
      warmup: run.records.filter((r) => r.kind === 'warmup').length,
      measurement: measurement.length,
      ok: measurement.filter((r) => r.status === 'ok').length,
      failed: measurement.filter((r) => r.status === 'failed').length,
      warmup_ok: run.records.filter((r) => r.kind === 'warmup' && r.status === 'ok').length,
      warmup_failed: run.records.filter((r) => r.kind === 'warmup' && r.status === 'failed').length,
    },
    warnings: [...new Set(warnings)].sort(),
    ...withBasis(runEvidence(run, validClips), validClips !== undefined),
    ...(counts ? { clips: counts } : {}),
  };
}

/**
 * `runs[].clips`: clips analysed, valid, and the invalid ones by code (a clip counts once per code it
 * fails). A clip given as a string could not be analysed (UNDECODABLE, MEDIA_PLAN_MISMATCH, ...): it
 * counts as analysed and invalid under that code, so `analysed` is every completed clip looked at.
 * Codes in the clip catalogue's order (ClipCode), then the others alphabetically.
 */
export function clipCounts(clips: readonly (ClipAnalysis | string)[], slots?: readonly string[]): RunClips {
  const invalid: Record<string, number> = {};
  for (const clip of clips) for (const code of typeof clip === 'string' ? [clip] : clip.reasons.map((r) => r.code)) invalid[code] = (invalid[code] ?? 0) + 1;
  const counts: RunClips = { analysed: clips.length, valid: clips.filter((c) => typeof c !== 'string' && c.valid).length, invalid_by_code: byClipOrder(invalid) };
  if (!slots) return counts;
  // Each invalid clip named (version 1.4): its slot and its first code, the root cause.
  const named = clips.flatMap((c, i) => (typeof c === 'string' ? [{ slot_id: slots[i]!, code: c }] : c.valid ? [] : [{ slot_id: slots[i]!, code: c.reasons[0]!.code }]));
  return { ...counts, invalid: named };
}

/** One completed measurement request's clip: its slot, and its analysis, the code of why it could not be analysed, or null where none was made. */
export interface SlotAnalysis {
  slot_id: string;
  clip: ClipAnalysis | string | null;
}

/** runs[].power with `valid_clips_basis`: what its valid_clips counted. */
function withBasis<T extends { power: RunReport['power'] }>(evidence: T, analysed: boolean): T {
  if (!evidence.power) return evidence;
  return { ...evidence, power: { ...evidence.power, valid_clips_basis: analysed ? 'valid_clips' : 'ok_records' } };
}

/** A pair's verdict: the policy's checks and the status they give (judged in comparison/assemble.ts, never here). */
export type PairVerdict = Pick<PairReport, 'status' | 'checks'>;

/** `outcome` is null when the pair was never sent to measuring (its reasons say why); `verdict` is the assemble phase's judgement of it. */
export function pairReport(planned: PlannedPair, outcome: MeasureOutcome | null, verdict: PairVerdict, analysed?: ReadonlyMap<string, ClipAnalysis | string>): PairReport {
  const reasons: Reason[] = [...planned.reasons, ...measuredReasons(outcome)];
  const measurement = outcome?.ok ? outcome.measurement : null;
  // InferenceX's figures as measuring made them, the clips' unconditional checks applied there (a
  // refused pair carries the template when InferenceX refuses it too).
  const inferencex = outcome ? (outcome.ok ? outcome.measurement.inferencex : outcome.inferencex) : undefined;
  const clips = measurement?.clips ? withSha256(measurement.clips, planned) : analysedSides(planned, analysed);
  return {
    slot_id: planned.slot_id,
    case_id: planned.case_id,
    prompt: planned.prompt,
    seed: planned.seed,
    repetition: planned.repetition,
    status: verdict.status,
    // A failed pair's reasons are its failed checks' codes; reason_details stays the invalid pair's "why" (the figures are in checks).
    reasons: [...reasons.map((r) => r.code), ...(verdict.status === 'failed' ? failedCheckCodes(verdict.checks) : [])],
    reason_details: reasons,
    baseline_media: planned.baseline.media ? mediaPath(planned.baseline.media.sha256) : null,
    candidate_media: planned.candidate.media ? mediaPath(planned.candidate.media.sha256) : null,
    baseline_status: planned.baseline.status,
    candidate_status: planned.candidate.status,
    baseline_error: planned.baseline.error,
    candidate_error: planned.candidate.error,
    // timings_ms is left out on purpose: it differs run to run and report.json must not.
    video: measurement?.video ?? null,
    ...(measurement && measurement.audio === undefined ? {} : { audio: measurement?.audio ?? null }),
    ...(inferencex ? { inferencex } : {}),
    checks: verdict.checks,
    ...(clips ? { clips } : {}),
    files: {},
  };
}

/**
 * Why measuring left a pair invalid: its failure, or its invalid clips (their codes in the catalogue's
 * order, each clip called by `names`); none for a valid measurement.
 */
function measuredReasons(outcome: MeasureOutcome | null, names?: ClipNames): Reason[] {
  if (!outcome) return [];
  if (!outcome.ok) {
    const f = outcome.failure;
    const first: Reason = { code: f.code, message: f.message, side: f.side ?? null, ...(f.plan_mismatches ? { plan_mismatches: f.plan_mismatches } : {}) };
    // Media off the plan first (the root cause), the pair's own difference after it.
    return f.also ? [first, { code: f.also.code, message: f.also.message, side: f.also.side ?? null }] : [first];
  }
  return outcome.measurement.clips ? clipReasons(outcome.measurement.clips, names) : [];
}

/**
 * One of the baseline's own repetitions against its repetition 0 (`cases[].own_repetitions_measured`):
 * `identical` when the bytes are the same, else the assemble phase's verdict of its measurement, with
 * why it is invalid when it is.
 */
export function ownRepetitionReport(measured: MeasuredRepetition, verdict: PairVerdict): OwnRepetition {
  // Both clips are the baseline run's: each is called by its repetition, never "baseline" or "candidate".
  const names = { baseline: `repetition ${measured.against_repetition}`, candidate: `repetition ${measured.repetition}` };
  const reasons: Reason[] = measured.reason ? [measured.reason] : measuredReasons(measured.outcome, names);
  return {
    repetition: measured.repetition,
    slot_id: measured.slot_id,
    against_repetition: measured.against_repetition,
    against_slot_id: measured.against_slot_id,
    status: measured.identical ? 'identical' : verdict.status,
    reasons,
    checks: measured.identical ? [] : verdict.checks,
  };
}

/** A case's own repetitions, measured: each one, and per judged check the worst of them. */
export function ownRepetitionsView(repetitions: OwnRepetition[]): OwnRepetitionsMeasured {
  return { repetitions, worst: worstChecks(repetitions) };
}

/**
 * An unmeasured pair's clips (version 1.4): each side whose clip was analysed (on its own, or in
 * another pair), by its sealed SHA-256; null when neither was.
 */
function analysedSides(planned: PlannedPair, analysed: ReadonlyMap<string, ClipAnalysis | string> | undefined): ReportPairClips | null {
  if (!analysed) return null;
  const of = (side: 'baseline' | 'candidate'): ClipAnalysis | undefined => {
    const sha = planned[side].media?.sha256;
    const clip = sha ? analysed.get(sha) : undefined;
    return typeof clip === 'object' ? clip : undefined;
  };
  const [baseline, candidate] = [of('baseline'), of('candidate')];
  if (!baseline && !candidate) return null;
  return { ...(baseline ? { baseline } : {}), ...(candidate ? { candidate } : {}) };
}

/** Each clip's analysis with its file's SHA-256 (the sealed media's), as report.json records it. */
function withSha256(clips: PairClips, planned: PlannedPair): PairClips {
  const sha = (side: 'baseline' | 'candidate'): { sha256?: string } => {
    const media = planned[side].media;
    return media ? { sha256: media.sha256 } : {};
  };
  return { baseline: { ...sha('baseline'), ...clips.baseline }, candidate: { ...sha('candidate'), ...clips.candidate } };
}

/** What a reason's message calls each clip of a pair: its side by default; a repetition's own pair calls them by repetition. */
export interface ClipNames {
  baseline: string;
  candidate: string;
}

/**
 * The pair reasons of its invalid clips: one per code, in the catalogue's order, its side the clip
 * that fails it (`both` when both do), its message the clips' own, with their figures, each clip
 * called by `names` ("candidate's clip: …", "repetition 1's clip: …").
 */
export function clipReasons(clips: PairClips, names: ClipNames = { baseline: 'baseline', candidate: 'candidate' }): Reason[] {
  const codes = [...new Set([...clips.baseline.reasons, ...clips.candidate.reasons].map((r) => r.code))];
  const order = ClipCode.options;
  codes.sort((a, b) => order.indexOf(a) - order.indexOf(b));
  return codes.map((code) => {
    const a = clips.baseline.reasons.find((r) => r.code === code);
    const b = clips.candidate.reasons.find((r) => r.code === code);
    const side = a && b ? 'both' : a ? 'baseline' : 'candidate';
    const one = a ? names.baseline : names.candidate;
    const message = a && b ? (a.message === b.message ? `both clips: ${a.message}` : `${names.baseline}: ${a.message}; ${names.candidate}: ${b.message}`) : `${one}'s clip: ${(a ?? b)!.message}`;
    return { code, message, side };
  });
}

export function comparisonReport(baseline: EvidenceSource, candidate: EvidenceSource, pairs: PairReport[]): Comparison {
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
    timing: timingSideBySide(
      [baseline, candidate].map((r) => ({ run_id: r.ci.run_id, run_attempt: r.ci.run_attempt, gpu_model: r.ci.hardware.gpu_model, timing: evidenceOf(r).timing })),
    ),
  };
}
