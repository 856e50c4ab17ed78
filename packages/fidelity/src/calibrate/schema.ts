/**
 * calibration.json, schema_version 1 (docs/calibration.md). It carries every
 * value of the noise sample, not a summary, so every later decision can be
 * recomputed from the file alone. A JSON Schema generated from this file
 * ships as calibration.schema.json.
 */
import { z } from 'zod';

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);

export const CalibrationSource = z.object({
  run_id: z.number().int(),
  run_attempt: z.number().int(),
  gpu_model: z.string(),
  gpus: z.number().int(),
  plan_sha256: Sha256,
  /** SHA-256 of the run's SHA256SUMS: the seal that pins every file of it. */
  seal_sha256: Sha256,
  /** The archive's file name (never a machine path) and kind. */
  source: z.object({ name: z.string(), kind: z.enum(['directory', 'zip', 'tar.gz']) }),
});
export type CalibrationSource = z.infer<typeof CalibrationSource>;

export const CalibrationPair = z.object({
  id: z.string(),
  kind: z.enum(['repetition', 'rerun']),
  hardware: z.string(),
  case_id: z.string(),
});
export type CalibrationPair = z.infer<typeof CalibrationPair>;

export const CalibrationMetric = z.object({
  worse: z.enum(['lower', 'higher']),
  /** Ascending; null (+infinity: identical streams, or an infinite rms ratio) sorts last. */
  values: z.array(z.number().nullable()),
});
export type CalibrationMetric = z.infer<typeof CalibrationMetric>;

/** calibration.json: the same-hardware noise sample, every value of it, and where it came from (docs/calibration.md). */
export const Calibration = z.object({
  schema_version: z.literal(1),
  /**
   * The metric definitions version (docs/metrics.md) the values were measured with. Any version
   * parses, so that compare --calibration can refuse another one with its own reason code
   * (CALIBRATION_DEFINITIONS_OUTDATED, CALIBRATION_MISMATCH_DEFINITIONS) instead of "invalid".
   */
  definitions_version: z.number().int().min(1),
  generated_at: z.string(),
  tool: z.object({ name: z.literal('fidelity'), version: z.string() }),
  decoder: z.object({ ffmpeg_version: z.string(), sha256: Sha256, ffprobe_version: z.string(), ffprobe_sha256: Sha256 }),
  /** The one workload every source ran. */
  plan_sha256: Sha256,
  /** Hardware classes ("<gpu_model> x<gpus>") the sample covers. */
  hardware: z.array(z.string()),
  sources: z.array(CalibrationSource),
  /** Same-hardware pairs measured: the sample size. */
  n: z.number().int().min(0),
  pairs: z.array(CalibrationPair),
  /** Pairs that could be formed but are not in the sample, with why. */
  excluded: z.array(z.object({ pair: z.string(), code: z.string(), message: z.string() })),
  /** Warmup slots seen in the sources (never paired). */
  warmups_ignored: z.number().int().min(0),
  metrics: z.record(z.string(), CalibrationMetric),
  /** Per frame index, the lowest Gaussian SSIM over the sample's pairs: the band the per-frame chart shades. */
  ssim_floor_per_frame: z.array(z.number()),
});
export type Calibration = z.infer<typeof Calibration>;

/** Noise verdict of one metric of one pair (report.json `pairs[].noise.<metric>`). */
export const MetricNoise = z.object({
  p: z.number(),
  /** null when the sample is too small for alpha to be reachable: no verdict. */
  beyond: z.boolean().nullable(),
  /** The noise sample's worst value (null = +infinity). */
  noise_worst: z.number().nullable(),
  /** Values of this metric in the sample. */
  n: z.number().int().min(0),
});
export type MetricNoise = z.infer<typeof MetricNoise>;

/** The Bonferroni verdict over the k metrics that could give one. */
export const PairVerdict = z.object({ p: z.number(), beyond: z.boolean().nullable(), k: z.number().int().min(0) });
export type PairVerdict = z.infer<typeof PairVerdict>;

/** report.json `pairs[].noise`: `{ "<metric>": {p, beyond, noise_worst}, ..., "pair": {p, beyond} }` (docs/calibration.md). */
export const PairNoise = z.object({ pair: PairVerdict }).catchall(MetricNoise);
export type PairNoise = z.infer<typeof PairNoise>;

/** report.json `comparisons[].noise`. */
export const ComparisonNoise = z.object({
  alpha: z.number(),
  n: z.number().int().min(0),
  metrics: z.array(z.string()),
  /** The metrics the pair verdict (Bonferroni) is over: those the policy's enabled checks judge. */
  verdict_metrics: z.array(z.string()),
  valid_pairs: z.number().int().min(0),
  beyond_pairs: z.number().int().min(0),
  beyond_by_metric: z.record(z.string(), z.number().int().min(0)),
  /** P(at least beyond_pairs of valid_pairs beyond noise) if each had probability alpha. */
  binomial_p: z.number(),
  binomial_p_by_metric: z.record(z.string(), z.number()),
  /** Said plainly when no pair can be declared beyond noise (e.g. "noise sample too small: n = 6, smallest possible p = 0.143"). */
  note: z.string().nullable(),
  /** Where the sample came from: the calibration's sources. */
  sources: z.array(z.object({ run_id: z.number().int(), run_attempt: z.number().int(), gpu_model: z.string() })),
  /** Per frame index, the lowest same-hardware Gaussian SSIM (the chart's noise band); empty when unknown. */
  ssim_floor_per_frame: z.array(z.number()).optional(),
});
export type ComparisonNoise = z.infer<typeof ComparisonNoise>;
