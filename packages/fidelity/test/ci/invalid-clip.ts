/**
 * A CI-report fixture shared by the JUnit and job-summary tests: the reference report with one
 * failed pair's candidate clip found blank, made invalid as compare reports it.
 */
import type { Report } from '../../src/schemas/report.js';

/** `r` (the reference report) with one failed pair's candidate clip found blank: invalid, as compare reports it. */
export function invalidClip(r: Report): Report {
  const c = r.comparisons[0]!;
  const p = c.pairs.find((x) => x.status === 'failed')!;
  p.status = 'invalid';
  p.reasons = ['CLIP_BLANK'];
  p.reason_details = [{ code: 'CLIP_BLANK', message: "candidate's clip: the clip is black in every frame", side: 'candidate' }];
  c.summary = { ...c.summary, failed: c.summary.failed - 1, invalid: c.summary.invalid + 1, valid_pairs: c.summary.valid_pairs - 1 };
  const run = r.runs.find((x) => x.run_id === c.candidate_run_id)!;
  // Derived from the run's own counts, so the fixture follows the reference as it is regenerated.
  const clips = run.clips!;
  const invalid = [...(clips.invalid ?? []), { slot_id: p.slot_id, code: 'CLIP_BLANK' }].sort((a, b) => (a.slot_id < b.slot_id ? -1 : 1));
  run.clips = { analysed: clips.analysed, valid: clips.valid - 1, invalid_by_code: { ...clips.invalid_by_code, CLIP_BLANK: (clips.invalid_by_code.CLIP_BLANK ?? 0) + 1 }, invalid };
  return r;
}

