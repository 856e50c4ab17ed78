import { describe, expect, it } from 'vitest';
import { countValidClips, runAccounting, runPower } from '../../src/power/run.js';
import type { CiJson, RunJson, RunRecord } from '../../src/schemas/run-archive.js';
import { RunReport } from '../../src/schemas/report.js';
import { csvOf, series, T0, T0_MS } from './helpers.js';

function record(slot: string, kind: RunRecord['kind'], status: RunRecord['status']): RunRecord {
  return { slot_id: slot, kind, case_id: 'c', prompt: 'p', seed: 11, repetition: 0, status, media: status === 'ok' ? `media/${slot}.mp4` : null, latency_s: null };
}

const records = [
  record('warmup-000', 'warmup', 'ok'),
  record('measurement-r000-c000', 'measurement', 'ok'),
  record('measurement-r000-c001', 'measurement', 'failed'),
  record('measurement-r000-c002', 'measurement', 'ok'),
];
const run: RunJson = { run_id: 1, run_attempt: 1, plan_sha256: '0'.repeat(64), expected_gpu_count: 2, measurement_window: { start_unix: T0, end_unix: T0 + 10 }, records };
const ci = { hardware: { gpu_model: 'H200', gpus_allocated: 8, gpus_participating: 2 } } as CiJson;
const csv = Buffer.from(csvOf(series(2, T0_MS - 500, T0_MS + 10_500, 1000, () => 100)));

describe('runPower and runAccounting', () => {
  it('counts ok measurement records as valid clips (not warmups, not failures)', () => {
    expect(countValidClips(records)).toBe(2);
  });

  it('integrates over the measurement window with the expected GPU count', () => {
    const power = runPower({ run, records, telemetry: { gpu_metrics_csv: csv, server_timing_jsonl: null } })!;
    expect(power.report).toMatchObject({ power_valid: true, total_gpu_energy_j: 2000, joules_per_valid_clip: 1000, valid_clips: 2 });
    const accounting = runAccounting({ ci, run, records }, power);
    expect(accounting.participating.energy_j_per_valid_clip).toBe(1000);
    expect(accounting.allocated.gpu_seconds_per_valid_clip).toBe(40);
    expect(accounting.allocated.energy_j).toBeNull();
  });

  it('is null without any telemetry, TELEMETRY_MISSING with telemetry but no CSV', () => {
    expect(runPower({ run, records, telemetry: { gpu_metrics_csv: null, server_timing_jsonl: null } })).toBeNull();
    const power = runPower({ run, records, telemetry: { gpu_metrics_csv: null, server_timing_jsonl: Buffer.from('{}\n') } })!;
    expect(power.report.reasons).toEqual(['TELEMETRY_MISSING']);
    expect(runAccounting({ ci, run, records }, power).participating.reasons).toEqual(['POWER_UNAVAILABLE']);
  });

  it('says WINDOW_MISSING for an older run without a measurement window', () => {
    const old = { ...run, measurement_window: null };
    const power = runPower({ run: old, records, telemetry: { gpu_metrics_csv: csv, server_timing_jsonl: null } })!;
    expect(power.report.reasons).toEqual(['WINDOW_MISSING']);
    expect(runAccounting({ ci, run: old, records }, power).participating.gpu_seconds).toBeNull();
  });

  it('follows maxGapS', () => {
    const power = runPower({ run, records, telemetry: { gpu_metrics_csv: csv, server_timing_jsonl: null } }, { maxGapS: 0.5 })!;
    expect(power.report.reasons).toEqual(['GAP_EXCEEDED']);
  });

  it('fits report.json runs[].power, timing and accounting', () => {
    const power = runPower({ run, records, telemetry: { gpu_metrics_csv: csv, server_timing_jsonl: null } })!;
    const shape = RunReport.shape;
    expect(shape.power.parse(power.report)).toEqual(power.report);
    expect(() => shape.accounting.parse(runAccounting({ ci, run, records }, power))).not.toThrow();
  });
});
