/**
 * The shared test data the heavy files use (see test/shared/store.ts and docs/testing.md):
 * the reference comparison of the committed fixtures, its shard partials, and generated runs.
 * Each is built once per test run, by the library in-process (the demo by the built CLI), and must
 * not be written to.
 */
import { mkdirSync, readdirSync, rmdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compare } from '../../packages/fidelity/src/compare.js';
import { generateRuns, type GeneratedRuns, type GenerateRunsOptions } from '../../packages/fidelity/src/synth/index.js';
import { parseOptions } from '../../packages/fidelity/src/synth/options.js';
import { RUN_FORMAT_SUFFIX, writeRunArchive } from '../../packages/fidelity/src/synth/archive-file.js';
import { cli, type CliResult } from '../e2e/helpers.js';
import { inputDigest, REPO, shared, type Shared } from './store.js';

export const FIXTURE_RUNS = path.join(REPO, 'fixtures', 'runs');
/** The SOURCE_DATE_EPOCH of every shared bundle and partial: 2025-11-29T21:00:00Z. */
export const SHARED_EPOCH = '1764450000';
const generatedAt = () => new Date(Number(SHARED_EPOCH) * 1000);

export type FixtureSite = 'h200' | 'b200' | 'h100';
const site = (s: FixtureSite) => path.join(FIXTURE_RUNS, s);
const inputsOf = (sites: readonly FixtureSite[]) => sites.map((s) => [s, inputDigest(site(s))]);

/**
 * compare(h200, candidates) of the committed fixtures at SHARED_EPOCH, two threads: the folder is
 * the bundle, byte for byte what compare() writes with that SOURCE_DATE_EPOCH.
 */
export function fixtureBundle(candidates: readonly FixtureSite[]): Promise<Shared<null>> {
  return shared('fixture-bundle', { baseline: inputsOf(['h200']), candidates: inputsOf(candidates), threads: 2, epoch: SHARED_EPOCH }, async (dir) => {
    // compare() makes --out itself, as a user's run would.
    rmdirSync(dir);
    await compare(site('h200'), candidates.map(site), { out: dir, threads: 2, generatedAt: generatedAt() });
    return null;
  });
}

/**
 * The partials of compare(h200, candidates) in `count` shards at SHARED_EPOCH, two threads: the
 * folder holds one partial per shard, named by its index (0, 1, ...), as merge --partials reads them.
 */
export function fixturePartials(candidates: readonly FixtureSite[], count: number): Promise<Shared<null>> {
  return shared(`fixture-partials-${count}`, { baseline: inputsOf(['h200']), candidates: inputsOf(candidates), count, threads: 2, epoch: SHARED_EPOCH }, async (dir) => {
    for (let k = 0; k < count; k++) {
      await compare(site('h200'), candidates.map(site), { out: path.join(dir, String(k)), shard: { index: k, count }, threads: 2, generatedAt: generatedAt() });
    }
    return null;
  });
}

/**
 * generateRuns(options) into the entry's folder: its GeneratedRuns, whose paths point there. The key is
 * the options as the generator reads them (its defaults filled in), so `{ size: 'small' }` and `{}`
 * are one entry.
 */
export async function generatedRuns(options: Omit<GenerateRunsOptions, 'outDir' | 'onProgress' | 'signal' | 'overwrite'>): Promise<GeneratedRuns> {
  const { outDir: _, ...resolved } = parseOptions({ ...options, outDir: '-' });
  const entry = await shared('generated-runs', resolved, (dir) => generateRuns({ ...options, outDir: path.join(dir, 'runs') }));
  return entry.meta;
}

/**
 * The runs of generatedRuns(options), each packed as a `format` archive with its `<file>.sha256`
 * beside it (writeRunArchive, as generateRuns({ format }) packs them): packed once per test run
 * from the folder entry instead of encoded again. Its GeneratedRuns is the folder entry's, with
 * each run's `dir` the archive.
 */
export async function archivedRuns(options: Parameters<typeof generatedRuns>[0], format: 'zip' | 'tar.gz'): Promise<GeneratedRuns> {
  const folders = await generatedRuns(options);
  const entry = await shared(`archived-runs`, { runs: folders.runs.map((r) => [r.site, inputDigest(r.dir)]), format }, async (dir) => {
    const runs: GeneratedRuns['runs'] = [];
    for (const run of folders.runs) {
      const target = path.join(dir, path.basename(run.dir) + RUN_FORMAT_SUFFIX[format]);
      await writeRunArchive(run.dir, target, format);
      runs.push({ ...run, dir: target, format, digest_file: `${target}.sha256` });
    }
    return { ...folders, runs };
  });
  return entry.meta;
}

/** What `fidelity compare` of the fixtures, run once by {@link fixtureCliCompare}, did (its exit code, its --json document on stdout, its stderr): for the e2e tests to judge. */
export interface CliCompareRun extends CliResult {
  /** The bundle it wrote, its JUnit file and the job summary it appended to (absolute: inside the entry). */
  bundle: string;
  junit: string;
  summary: string;
}

/** The text the job summary of {@link fixtureCliCompare} held before the compare appended to it. */
const EARLIER_STEP = '# an earlier step\n';

/**
 * `fidelity compare h200 b200 h100 --json --threads 2 --junit` of the committed fixtures, through
 * the built CLI, with SOURCE_DATE_EPOCH at SHARED_EPOCH and GITHUB_STEP_SUMMARY naming a summary
 * that held an earlier step's text ({@link EARLIER_STEP}). The CLI's end-to-end compare test reads
 * its output and bundle, the diff test its bundle, JUnit file and summary: one 20-pair compare
 * instead of one in each. Its meta says what the command did.
 */
export function fixtureCliCompare(): Promise<Shared<CliCompareRun>> {
  const sites: FixtureSite[] = ['h200', 'b200', 'h100'];
  return shared('fixture-cli-compare', { runs: inputsOf(sites), threads: 2, epoch: SHARED_EPOCH, earlier: EARLIER_STEP }, async (dir) => {
    const bundle = path.join(dir, 'bundle');
    const junit = path.join(dir, 'junit.xml');
    const summary = path.join(dir, 'step-summary.md');
    writeFileSync(summary, EARLIER_STEP);
    const r = await cli(['compare', ...sites.map(site), '--out', bundle, '--json', '--threads', '2', '--junit', junit], {
      env: { SOURCE_DATE_EPOCH: SHARED_EPOCH, GITHUB_STEP_SUMMARY: summary },
    });
    return { ...r, bundle, junit, summary };
  });
}

/** What `fidelity demo --json`, run once by {@link demoBundle}, did (its exit code, stdout and stderr): for the e2e test to judge. */
export interface DemoRun extends CliResult {
  /** The folder it ran in (relative to the entry), and what that folder held afterwards. */
  cwd: string;
  cwdEntries: string[];
  /** Folders of generated runs (`fidelity-demo-runs-*`) the demo left in the temp folder. */
  leftRuns: string[];
  /** The bundle it wrote (relative to the entry): `<cwd>/fidelity-demo`. */
  bundle: string;
}

/**
 * The demo's bundle, made by `fidelity demo --json` itself (the built CLI, docs: README, "Quick
 * start") in an empty folder, with SOURCE_DATE_EPOCH at SHARED_EPOCH: the small generated H200,
 * B200, H100 and H200 rerun runs with four repetitions, the H200 noise floor calibrated from H200
 * and its rerun, then H200 compared against B200 and H100. The demo is the suite's largest
 * comparison (80 pairs, 100 calibrated), so the command's end-to-end test and the page's browser
 * test share this one run; its meta says what the command did.
 */
export function demoBundle(): Promise<Shared<DemoRun>> {
  return shared('demo-bundle', { epoch: SHARED_EPOCH }, async (dir) => {
    const cwd = path.join(dir, 'work');
    mkdirSync(cwd);
    const runsIn = () => new Set(readdirSync(os.tmpdir()).filter((f) => f.startsWith('fidelity-demo-runs-')));
    const before = runsIn();
    // About 70 s of wall on 2 idle cores; far more while the other worker is busy.
    const r = await cli(['demo', '--json'], { cwd, env: { SOURCE_DATE_EPOCH: SHARED_EPOCH }, timeoutMs: 900_000 });
    return {
      ...r,
      cwd: 'work',
      cwdEntries: readdirSync(cwd),
      leftRuns: [...runsIn()].filter((f) => !before.has(f)),
      bundle: path.join('work', 'fidelity-demo'),
    };
  });
}

/** The smallest generated runs a comparison can be made of: H200 and B200, two plan cases of small clips. */
export const smallRuns = (): Promise<GeneratedRuns> => generatedRuns({ sites: ['H200', 'B200'], cases: 2 });

/** The folder of one generated run by site. */
export const runDir = (runs: GeneratedRuns, siteName: string): string => runs.runs.find((r) => r.site === siteName)!.dir;
