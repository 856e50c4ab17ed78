import { describeCi } from './identity.js';
import type { RunSummary, VerifiedRun } from './types.js';

/** The facts a person checks first about a run, counted from its records. */
export function summarizeRun(run: VerifiedRun): RunSummary {
  const count = (kind: 'warmup' | 'measurement', status: 'ok' | 'failed') =>
    run.records.filter((r) => r.kind === kind && r.status === status).length;
  const { ci, plan } = run;
  return {
    source: run.source,
    site: ci.hardware.gpu_model,
    ...describeCi(ci),
    hardware: ci.hardware,
    plan: { plan_id: plan.plan_id, plan_sha256: run.plan_sha256, cases: plan.cases.length, repetitions: plan.repetitions, warmup_runs: plan.warmup_runs },
    slots: {
      planned: plan.warmup_runs + plan.repetitions * plan.cases.length,
      warmup: { ok: count('warmup', 'ok'), failed: count('warmup', 'failed') },
      measurement: { ok: count('measurement', 'ok'), failed: count('measurement', 'failed') },
    },
    digest: run.digest,
    provenance: { attested_by: run.provenance.attested_by, file: run.provenance.file },
    links: run.links,
  };
}
