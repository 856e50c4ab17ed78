/**
 * `fidelity power <run>`: the evidence beyond media for one run archive:
 * board energy (or why there is none), GPU accounting and server timing.
 * Exit 0 whenever the archive is valid, even when its power is not: invalid
 * telemetry is a finding about the run, not a refusal of the command.
 * Valid clips are judged as the report judges them (every ok clip decoded and
 * checked on its own, `validClipsOf`), so the energy per valid clip is the
 * report's; `--ok-records` counts ok records without decoding, and says so.
 */
import {
  analyseRunClips,
  counted,
  deriveServerTiming,
  validClipsOf,
  type RunClipsAnalysis,
  type ValidClipsBasis,
  FidelityError,
  formatDuration,
  runAccounting,
  runPower,
  TIMING_STAGES,
  verifyRun,
  type AccountingBasis,
  type GpuAccounting,
  type PowerResult,
  type ServerTimingReport,
  type VerifiedRun,
} from 'media-fidelity';
import { EXIT, printJson, reportFailure, type Io } from '../io.js';
import { readDecodeTimeout } from '../options.js';
import { inline } from '../text.js';
import type { CommandArgs } from './types.js';

const num = (v: number, digits: number) => v.toFixed(digits);
const UNAVAILABLE = 'unavailable';

function parseMaxGap(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (typeof value !== 'string' || value.trim() === '' || !Number.isFinite(n) || n <= 0) {
    throw new FidelityError('USAGE', `Expected a positive number of seconds for --max-gap but received ${JSON.stringify(value)}`);
  }
  return n;
}

/** The run's invalid clips with their first code, as report.json's `runs[].clips.invalid` names them. */
function invalidClips(clips: RunClipsAnalysis): { slot_id: string; code: string }[] {
  return clips.clips.filter((c) => c.kind === 'measurement' && c.clip?.valid !== true).map((c) => ({ slot_id: c.slot_id, code: c.clip ? c.clip.reasons[0]!.code : c.failure!.code }));
}

/** The basis of valid_clips in words: which clips were counted, and the invalid ones named with their first code. */
function basisLines(basis: ValidClipsBasis, clips: RunClipsAnalysis | null): string[] {
  if (basis === 'ok_records' || !clips) return ['valid clips: ok measurement records (clips not judged; valid_clips_basis ok_records)'];
  const lines = [`valid clips: ${clips.valid} of ${counted(clips.analysed, 'completed clip')} judged valid (valid_clips_basis valid_clips, as report.json counts them)`];
  for (const c of invalidClips(clips)) lines.push(`  invalid ${inline(c.slot_id)}: ${c.code}`);
  return lines;
}

function powerLines(power: PowerResult | null): string[] {
  if (!power) return ['power: the run has no telemetry'];
  const { report, audit } = power;
  const head = `${report.observed_gpu_count} of ${counted(report.expected_gpu_count, 'expected GPU')}, max gap ${report.max_gap_s} s, ${report.method}`;
  const lines = [report.power_valid ? `power: valid (${head})` : `power: NOT VALID, no energy figures (${head})`];
  if (!report.power_valid) lines.push(`  reasons: ${report.reasons.join(', ')}`);
  for (const g of audit.per_gpu) {
    const gap = g.max_gap_s === null ? 'max gap -' : `max gap ${num(g.max_gap_s, 3)} s`;
    const energy = g.energy_j === null ? '' : `, ${num(g.energy_j, 1)} J, avg ${num(g.avg_power_w!, 1)} W`;
    const why = g.reasons.length ? `  [${g.reasons.join(', ')}]` : '';
    const id = g.id === String(g.index) ? '' : ` (${inline(g.id)})`;
    lines.push(`  GPU ${g.index}${id}: ${counted(g.samples_used, 'reading')} used, ${g.missing_readings} missing, ${gap}${energy}${why}`);
  }
  const r = audit.rows;
  if (r.malformed_in_range || r.malformed_outside_range || r.truncated_last_line) {
    lines.push(`  rows: ${r.malformed_in_range} malformed in window, ${r.malformed_outside_range} malformed outside${r.truncated_last_line ? ', cut-off last line dropped' : ''}`);
  }
  if (report.power_valid) {
    const total = report.total_gpu_energy_j!;
    const perClip = report.joules_per_valid_clip === undefined ? `${UNAVAILABLE} (no valid clip)` : `${num(report.joules_per_valid_clip, 1)} J`;
    lines.push(`  total ${num(total, 1)} J (${num(total / 3600, 2)} Wh) over ${num(audit.duration_s!, 1)} s, avg ${num(report.avg_total_gpu_power_w!, 1)} W`);
    lines.push(`  per valid clip: ${perClip} (${report.valid_clips === null ? 'valid clips not counted' : counted(report.valid_clips, 'valid clip')})`);
  }
  return lines;
}

function basisLine(name: string, b: AccountingBasis): string {
  const v = (x: number | null, unit: string, digits = 1) => (x === null ? UNAVAILABLE : `${num(x, digits)} ${unit}`);
  const why = b.reasons.length ? `  [${b.reasons.join(', ')}]` : '';
  return `  ${name} (${counted(b.gpus, 'GPU')}): ${v(b.gpu_seconds, 'GPU-s')}; per valid clip: ${v(b.gpu_seconds_per_valid_clip, 'GPU-s')}, energy ${v(b.energy_j_per_valid_clip, 'J')}${why}`;
}

function accountingLines(a: GpuAccounting): string[] {
  const lines = [`GPU accounting: ${a.gpus_participating} participating of ${a.gpus_allocated} allocated; ${counted(a.valid_clips, 'valid clip')}`];
  if (a.reasons.length) lines.push(`  note: ${a.reasons.join(', ')} (run.json expects ${counted(a.expected_gpu_count, 'GPU')})`);
  lines.push(basisLine('participating', a.participating), basisLine('allocated', a.allocated));
  return lines;
}

function timingLines(t: ServerTimingReport): string[] {
  if (!t.available) return [`server timing: ${UNAVAILABLE}${t.reasons.length ? ` (${t.reasons.join(', ')})` : ''}`];
  const lines = [`server timing (clock ${inline(t.clock_id ?? '')}): ${t.summary.available} of ${counted(t.summary.records, 'ok measurement record')}; descriptive, not a check`];
  if (t.reasons.length) lines.push(`  some records unavailable: ${t.reasons.join(', ')}`);
  lines.push(`  ${'stage'.padEnd(18)}${['median', 'p90', 'min', 'max'].map((h) => h.padStart(12)).join('')}`);
  for (const s of TIMING_STAGES) {
    const st = t.summary[s.name];
    // The pages' formatter: each figure in the unit that keeps its digits (a 700 ns stage is not "0.0 ms").
    const cells = st ? [st.median, st.p90, st.min, st.max].map((x) => formatDuration(x).padStart(12)).join('') : UNAVAILABLE.padStart(12);
    lines.push(`  ${s.name.replace(/_ms$/, '').padEnd(18)}${cells}`);
  }
  return lines;
}

function evidence(run: VerifiedRun, maxGapS: number | undefined, validClips: number) {
  const power = runPower(run, { validClips, ...(maxGapS === undefined ? {} : { maxGapS }) });
  return { power, accounting: runAccounting(run, power, validClips), timing: deriveServerTiming(run.records) };
}

/**
 * What --decode-timeout changed nothing in: with --ok-records no clip is decoded, so no ffmpeg
 * child runs for the limit to bound. Null otherwise.
 */
export function decodeTimeoutSkipped(values: Record<string, unknown>): string | null {
  if (!values['ok-records'] || values['decode-timeout'] === undefined) return null;
  return `fidelity power: --decode-timeout ${String(values['decode-timeout'])} changed nothing: with --ok-records no clip is decoded\n`;
}

async function powerCommand(positionals: string[], values: Record<string, unknown>, io: Io, signal: AbortSignal | undefined): Promise<number> {
  if (positionals.length !== 1) throw new FidelityError('USAGE', `Expected one run archive but received ${positionals.length}`);
  const maxGapS = parseMaxGap(values['max-gap']);
  const timeoutMs = readDecodeTimeout(values);
  const json = Boolean(values.json);
  const verified = await verifyRun(positionals[0]!);
  if (!verified.ok) throw new FidelityError('RUN_INVALID', 'the run archive is invalid', { problems: verified.problems });
  const { run } = verified;
  // An option that changes nothing is said on stderr, whatever the output: stdout stays the result.
  const skipped = decodeTimeoutSkipped(values);
  if (skipped) io.err(skipped);
  try {
    // The report's judgement of the clips (each ok clip decoded and checked on its own), unless told to count ok records.
    const clips = values['ok-records']
      ? null
      : await analyseRunClips(run, {
          ...(signal ? { signal } : {}),
          ...(timeoutMs === undefined ? {} : { timeoutMs }),
          onProgress: ({ done, total, slot_id }) => {
            if (!json) io.err(`clips ${done}/${total} ${inline(slot_id)}\n`);
          },
        });
    const basis = validClipsOf(run.records, clips);
    const { power, accounting, timing } = evidence(run, maxGapS, basis.valid_clips);
    const identity = { run_id: run.ci.run_id, run_attempt: run.ci.run_attempt, gpu_model: run.ci.hardware.gpu_model };
    if (json) {
      const powerReport = power ? { ...power.report, valid_clips_basis: basis.basis } : null;
      // The same four fields as report.json's runs[].clips.
      const clipCounts = clips ? { clips: { analysed: clips.analysed, valid: clips.valid, invalid_by_code: clips.invalid_by_code, invalid: invalidClips(clips) } } : {};
      printJson(io, { ok: true, run: identity, power: powerReport, power_audit: power?.audit ?? null, accounting, ...clipCounts, timing });
    } else {
      for (const w of verified.warnings) io.err(`warning ${w.code}: ${inline(w.message)}\n`);
      const lines = [`run ${identity.run_id} attempt ${identity.run_attempt} (${inline(identity.gpu_model)})`, ...basisLines(basis.basis, clips), ...powerLines(power), ...accountingLines(accounting), ...timingLines(timing)];
      io.out(`${lines.join('\n')}\n`);
    }
    return EXIT.ok;
  } finally {
    await run.close();
  }
}

/** `fidelity power`: what it does once its arguments are parsed; the command table (index.ts) loads this module then. */
export async function runCommand({ positionals, values, io, signal }: CommandArgs): Promise<number> {
  try {
    return await powerCommand(positionals, values, io, signal);
  } catch (error) {
    return reportFailure(io, error, Boolean(values.json));
  }
}
