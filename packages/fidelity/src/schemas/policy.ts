/**
 * Thresholds as data. The shipped default is the example policy of
 * docs/report.md, "Policy and outcomes": uncalibrated, and every report says so.
 */
import { z } from 'zod';
import { CHECK_NAMES } from '../policy/checks.js';

/** The name of a check a policy can hold (docs/report.md, "Policy"): one per check the library declares. */
export const CheckName = z.enum(CHECK_NAMES);
export type CheckName = z.infer<typeof CheckName>;

/** One threshold: which check, the comparator and the threshold value. */
export const PolicyCheck = z.object({
  name: CheckName,
  /** Which figure is compared, as a report.json path relative to the pair. */
  metric: z.string(),
  comparator: z.enum(['>=', '<=']),
  threshold: z.number(),
  source: z.string().optional(),
  enabled: z.boolean().default(true),
});
export type PolicyCheck = z.infer<typeof PolicyCheck>;

/** A set of thresholds to judge pairs by (`--policy file.json`; docs/report.md, "Policy"). */
export const Policy = z.object({
  schema_version: z.literal(1),
  name: z.string().min(1),
  calibration_status: z.enum(['uncalibrated', 'calibrated']),
  description: z.string(),
  checks: z.array(PolicyCheck).min(1),
  /** Where the thresholds came from, when `fidelity calibrate --policy-out` wrote the policy (docs/calibration.md). */
  calibration: z
    .object({
      n: z.number().int().min(0),
      alpha: z.number(),
      tool_version: z.string(),
      sources: z.array(z.object({ run_id: z.number().int(), run_attempt: z.number().int(), gpu_model: z.string(), seal_sha256: z.string() })),
    })
    .optional(),
});
export type Policy = z.infer<typeof Policy>;

/** How one check ended for one pair: `pass`, `fail`, `not_applicable` or `inconclusive` (an invalid pair). */
export const CheckOutcome = z.enum(['pass', 'fail', 'not_applicable', 'inconclusive']);
export type CheckOutcome = z.infer<typeof CheckOutcome>;

/** One check of one pair in the report: the measured value, the threshold, the outcome and why. */
export const CheckResult = z.object({
  name: CheckName,
  outcome: CheckOutcome,
  /** The measured figure; null when it does not exist (identical streams, no audio, invalid pair). */
  value: z.number().nullable(),
  threshold: z.number(),
  comparator: z.enum(['>=', '<=']),
  /** Why the value is null or the outcome is not pass/fail (e.g. identical, no_audio, baseline_silent). */
  note: z.string().nullable(),
});
export type CheckResult = z.infer<typeof CheckResult>;
