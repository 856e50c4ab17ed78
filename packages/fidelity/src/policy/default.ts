/**
 * The example policy (docs/report.md, "Policy and outcomes"), shipped as the default. Its numbers come
 * from other projects' examples and were never calibrated on this workload,
 * which is why `calibration_status` says so and every report repeats it.
 */
import type { CheckName, Policy } from '../schemas/policy.js';
import { CHECKS } from './checks.js';
import { counted } from '../words.js';

/** The example thresholds (uncalibrated: not a quality or release verdict), used when no policy is given. */
export const DEFAULT_POLICY: Policy = {
  schema_version: 1,
  name: 'example-uncalibrated',
  calibration_status: 'uncalibrated',
  description:
    'Example thresholds from metrics.md (SGLang and InferenceX examples). Not calibrated on this workload: a pass or a fail is not a quality or release verdict.',
  // The checks in declaration order, each with its example figure, comparator, threshold and source.
  checks: Object.entries(CHECKS).map(([name, d]) => ({ name: name as CheckName, ...d.example, enabled: true })),
};

/** Said in report.json and on every page, whatever the policy. */
export function disclaimerFor(policy: Policy): string {
  const c = policy.calibration;
  const head =
    policy.calibration_status === 'uncalibrated'
      ? `The thresholds of policy "${policy.name}" are uncalibrated examples.`
      : c
        ? `The thresholds of policy "${policy.name}" were calibrated by fidelity ${c.tool_version} from n = ${counted(c.n, 'same-hardware pair')} of ${c.sources.map((s) => `${s.gpu_model} run ${s.run_id}-${s.run_attempt}`).join(', ')}: each is the worst value the same hardware produced.`
        : `The thresholds of policy "${policy.name}" are declared calibrated by the policy file itself; this tool did not calibrate them.`;
  return `${head} A pass or a fail against them is not a quality or release verdict: read the measurements, not the labels.`;
}
