/**
 * The power and accounting figures of one verified run: the glue between a
 * VerifiedRun and the pure functions, so compare.ts and the CLI agree on
 * which window, which GPU count and which clips count.
 */
import type { VerifiedRun } from '../archive/types.js';
import type { RunRecord, Window } from '../schemas/run-archive.js';
import { gpuAccounting, type GpuAccounting } from './accounting.js';
import { integratePower } from './integrate.js';
import type { PowerResult } from './schemas.js';

/**
 * Valid clips when no clip was analysed: measurement records whose status is ok. Where every ok
 * record's clip was analysed (compare, merge), the report counts only the valid ones instead
 * (`validClips` below; docs/power-and-timing.md).
 */
export function countValidClips(records: readonly RunRecord[]): number {
  return records.filter((r) => r.kind === 'measurement' && r.status === 'ok').length;
}

/** What `valid_clips` counted: `valid_clips` (every ok record's clip judged, the valid ones counted) or `ok_records` (not every clip judged). */
export type ValidClipsBasis = 'valid_clips' | 'ok_records';

/**
 * The one definition of a run's valid clips, for the report (compare, merge) and `fidelity power`
 * alike: when every ok measurement record's clip was judged (`judged.analysed` equals the ok
 * records), the clips judged valid (docs/metrics.md, "Clip validity": a clip off the plan is
 * invalid); otherwise the ok records, and the basis says so.
 *
 * @example validClipsOf(run.records, await analyseRunClips(run)) // { valid_clips: 7, basis: 'valid_clips' }
 */
export function validClipsOf(records: readonly RunRecord[], judged: { analysed: number; valid: number } | null | undefined): { valid_clips: number; basis: ValidClipsBasis } {
  const ok = countValidClips(records);
  return judged && judged.analysed === ok ? { valid_clips: judged.valid, basis: 'valid_clips' } : { valid_clips: ok, basis: 'ok_records' };
}

function windowSeconds(window: Window | null | undefined): number | null {
  if (!window) return null;
  const s = window.end_unix - window.start_unix;
  return Number.isFinite(s) && s > 0 ? s : null;
}

/**
 * null when the run has no telemetry at all (report.json `runs[].power` is
 * null then). A run with telemetry/ but without gpu_metrics.csv gets
 * power_valid false with TELEMETRY_MISSING.
 */
export function runPower(run: Pick<VerifiedRun, 'run' | 'records' | 'telemetry'>, options: { maxGapS?: number; validClips?: number } = {}): PowerResult | null {
  const { gpu_metrics_csv: csv, server_timing_jsonl: timing } = run.telemetry;
  if (csv === null && timing === null) return null;
  return integratePower(csv, run.run.measurement_window, {
    expectedGpuCount: run.run.expected_gpu_count,
    validClips: options.validClips ?? countValidClips(run.records),
    ...(options.maxGapS === undefined ? {} : { maxGapS: options.maxGapS }),
  });
}

/**
 * The GPU accounting of one verified run (allocated vs participating GPUs, GPU-seconds, energy per valid clip when power is valid).
 */
export function runAccounting(run: Pick<VerifiedRun, 'ci' | 'run' | 'records'>, power: PowerResult | null, validClips?: number): GpuAccounting {
  const valid = power?.report.power_valid === true;
  return gpuAccounting({
    gpusAllocated: run.ci.hardware.gpus_allocated,
    gpusParticipating: run.ci.hardware.gpus_participating,
    expectedGpuCount: run.run.expected_gpu_count,
    windowS: windowSeconds(run.run.measurement_window),
    validClips: validClips ?? countValidClips(run.records),
    energyJ: valid ? power.report.total_gpu_energy_j! : null,
    measuredGpuCount: valid ? power.report.observed_gpu_count : null,
  });
}
