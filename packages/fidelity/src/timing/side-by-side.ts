/**
 * Server timing of several runs in one table. Different hardware is expected
 * to differ in latency, so this only sets the figures next to each other:
 * there is no threshold and no outcome.
 */
import { TIMING_STAGES, type ServerTimingReport, type TimingSideBySide } from './schemas.js';

/** One run's timing figures with the name the side-by-side table gives it. */
export interface TimedRun {
  run_id: number;
  run_attempt: number;
  gpu_model: string;
  timing: ServerTimingReport;
}

/** The server-timing stages of several runs side by side (descriptive, never judged). */
export function timingSideBySide(runs: readonly TimedRun[]): TimingSideBySide {
  return {
    descriptive: true,
    runs: runs.map((r) => ({ run_id: r.run_id, run_attempt: r.run_attempt, gpu_model: r.gpu_model, available: r.timing.available, reasons: r.timing.reasons })),
    stages: TIMING_STAGES.map((s) => ({
      stage: s.name,
      values: runs.map((r) => {
        const summary = r.timing.summary[s.name];
        return { n: summary?.n ?? 0, median_ms: summary?.median ?? null, p90_ms: summary?.p90 ?? null };
      }),
    })),
  };
}
