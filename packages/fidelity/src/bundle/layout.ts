/**
 * Where things live inside a bundle, and inside a partial, which holds its
 * pair files at the same paths (docs/report.md, "The bundle"). Every
 * writer and reader of those folders names a path through these functions.
 */
import type { VerifiedRun } from '../archive/types.js';

/** `<run_id>-<run_attempt>`: a run's name in bundle paths and pair ids. */
export function runKey(run: Pick<VerifiedRun, 'ci'>): string {
  return `${run.ci.run_id}-${run.ci.run_attempt}`;
}

/** The folder of a run's source metadata (ci.json, plan.json, run.json, original-SHA256SUMS). */
export function sourcesDir(run: Pick<VerifiedRun, 'ci'>): string {
  return `sources/${runKey(run)}`;
}

/** A media copy, named by its sealed SHA-256 so a file both runs share is stored once. */
export function mediaPath(sha256: string): string {
  return `media/${sha256}.mp4`;
}

/** Bundle-relative path of a run's power audit sidecar. */
export function powerAuditPath(run: Pick<VerifiedRun, 'ci'>): string {
  return `power/${runKey(run)}.json`;
}

/** Folder-relative folder of one comparison's per-pair files, the same in a bundle and in a partial. */
export function comparisonDir(candidate: Pick<VerifiedRun, 'ci'>): string {
  return `pairs/${runKey(candidate)}`;
}
