/**
 * What power integration produces: the summary that goes into
 * report.json `runs[].power` (a strict reading of schemas/report.ts
 * PowerReport) and the audit sidecar that lets a reader redo the sum.
 * Numbers are not rounded: the same CSV gives the same bits.
 */
import { z } from 'zod';
import { Window } from '../schemas/run-archive.js';

/** The integration method, named so a changed method can never pass for the old one. */
export const POWER_METHOD = 'trapezoid-linear-edges-v1';
/** The longest allowed gap between two readings of a GPU, in seconds, before power is invalid. */
export const DEFAULT_MAX_GAP_S = 3;

/** The power figure of a run as the report shows it: valid or not (with reasons), energy, window, GPUs seen. */
export const PowerSummary = z.object({
  power_valid: z.boolean(),
  /** Reason codes (power/reasons.ts), catalogue order; empty when valid. */
  reasons: z.array(z.string()),
  expected_gpu_count: z.number().int(),
  observed_gpu_count: z.number().int(),
  /** Only when power_valid: never a partial figure. */
  total_gpu_energy_j: z.number().optional(),
  avg_total_gpu_power_w: z.number().optional(),
  /** Only when power_valid and the run has at least one valid clip. */
  joules_per_valid_clip: z.number().optional(),
  /** Ok measurement records; null when the caller did not say. */
  valid_clips: z.number().int().nullable(),
  /**
   * What valid_clips counts (version 1.2): `valid_clips`, ok records whose clip is valid (every one
   * was analysed); `ok_records`, ok measurement records (their clips were not all analysed).
   * Absent from reports written before clips were analysed, which counted ok records.
   */
  valid_clips_basis: z.enum(['valid_clips', 'ok_records']).optional(),
  max_gap_s: z.number(),
  method: z.literal(POWER_METHOD),
});
export type PowerSummary = z.infer<typeof PowerSummary>;

/** The evidence for one GPU: its readings in the window, gaps, and energy. */
export const GpuPowerAudit = z.object({
  /** The GPU index (from the index column, or the position in the sorted uuid / bus ids). */
  index: z.number().int(),
  /** The identity as the CSV wrote it. */
  id: z.string(),
  /** Well-formed rows of this GPU in the whole file, readings and missing readings. */
  rows_total: z.number().int(),
  /** Readings (rows with a number) in the whole file. */
  samples_total: z.number().int(),
  /** Distinct-timestamp readings inside the window widened by max_gap_s. */
  samples_in_range: z.number().int(),
  /** Readings the integral uses: the bracketing pair at each edge and everything between. */
  samples_used: z.number().int(),
  /** Readings merged into another with the same timestamp (averaged). */
  duplicate_readings: z.number().int(),
  /** `[N/A]`-style rows inside the range: no reading, so they widen the gap around them. */
  missing_readings: z.number().int(),
  first_sample_unix: z.number().nullable(),
  last_sample_unix: z.number().nullable(),
  /** Largest gap between consecutive used readings; null with fewer than two. */
  max_gap_s: z.number().nullable(),
  bracketed: z.boolean(),
  /** Only when the whole run's power is valid. */
  energy_j: z.number().nullable(),
  avg_power_w: z.number().nullable(),
  reasons: z.array(z.string()),
});
export type GpuPowerAudit = z.infer<typeof GpuPowerAudit>;

export const MalformedRow = z.object({ line: z.number().int(), problem: z.string(), in_range: z.boolean().nullable() });
export type MalformedRow = z.infer<typeof MalformedRow>;

/** The full evidence behind a power figure (the bundle's `power/<run>.json`). */
export const PowerAudit = z.object({
  method: z.literal(POWER_METHOD),
  window: Window.nullable(),
  duration_s: z.number().nullable(),
  max_gap_s: z.number(),
  /** The rows considered: [start - max_gap, end + max_gap]; rows outside are skipped. */
  range: Window.nullable(),
  power_valid: z.boolean(),
  reasons: z.array(z.string()),
  expected_gpu_count: z.number().int(),
  observed_gpu_count: z.number().int(),
  total_gpu_energy_j: z.number().nullable(),
  columns: z.object({
    timestamp: z.string().nullable(),
    gpu: z.string().nullable(),
    gpu_kind: z.enum(['index', 'uuid', 'pci.bus_id']).nullable(),
    power: z.string().nullable(),
  }),
  rows: z.object({
    data_rows: z.number().int(),
    in_range: z.number().int(),
    skipped_outside_range: z.number().int(),
    malformed_in_range: z.number().int(),
    malformed_outside_range: z.number().int(),
    missing_readings_in_range: z.number().int(),
    blank_lines: z.number().int(),
    repeated_headers: z.number().int(),
    truncated_last_line: z.boolean(),
  }),
  /** The first malformed rows (at most 50), for a reader to find them. in_range is null when there was no window. */
  malformed: z.array(MalformedRow),
  per_gpu: z.array(GpuPowerAudit),
});
export type PowerAudit = z.infer<typeof PowerAudit>;

/** What {@link integratePower} returns: the summary and its audit. */
export const PowerResult = z.object({ report: PowerSummary, audit: PowerAudit });
export type PowerResult = z.infer<typeof PowerResult>;
