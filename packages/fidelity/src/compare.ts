/**
 * compare(): the whole flow as a composition of its phases (comparison/),
 * each on the previous phase's typed result (design/architecture.md):
 *   plan     verify every run, refuse differing workloads, pair slots, and
 *            number the pairs (comparison/plan.ts);
 *   measure  the pool over all pairs, or over one shard's (comparison/measure.ts);
 *   assemble judge against the policy into the report model (comparison/assemble.ts);
 *   write    the bundle (comparison/write.ts), or a shard's partial
 *            (shard/write-partial.ts) that `merge` turns into the same bundle.
 * Every refusal happens before `out` is touched; the output is written in a
 * temp folder and renamed into place, so `out` is never half-written.
 */
import { checkOut } from './output/atomic.js';
import { claimOut } from './output/out-guard.js';
import { assembleReport, decoderIdentity } from './comparison/assemble.js';
import { withContainerReaders } from './comparison/container-readers.js';
import { measureOwnRepetitionsOn, measurePairsOn, measureSettingsOf } from './comparison/measure.js';
import { planComparison, planSettingsOf } from './comparison/plan.js';
import { writeBundle } from './comparison/write.js';
import { filesAhead, type FilesAhead } from './comparison/files-ahead.js';
import { invalidParameter } from './errors.js';
import { resolveFfmpeg, type ResolveOptions } from './media/ffmpeg.js';
import type { PairCapture } from './media/frames.js';
import { AUDIO_DIFF_SECONDS } from './bundle/assets-keys.js';
import { DEFAULT_POLICY } from './policy/default.js';
import { defaultThreadCount } from './pool/threads.js';
import { startPoolThreads, type PoolThreads } from './pool/pool.js';
import { parsePolicy } from './policy/load.js';
import { checkPolicyMetrics, examplePolicyFor } from './policy/metric-set.js';
import { resolveMetrics, type MetricSelection, type MetricsSpec } from './metrics/names.js';
import type { Policy } from './schemas/policy.js';
import { checkShard, shardIndices, type ShardSpec } from './shard/spec.js';
import { writePartial, type PartialResult } from './shard/write-partial.js';
import { resolveGeneratedAt } from './time.js';
import { checkAlpha, DEFAULT_ALPHA, judgeNoise } from './calibrate/apply.js';
import { parseCalibration } from './calibrate/load.js';
import type { Calibration } from './calibrate/schema.js';
import type { CompareProgress, CompareResult } from './comparison/types.js';
import { checkTempDirs } from './temp.js';
import { checkBounded } from './bounds.js';

/** Options of compare(); the runs are positional. */
export interface CompareOptions {
  /**
   * The bundle folder (with `shard`, the partial's folder). It ends up either the complete new bundle
   * or exactly as it was: the bundle is built in a hidden folder beside it and renamed into place.
   * An absent or empty folder is taken; a bundle this tool sealed (a partial, with `shard`) is
   * replaced; any other folder that is not empty is refused with `OUT_NOT_EMPTY` unless `force`,
   * and a file or a symbolic link with `OUT_NOT_DIRECTORY`. A bundle is not replaced by a partial,
   * nor a partial by a bundle, without `force`.
   */
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
  /** Make every run prove its identity with a provenance file from fetchRun beside its zip (docs/provenance.md). */
  requireProvider?: boolean;
  /** Which ffmpeg and ffprobe measure and extract (default: resolved as {@link resolveFfmpeg} does); the report records both binaries. */
  ffmpeg?: ResolveOptions;
  /**
   * Wall-clock limit of each ffmpeg/ffprobe child, in milliseconds (measuring
   * and the bundle's stills and audio). A child past it is killed with its
   * whole process group and its pair is invalid with DECODE_TIMEOUT.
   */
  timeoutMs?: number;
  /** Cancels the comparison: the ffmpeg children are killed, `out` is left as it was, and the promise rejects with a FidelityError `ABORTED`. */
  signal?: AbortSignal;
  /** The report's generated_at; default SOURCE_DATE_EPOCH when set (a malformed one is refused), else now. */
  generatedAt?: Date;
  /** Where zip / tar.gz runs are unpacked while they are read (default the OS temp folder). */
  tempDir?: string;
  /** Told each step as it happens: runs verified, pairs measured (with their frames), bundle files written. */
  onProgress?: (event: CompareProgress) => void;
  /**
   * Measure only shard `index` of `count` (pairs whose index j in the ordered
   * pair list has j mod count == index) and write a partial to `out` instead
   * of a bundle; `merge` turns all partials into the bundle. Every run is
   * still verified. See docs/scale-out.md.
   */
  shard?: ShardSpec;
  /**
   * A same-hardware noise sample (calibrate()): every valid pair gets a
   * p-value per metric against it and a Bonferroni verdict
   * (docs/calibration.md). It must be of the same decoder, metric
   * definitions, workload and baseline hardware class
   * (CALIBRATION_MISMATCH_* otherwise). Not with `shard`: merge adds it.
   */
  calibration?: Calibration;
  /** Significance level of the noise verdicts (default 0.05). */
  alpha?: number;
  /**
   * The metric set (docs/metrics.md, "Metric sets"): `default` (Gaussian `ssim`, `ssim_ffmpeg`,
   * `psnr_y`, pooled RGB `psnr_db`/`mae`, audio), `all` (adds `ssim_rgb7`), `ffmpeg` (`ssim_ffmpeg`
   * and `psnr_y` only: no rgb24 decode, no audio), `inferencex` (`psnr_db`, `mae`, audio), or a
   * comma-separated list / array of those metric names. Default `default`. report.json records it.
   */
  metrics?: MetricsSpec;
  /**
   * Also measure the baseline run's own repetitions (docs/report.md, "Repeated requests"): in each
   * case whose plan repeats it, every repetition whose sealed bytes differ from repetition 0 of the
   * same run is measured against it like a pair (the same metric set, decoder and media checks) and
   * its figures judged by the policy's checks, as a diagnosis beside the cross-hardware finding:
   * `comparisons[].cases[].own_repetitions_measured`. Bit-identical repetitions are not measured.
   * Default false: the report then has no such field. Not with `shard`: merge measures them.
   */
  repeatability?: boolean;
}

/**
 * Verifies every run, checks they ran the same workload, pairs each candidate's slots with the
 * baseline's, decodes and measures every pair in a worker pool, judges the pairs against the policy
 * (by default uncalibrated example thresholds) and writes the sealed bundle to `options.out`
 * (docs/report.md). `out` is either a complete bundle or left exactly as it was. With
 * `options.shard`, measures that shard's pairs only and writes a partial (see {@link merge}).
 *
 * @throws FidelityError `INVALID_ARGUMENT` for bad arguments; `RUN_INVALID` when a run fails
 *   verification (its codes in `problems`), `DUPLICATE_RUN`, `PLAN_MISMATCH` (one problem per
 *   differing field), `POLICY_INVALID`, `OUT_NOT_EMPTY`, `OUT_NOT_DIRECTORY`, `OUT_INSIDE_INPUT`,
 *   `OUT_CONTAINS_INPUT`, `OUT_PATH_INVALID`, `OUT_LOCKED`, `POLICY_METRIC_NOT_COMPUTED`, `OUT_NOT_WRITABLE`, `MEDIA_CHANGED`, `FFMPEG_NOT_FOUND` /
 *   `FFMPEG_BROKEN`, `SOURCE_DATE_EPOCH_INVALID`, `ABORTED`.
 *   A pair that cannot be measured is not an exception: it is `invalid` in the report, with its reason.
 * @example
 * ```ts
 * const result = await compare('runs/h200', ['runs/b200.zip', 'runs/h100.tar.gz'], { out: 'bundle', threads: 4 });
 * for (const c of result.report.comparisons) console.log(c.candidate_gpu_model, c.summary);
 * console.log(result.index); // bundle/index.html
 * ```
 */
export function compare(baseline: string, candidates: readonly string[], options: CompareOptions & { shard: ShardSpec }): Promise<PartialResult>;
export function compare(baseline: string, candidates: readonly string[], options: CompareOptions & { shard?: undefined }): Promise<CompareResult>;
export function compare(baseline: string, candidates: readonly string[], options: CompareOptions): Promise<CompareResult | PartialResult>;
export async function compare(baseline: string, candidates: readonly string[], options: CompareOptions): Promise<CompareResult | PartialResult> {
  if (typeof baseline !== 'string' || baseline.length === 0) throw invalidParameter('baseline', 'a run path', baseline);
  if (!Array.isArray(candidates) || candidates.length === 0) throw invalidParameter('candidates', 'at least one candidate run path', candidates);
  if (!options || typeof options.out !== 'string' || options.out.length === 0) throw invalidParameter('options.out', 'a folder path', options?.out);
  checkBounded('threads', options.threads);
  checkBounded('timeoutMs', options.timeoutMs);
  const shard = options.shard === undefined ? null : checkShard(options.shard);
  if (shard && options.calibration) throw invalidParameter('options.calibration', 'no calibration with a shard (merge adds the noise verdicts: give it to merge)', 'a calibration');
  // Every shard count must give the same bundle: the baseline's own repetitions are measured by merge, which has every run, never split across shards.
  if (shard && options.repeatability) throw invalidParameter('options.repeatability', 'no repeatability with a shard (merge measures the baseline\'s own repetitions: give it to merge)', true);
  const calibration = options.calibration ? parseCalibration(options.calibration, 'options.calibration') : null;
  const alpha = checkAlpha(options.alpha ?? DEFAULT_ALPHA);
  const metrics = resolveMetrics(options.metrics);
  // A check on a metric this set does not compute is refused now, before any run is read.
  const policy = options.policy ? parsePolicy(options.policy, 'options.policy') : examplePolicyFor(DEFAULT_POLICY, metrics);
  checkPolicyMetrics(policy, metrics, options.policy ? 'options.policy' : 'the example policy');
  const generatedAt = resolveGeneratedAt(options.generatedAt);
  const inputs = [baseline, ...candidates];
  // A temp folder that cannot be made or written is refused before any work, like --out.
  await checkTempDirs(options.tempDir);
  // Every --out refusal (real paths, what it holds, writable, locked) comes before any work.
  // A shard writes a partial, compare a bundle: neither replaces the other's kind (checkOut).
  const claim = await claimOut(options.out, inputs, Boolean(options.force), (out, force) => checkOut(out, force, shard ? 'partial' : 'bundle'), shard ? '--partial' : '--out');
  try {
    return await compareClaimed(baseline, candidates, options, { shard, policy, generatedAt, calibration, alpha, metrics });
  } finally {
    await claim.release();
  }
}

/** What compare settled from its options before the runs are read: the shard, the policy, the time, the calibration, alpha and the metric set. */
interface Settled {
  shard: ShardSpec | null;
  policy: Policy;
  generatedAt: Date;
  calibration: Calibration | null;
  alpha: number;
  metrics: MetricSelection;
}

async function compareClaimed(
  baseline: string,
  candidates: readonly string[],
  options: CompareOptions,
  settled: Settled,
): Promise<CompareResult | PartialResult> {
  // The pool's threads start now and load the measuring modules while the runs are verified (a
  // thread's start is about 0.1 s of a core): the first pair finds them ready.
  const threads = startPoolThreads(options.threads ?? defaultThreadCount());
  try {
    return await compareOnThreads(baseline, candidates, options, settled, threads);
  } finally {
    await threads.destroy();
  }
}

async function compareOnThreads(
  baseline: string,
  candidates: readonly string[],
  options: CompareOptions,
  settled: Settled,
  threads: PoolThreads,
): Promise<CompareResult | PartialResult> {
  const { shard, policy, generatedAt, calibration, alpha, metrics } = settled;
  // The toolchain's check (a process start and a hash per binary) runs while the archives are
  // verified; a missing or broken ffmpeg is still the error reported first.
  const [resolved, planned] = await Promise.allSettled([resolveFfmpeg(options.ffmpeg), planComparison(baseline, candidates, planSettingsOf(options))]);
  if (resolved.status === 'rejected') {
    if (planned.status === 'fulfilled') await planned.value.close();
    throw resolved.reason;
  }
  if (planned.status === 'rejected') throw planned.reason;
  const [tools, plan] = [resolved.value, planned.value];
  let ahead: FilesAhead | null = null;
  try {
    const noise = calibration ? judgeNoise(calibration, alpha, { decoderSha256: tools.ffmpeg.sha256, baseline: plan.baseline }) : null;
    const refs = shard ? shardIndices(plan.pairs.length, shard).map((j) => plan.pairs[j]!) : plan.pairs;
    // The bundle (or a shard's partial) takes each pair's stills and difference audio from the measuring decode.
    const captures = new Map<string, PairCapture>();
    // Each pair's files are made while later pairs are measured, from what measuring kept.
    ahead = filesAhead(captures);
    const measured = await measurePairsOn(plan, refs, {
      keep: { audioSeconds: AUDIO_DIFF_SECONDS, captures, onMeasured: ahead.onMeasured },
      ...measureSettingsOf(options, metrics.list, (e) => options.onProgress?.({ stage: 'measure', ...e })),
      threadsFrom: threads,
    });
    const repetitions =
      options.repeatability && !shard
        ? await measureOwnRepetitionsOn(plan, { ...measureSettingsOf(options, metrics.list, (e) => options.onProgress?.({ stage: 'repetitions', ...e })), threadsFrom: threads })
        : undefined;
    // Measuring is over: the threads' memory goes before the bundle's stills and audio are made.
    await threads.destroy();
    const common = {
      force: Boolean(options.force),
      // The cores measuring used now make several pairs' stills and difference audio at once.
      threads: options.threads ?? defaultThreadCount(),
      ffmpeg: options.ffmpeg ?? {},
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    };
    if (shard) {
      return await writePartial(options.out, plan, measured, {
        ...common,
        shard,
        policy,
        metrics,
        decoder: decoderIdentity(tools),
        generatedAt,
        captures,
        made: ahead.made,
        onProgress: (e) => options.onProgress?.({ stage: 'bundle', ...e }),
      });
    }
    const decoder = await withContainerReaders(decoderIdentity(tools), plan.runs);
    const assembled = assembleReport(plan, measured, { policy, metrics, decoder, generatedAt, ...(repetitions ? { repetitions } : {}) });
    const report = noise ? noise.apply(assembled) : assembled;
    return await writeBundle(options.out, plan, report, {
      ...common,
      ...(noise ? { files: [noise.file] } : {}),
      captures,
      made: ahead.made,
      onProgress: (e) => options.onProgress?.({ stage: 'bundle', ...e }),
    });
  } finally {
    // A comparison that failed or was cancelled while measuring leaves no pair's files being made.
    await ahead?.settled();
    await plan.close();
  }
}
