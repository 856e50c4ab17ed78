/**
 * Runs whose baseline's own repetitions differ, for the `repeatability` tests: generated H200 (the
 * baseline), B200 and H200R runs that repeat the first `cases` cases twice, the H200 run's second
 * repetition of spoken-greeting-s29 (case 1, one the rerun changes) replaced by the rerun's clip of
 * that case (nondeterminism-sized noise) and the run resealed, as a producer would. That case's own
 * repetitions then differ; every other case's are bit-identical.
 */
import { copyFileSync } from 'node:fs';
import path from 'node:path';
import { generateRuns } from '../../src/synth/index.js';
import { reseal } from '../../../../test/e2e/helpers.js';

/** The case whose baseline repetitions differ, and one whose are bit-identical. */
export const DIFFERING = 'spoken-greeting-s29';
export const IDENTICAL = 'spoken-greeting-s11';

/** Writes the runs under `outDir`; returns the baseline's and the B200 candidate's folders. */
export async function repetitionRuns(outDir: string, cases: number): Promise<{ base: string; cand: string }> {
  const runs = await generateRuns({ outDir, size: 'small', sites: ['H200', 'B200', 'H200R'], cases, repetitions: 2 });
  const dir = (site: string): string => runs.runs.find((r) => r.site === site)!.dir;
  copyFileSync(path.join(dir('H200R'), 'media', 'measurement-r000-c001.mp4'), path.join(dir('H200'), 'media', 'measurement-r001-c001.mp4'));
  reseal(dir('H200'));
  return { base: dir('H200'), cand: dir('B200') };
}
