/**
 * compare(): the whole flow, one stage after the other, each on the previous
 * stage's typed result (design/architecture.md):
 *   verify every run -> refuse differing workloads -> pair slots -> measure
 *   valid pairs in the pool -> judge against the policy -> write the bundle.
 * Every refusal happens before `out` is touched; the bundle is written in a
 * temp folder and renamed into place, so `out` is never half-written.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { verifyRun } from './archive/verify.js';
import type { VerifiedRun } from './archive/types.js';
import { checkOut, checkOutAgainstInputs, commitAtomically } from './bundle/atomic.js';
import { comparisonReport, evidenceFiles, pairReport, runKey, runReport, sourceName, sourcesDir } from './bundle/report-model.js';
import { SEAL_FILE } from './bundle/seal.js';
import { PAGES, writeBundleContents, type BundleMedia } from './bundle/write.js';
import { FidelityError, invalidParameter, type Problem } from './errors.js';
import { resolveFfmpeg, type ResolveOptions } from './media/ffmpeg.js';
import { workloadProblems } from './pairing/workload.js';
import { pairSlots, type PlannedPair } from './pairing/slots.js';
import { createMeasurePool } from './pool/pool.js';
import { defaultThreadCount } from './pool/threads.js';
import { DEFAULT_POLICY, disclaimerFor } from './policy/default.js';
import { parsePolicy } from './policy/load.js';
import type { MeasureOutcome } from './schemas/measurement.js';
import type { Policy } from './schemas/policy.js';
import type { Report } from './schemas/report.js';
import { TOOL_NAME, TOOL_VERSION } from './version.js';
import { checkAlpha, checkCalibrationMatches, DEFAULT_ALPHA, withNoise } from './calibrate/apply.js';
import { hardwareClass } from './calibrate/pairs.js';
import type { Calibration } from './calibrate/schema.js';
import { parseCalibration } from './calibrate/load.js';

export type CompareProgress =
  | { stage: 'verify'; done: number; total: number; run: string }
  | { stage: 'measure'; pairsDone: number; pairsTotal: number; framesDone: number; framesTotal: number }
  | { stage: 'bundle'; step: string; done: number; total: number };

export interface CompareOptions {
  /** The bundle folder. See bundle/atomic.ts for what happens when it exists. */
  out: string;
  /** Replace a non-empty `out` that is not a bundle. */
  force?: boolean;
  /** Thresholds; the example-uncalibrated policy when absent. */
  policy?: Policy;
  /**
   * Cores to keep busy (default: every available one): up to this many
   * pairs at once, and the cores left over per pair run its video helper
   * threads (MeasureOptions.videoThreads).
   */
  threads?: number;
  /** Make a missing artifact digest an error for every run. */
  requireDigest?: boolean;
  ffmpeg?: ResolveOptions;
  /** Per ffmpeg process wall-clock limit. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** The report's generated_at; fix it for byte-identical bundles. */
  generatedAt?: Date;
  /** Where zip / tar.gz runs are unpacked while they are read (default the OS temp folder). */
  tempDir?: string;
  onProgress?: (event: CompareProgress) => void;
  /**
   * A same-hardware noise sample (calibrate()): every valid pair gets a
   * p-value per metric against it and a Bonferroni verdict. It must be of the
   * same decoder, metric definitions, workload and baseline hardware class
   * (CALIBRATION_MISMATCH_* otherwise).
   */
  calibration?: Calibration;
  /** Significance level of the noise verdicts (default 0.05). */
  alpha?: number;
}

export interface CompareResult {
  /** The bundle folder, as given. */
  out: string;
  /** The English page inside it. */
  index: string;
  report: Report;
  /** Files sealed in SHA256SUMS (every file of the bundle but SHA256SUMS itself), as verify-bundle counts them. */
  files: number;
  /** SHA-256 of the bundle's SHA256SUMS: publish it to pin the whole bundle. */
  seal_sha256: string;
}

interface Planned {
  candidate: VerifiedRun;
  pairs: PlannedPair[];
  outcomes: (MeasureOutcome | null)[];
}

function prefixProblems(label: string, problems: readonly Problem[]): Problem[] {
  return problems.map((p) => ({
    ...p,
    message: `${label}: ${p.message}`,
    where: { ...p.where, file: p.where?.file ? `${label}/${p.where.file}` : label },
  }));
}

/** Verifies every input run (all of them, every problem reported), refusing invalid and duplicate runs; compare and calibrate share it. */
export async function verifyAll(inputs: readonly string[], options: Pick<CompareOptions, 'requireDigest' | 'tempDir' | 'signal' | 'onProgress'>): Promise<{ runs: VerifiedRun[]; warnings: string[][] }> {
  const runs: VerifiedRun[] = [];
  const warnings: string[][] = [];
  const problems: Problem[] = [];
  try {
    for (const [i, input] of inputs.entries()) {
      options.onProgress?.({ stage: 'verify', done: i, total: inputs.length, run: sourceName(input) });
      const result = await verifyRun(input, {
        ...(options.requireDigest ? { requireDigest: true } : {}),
        ...(options.tempDir ? { tempDir: options.tempDir } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      if (result.ok) {
        runs.push(result.run);
        warnings.push(result.warnings.map((w) => w.code));
      } else {
        const label = sourceName(input);
        problems.push({ code: 'RUN_INVALID', message: `${label} failed verification (${result.problems.length} problem(s) below)`, where: { file: label } });
        problems.push(...prefixProblems(label, result.problems));
      }
    }
    options.onProgress?.({ stage: 'verify', done: inputs.length, total: inputs.length, run: '' });
    if (problems.length) {
      const failed = problems.filter((p) => p.code === 'RUN_INVALID').length;
      throw new FidelityError('RUN_INVALID', `${failed} of ${inputs.length} runs failed verification; nothing was compared`, { problems });
    }
    const seen = new Map<string, string>();
    for (const [i, run] of runs.entries()) {
      const key = runKey(run);
      const label = sourceName(inputs[i]!);
      const earlier = seen.get(key);
      if (earlier !== undefined) {
        problems.push({ code: 'DUPLICATE_RUN', message: `${label} is run ${key}, already given as ${earlier}; each run may appear once` });
      }
      seen.set(key, label);
    }
    if (problems.length) throw new FidelityError('DUPLICATE_RUN', problems[0]!.message, { problems });
    return { runs, warnings };
  } catch (error) {
    await Promise.all(runs.map((r) => r.close()));
    throw error;
  }
}

function checkWorkloads(baseline: VerifiedRun, candidates: readonly VerifiedRun[], labels: readonly string[]): void {
  const problems = candidates.flatMap((c, i) => workloadProblems(baseline.plan, c.plan, labels[i]!));
  if (problems.length) {
    throw new FidelityError('PLAN_MISMATCH', `the candidate workload differs from the baseline in ${problems.length} field(s): ${problems.map((p) => p.where?.path).join(', ')}`, {
      problems,
    });
  }
}

async function measureAll(baseline: VerifiedRun, planned: Planned[], options: CompareOptions): Promise<void> {
  const jobs = planned.flatMap((p) => p.pairs.map((pair, i) => ({ p, pair, i })).filter((j) => j.pair.reasons.length === 0));
  if (jobs.length === 0) return;
  const frames = new Map<string, { done: number; total: number }>();
  const framesPerPair = baseline.plan.video.frames;
  let pairsDone = 0;
  const report = (): void => {
    let framesDone = 0;
    let framesTotal = 0;
    for (const j of jobs) {
      const f = frames.get(`${runKey(j.p.candidate)}/${j.pair.slot_id}`);
      framesDone += f?.done ?? 0;
      framesTotal += f?.total ?? framesPerPair;
    }
    options.onProgress?.({ stage: 'measure', pairsDone, pairsTotal: jobs.length, framesDone, framesTotal });
  };
  // One internal signal for every pair: each measure() listens on it, more than the default ten listeners.
  const controller = new AbortController();
  setMaxListeners(jobs.length + 10, controller.signal);
  const forward = (): void => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) forward();
  else options.signal?.addEventListener('abort', forward, { once: true });
  // `threads` is the cores to use: no more pair threads than pairs, and what is left goes to each pair's video helpers.
  const cores = options.threads ?? defaultThreadCount();
  const pool = createMeasurePool({
    threads: Math.max(1, Math.min(cores, jobs.length)),
    cores,
    ...(options.ffmpeg ? { ffmpeg: options.ffmpeg } : {}),
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
  });
  try {
    report();
    await Promise.all(
      jobs.map(async ({ p, pair, i }) => {
        const id = `${runKey(p.candidate)}/${pair.slot_id}`;
        const job = { id, baseline: await baseline.mediaPath(pair.slot_id), candidate: await p.candidate.mediaPath(pair.slot_id) };
        p.outcomes[i] = await pool.measure(job, {
          signal: controller.signal,
          onProgress: (progress) => {
            frames.set(id, { done: progress.framesDone, total: progress.framesTotal });
            report();
          },
        });
        // A pair refused before decoding (incompatible streams) reports no frames: count its planned frames as done.
        const total = frames.get(id)?.total ?? framesPerPair;
        frames.set(id, { done: total, total });
        pairsDone++;
        report();
      }),
    );
  } finally {
    options.signal?.removeEventListener('abort', forward);
    await pool.destroy();
  }
  if (options.signal?.aborted) throw new FidelityError('ABORTED', 'the comparison was cancelled; --out was left as it was');
}

/** Each distinct media file once, keyed by its sealed sha256, opened from the first run that has it. */
function distinctMedia(baseline: VerifiedRun, planned: Planned[]): BundleMedia[] {
  const media = new Map<string, BundleMedia>();
  const add = (run: VerifiedRun, pair: PlannedPair, side: 'baseline' | 'candidate'): void => {
    const entry = pair[side].media;
    if (!entry || media.has(entry.sha256)) return;
    media.set(entry.sha256, { sha256: entry.sha256, label: `${sourceName(run.source.path)}/${entry.path}`, open: () => run.mediaPath(pair.slot_id) });
  };
  for (const p of planned) {
    for (const pair of p.pairs) {
      add(baseline, pair, 'baseline');
      add(p.candidate, pair, 'candidate');
    }
  }
  return [...media.values()];
}

export async function compare(baseline: string, candidates: readonly string[], options: CompareOptions): Promise<CompareResult> {
  if (typeof baseline !== 'string' || baseline.length === 0) throw invalidParameter('baseline', 'a run path', baseline);
  if (!Array.isArray(candidates) || candidates.length === 0) throw invalidParameter('candidates', 'at least one candidate run path', candidates);
  if (!options || typeof options.out !== 'string' || options.out.length === 0) throw invalidParameter('options.out', 'a folder path', options?.out);
  if (options.threads !== undefined && (!Number.isInteger(options.threads) || options.threads < 1)) throw invalidParameter('options.threads', 'a positive integer', options.threads);
  const policy = options.policy ? parsePolicy(options.policy, 'options.policy') : DEFAULT_POLICY;
  const inputs = [baseline, ...candidates];
  checkOutAgainstInputs(options.out, inputs);
  await checkOut(options.out, Boolean(options.force));
  const tools = await resolveFfmpeg(options.ffmpeg);

  const { runs, warnings } = await verifyAll(inputs, options);
  try {
    const [base, ...cands] = runs as [VerifiedRun, ...VerifiedRun[]];
    checkWorkloads(base, cands, candidates.map(sourceName));
    const alpha = checkAlpha(options.alpha ?? DEFAULT_ALPHA);
    if (options.calibration) checkCalibrationMatches(parseCalibration(options.calibration, 'options.calibration'), { decoderSha256: tools.ffmpeg.sha256, planSha256: base.plan_sha256, baselineHardware: hardwareClass(base) });
    const planned: Planned[] = cands.map((candidate) => {
      const pairs = pairSlots(base, candidate);
      return { candidate, pairs, outcomes: pairs.map(() => null) };
    });
    await measureAll(base, planned, options);

    const judged = planned.map((p) => comparisonReport(base, p.candidate, p.pairs.map((pair, i) => pairReport(pair, p.outcomes[i] ?? null, policy))));
    const calibration = options.calibration;
    const comparisons = calibration ? judged.map((c) => withNoise(c, calibration, alpha, policy)) : judged;
    const report: Report = {
      schema_version: 1,
      generated_at: (options.generatedAt ?? new Date()).toISOString(),
      tool: { name: TOOL_NAME, version: TOOL_VERSION },
      decoder: {
        ffmpeg_version: tools.ffmpeg.version,
        sha256: tools.ffmpeg.sha256,
        source: tools.ffmpeg.source,
        ffprobe_version: tools.ffprobe.version,
        ffprobe_sha256: tools.ffprobe.sha256,
      },
      policy,
      disclaimer: disclaimerFor(policy),
      runs: runs.map((r, i) => runReport(r, i === 0 ? 'baseline' : 'candidate', warnings[i])),
      comparisons,
    };

    const written = await commitAtomically(options.out, Boolean(options.force), async (dir) => {
      const contents = await writeBundleContents(dir, {
        report,
        media: distinctMedia(base, planned),
        sources: runs.map((r) => ({ dir: sourcesDir(r), files: r.files })),
        comparisonDirs: cands.map((c) => `pairs/${runKey(c)}`),
        // The noise sample a calibrated report was judged against travels with it, sealed, so the verdicts can be recomputed.
        files: [...runs.flatMap(evidenceFiles), ...(calibration ? [{ path: 'calibration.json', text: `${JSON.stringify(calibration, null, 1)}\n` }] : [])],
        ffmpeg: options.ffmpeg ?? {},
        ...(options.signal ? { signal: options.signal } : {}),
        onProgress: (e) => options.onProgress?.({ stage: 'bundle', step: e.step, done: e.done, total: e.total }),
      });
      // Cancelled while writing: the finished temp folder is dropped rather than put in place.
      if (options.signal?.aborted) throw new FidelityError('ABORTED', 'the comparison was cancelled; --out was left as it was');
      return contents;
    });
    const seal = await readFile(path.join(options.out, SEAL_FILE));
    return {
      out: options.out,
      index: path.join(options.out, PAGES.en),
      report: written.report,
      files: written.files,
      seal_sha256: createHash('sha256').update(seal).digest('hex'),
    };
  } finally {
    await Promise.all(runs.map((r) => r.close()));
  }
}
