/**
 * `--junit FILE` and the job summary (`--summary FILE`, else the file
 * GITHUB_STEP_SUMMARY names) of compare and merge (docs/ci.md): where they
 * go is checked before any run is read; the JUnit file is written and the
 * summary appended only once the bundle is written; a refusal (exit 2)
 * writes no JUnit file and appends the reason codes to the summary.
 */
import { appendJobSummary, checkCiOutputs, isFidelityError, jobSummary, junitXml, refusalSummary, writeJunitFile, type CiOutputs, type CompareResult } from 'media-fidelity';
import { bundleSize } from './bundle-size.js';
import type { OptionSpec } from './types.js';

/** The CI files asked for: `--junit`, and `--summary` or else GITHUB_STEP_SUMMARY (ignored when empty). */
export function ciTargets(values: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): CiOutputs {
  const summary = typeof values.summary === 'string' ? values.summary : env.GITHUB_STEP_SUMMARY ? env.GITHUB_STEP_SUMMARY : undefined;
  return { ...(typeof values.junit === 'string' ? { junit: values.junit } : {}), ...(summary !== undefined ? { summary } : {}) };
}

/** Checks where the files go, before any work (CI_OUTPUT_INVALID). Inputs: every run, partial, policy and calibration file the command reads. */
export async function checkCiTargets(targets: CiOutputs, out: string, inputs: string[]): Promise<void> {
  if (targets.junit === undefined && targets.summary === undefined) return;
  await checkCiOutputs(targets, { out, inputs });
}

/** After the bundle is written: the JUnit file (atomically), then the summary (appended). */
export async function writeCiTargets(targets: CiOutputs, result: CompareResult): Promise<void> {
  if (targets.junit !== undefined) await writeJunitFile(targets.junit, junitXml(result.report));
  if (targets.summary !== undefined) {
    const size = bundleSize(result.out);
    await appendJobSummary(targets.summary, jobSummary(result.report, { path: result.out, files: result.files, seal_sha256: result.seal_sha256, bytes: size?.total ?? null, media_bytes: size?.media ?? null }));
  }
}

/** On a refusal: the reason codes appended to the summary, when its place was checked already. Best effort: the refusal is what is reported. */
export async function summarizeRefusal(targets: CiOutputs | null, command: string, error: unknown): Promise<void> {
  if (!targets?.summary || !isFidelityError(error) || error.code === 'INTERNAL' || error.code === 'ABORTED' || error.code === 'CI_OUTPUT_INVALID') return;
  await appendJobSummary(targets.summary, refusalSummary(command, error.problems)).catch(() => undefined);
}
