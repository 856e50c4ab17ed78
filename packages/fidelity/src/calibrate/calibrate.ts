/**
 * calibrate(): the same-hardware noise sample of docs/calibration.md.
 *   verify every run -> one workload -> same-hardware pairs -> measure them
 *   in the pool compare uses (same metric code, same compatibility checks)
 *   -> calibration.json (and, when asked, a calibrated policy).
 */
import type { VerifiedRun } from '../archive/types.js';
import { sourceName } from '../archive/source.js';
import { verifyAll } from '../comparison/plan.js';
import { measureNoisePairs } from '../comparison/measure.js';
import { clipReasons } from '../comparison/report-model.js';
import { FidelityError, invalidParameter } from '../errors.js';
import { METRIC_DEFINITIONS_VERSION } from '../metrics/names.js';
import { createHash } from 'node:crypto';
import { resolveFfmpeg, type ResolveOptions } from '../media/ffmpeg.js';
import type { Policy, PolicyCheck } from '../schemas/policy.js';
import { CHECKS } from '../policy/checks.js';
import { TOOL_NAME, TOOL_VERSION } from '../version.js';
import { DEFAULT_ALPHA, checkAlpha } from './apply.js';
import { CALIBRATED_METRICS, calibratedMetric } from './metrics.js';
import { hardwareClass, noisePairs, olderFirst, type NoisePair } from './pairs.js';
import { Calibration } from './schema.js';
import { worstOf } from './stats.js';
import { checkTempDirs } from '../temp.js';
import { checkBounded } from '../bounds.js';
import { counted } from '../words.js';

/** Progress of calibrate(), in the stages of compare(). */
export type CalibrateProgress =
  | { stage: 'verify'; done: number; total: number; run: string }
  | { stage: 'measure'; pairsDone: number; pairsTotal: number };

/** Options of calibrate(). */
export interface CalibrateOptions {
  /** Cores to keep busy (default: every available one). */
  threads?: number;
  /** Make a missing artifact digest an error for every run. */
  requireDigest?: boolean;
  /** Which ffmpeg/ffprobe measure (default: resolved as {@link resolveFfmpeg} does). */
  ffmpeg?: ResolveOptions;
  /** Per ffmpeg process wall-clock limit. */
  timeoutMs?: number;
  /** Cancels: the ffmpeg children are killed and the promise rejects with a FidelityError `ABORTED`. */
  signal?: AbortSignal;
  /** The file's generated_at; fix it (SOURCE_DATE_EPOCH) for byte-identical files. */
  generatedAt?: Date;
  /** Where zip / tar.gz runs are unpacked while they are read (default the OS temp folder). */
  tempDir?: string;
  /** Told each step as it happens: runs verified, pairs measured. */
  onProgress?: (event: CalibrateProgress) => void;
}

/** What calibrate() returns: the calibration, ready to write as JSON. */
export interface CalibrateResult {
  calibration: Calibration;
}

const sortValues = (values: (number | null)[]): (number | null)[] =>
  values.sort((a, b) => (a === null ? (b === null ? 0 : 1) : b === null ? -1 : a - b));

function checkOneWorkload(runs: readonly VerifiedRun[], labels: readonly string[]): void {
  const first = runs[0]!.plan_sha256;
  const other = runs.findIndex((r) => r.plan_sha256 !== first);
  if (other >= 0) {
    throw new FidelityError('PLAN_MISMATCH', `${labels[other]} ran workload ${runs[other]!.plan_sha256.slice(0, 12)}…, ${labels[0]} ran ${first.slice(0, 12)}…: a calibration covers one workload (plan_sha256)`);
  }
}

/**
 * Measures every same-hardware pair the runs can form (repetitions inside a
 * run; every two runs of the same GPU model and count) and returns the noise
 * sample. Refusals (FidelityError): RUN_INVALID, DUPLICATE_RUN (a run given
 * twice: it cannot be paired with itself), PLAN_MISMATCH (runs of different
 * workloads), CALIBRATION_NO_PAIRS (no same-hardware pair can be formed).
 *
 * @example
 * const { calibration } = await calibrate(['runs/h200', 'runs/h200-rerun']);
 * await writeFile('calibration.json', JSON.stringify(calibration, null, 1));
 */
export async function calibrate(inputs: readonly string[], options: CalibrateOptions = {}): Promise<CalibrateResult> {
  if (!Array.isArray(inputs) || inputs.length === 0) throw invalidParameter('runs', 'at least one run path', inputs);
  checkBounded('threads', options.threads);
  checkBounded('timeoutMs', options.timeoutMs);
  await checkTempDirs(options.tempDir);
  const tools = await resolveFfmpeg(options.ffmpeg);
  const { runs } = await verifyAll(inputs, {
    ...(options.requireDigest ? { requireDigest: true } : {}),
    ...(options.tempDir ? { tempDir: options.tempDir } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onProgress ? { onVerify: (e) => options.onProgress!({ stage: 'verify', ...e }) } : {}),
  });
  try {
    checkOneWorkload(runs, inputs.map(sourceName));
    const pairs = noisePairs(runs);
    if (pairs.length === 0) {
      throw new FidelityError(
        'CALIBRATION_NO_PAIRS',
        'no same-hardware pair can be formed: give a run with repetitions > 1, or two or more runs of the same GPU model and count and the same workload',
      );
    }
    // Every pair in the pool compare uses; media that differ from the plan are excluded like any other invalid pair (MEDIA_PLAN_MISMATCH).
    const outcomes = await measureNoisePairs(pairs, runs[0]!.plan, {
      ...(options.threads !== undefined ? { threads: options.threads } : {}),
      ...(options.ffmpeg ? { ffmpeg: options.ffmpeg } : {}),
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onProgress ? { onProgress: (e) => options.onProgress!({ stage: 'measure', pairsDone: e.pairsDone, pairsTotal: e.pairsTotal }) } : {}),
    });
    const excluded: Calibration['excluded'] = [];
    const measured: Calibration['pairs'] = [];
    const values = new Map<string, (number | null)[]>(CALIBRATED_METRICS.map((m) => [m.key, []]));
    let floor: number[] = [];
    pairs.forEach((p) => {
      const o = outcomes.get(p.id);
      if (p.reason) return excluded.push({ pair: p.id, code: p.reason.code, message: p.reason.message });
      if (!o || !o.ok) return excluded.push({ pair: p.id, code: o ? o.failure.code : 'INTERNAL', message: o ? o.failure.message : 'not measured' });
      // A pair with an invalid clip is no sample of same-hardware noise (docs/metrics.md, "Clip validity"): excluded with its first code.
      const clips = o.measurement.clips;
      const invalid = clips ? clipReasons(clips) : [];
      if (invalid.length > 0) return excluded.push({ pair: p.id, code: invalid[0]!.code, message: invalid.map((r) => r.message).join('; ') });
      measured.push({ id: p.id, kind: p.kind, hardware: p.hardware, case_id: p.case_id });
      for (const m of CALIBRATED_METRICS) {
        const v = m.read(o.measurement);
        if (v !== undefined) values.get(m.key)!.push(v);
      }
      const perFrame = o.measurement.video.ssim?.per_frame ?? [];
      floor = perFrame.map((s, f) => (f < floor.length ? Math.min(floor[f]!, s) : s)).concat(floor.slice(perFrame.length));
    });
    const metrics: Calibration['metrics'] = {};
    for (const m of CALIBRATED_METRICS) {
      const v = values.get(m.key)!;
      if (v.length > 0) metrics[m.key] = { worse: m.worse, values: sortValues(v) };
    }
    const sorted = [...runs].sort(olderFirst);
    const calibration = Calibration.parse({
      schema_version: 1,
      definitions_version: METRIC_DEFINITIONS_VERSION,
      generated_at: (options.generatedAt ?? new Date()).toISOString(),
      tool: { name: TOOL_NAME, version: TOOL_VERSION },
      decoder: { ffmpeg_version: tools.ffmpeg.version, sha256: tools.ffmpeg.sha256, ffprobe_version: tools.ffprobe.version, ffprobe_sha256: tools.ffprobe.sha256 },
      plan_sha256: runs[0]!.plan_sha256,
      hardware: [...new Set(sorted.map(hardwareClass))],
      sources: sorted.map((r) => ({
        run_id: r.ci.run_id,
        run_attempt: r.ci.run_attempt,
        gpu_model: r.ci.hardware.gpu_model,
        gpus: r.ci.hardware.gpus_participating,
        plan_sha256: r.plan_sha256,
        seal_sha256: createHash('sha256').update(r.files.SHA256SUMS).digest('hex'),
        source: { name: sourceName(r.source.path), kind: r.source.kind },
      })),
      n: measured.length,
      pairs: measured,
      excluded,
      warmups_ignored: runs.reduce((sum, r) => sum + r.records.filter((x) => x.kind === 'warmup').length, 0),
      metrics,
      ssim_floor_per_frame: floor,
    });
    return { calibration };
  } finally {
    await Promise.all(runs.map((r) => r.close()));
  }
}

/** The checks calibration covers (their declarations' `calibrated`): the metric that sets each threshold, the check's example figure and comparator. */
const POLICY_CHECKS = Object.entries(CHECKS).flatMap(([name, d]) =>
  d.calibrated === null ? [] : [{ name: name as PolicyCheck['name'], key: d.calibrated, metric: d.example.metric, comparator: d.example.comparator }],
);

/**
 * A policy whose thresholds are the worst same-hardware value of each metric:
 * a pair fails a check only when it is worse than every same-hardware pair.
 * +infinity (every same-hardware pair identical) becomes Number.MAX_VALUE,
 * the largest threshold JSON can hold: then only identical streams pass.
 */
export function calibratedPolicy(calibration: Calibration, alpha: number = DEFAULT_ALPHA): Policy {
  checkAlpha(alpha);
  const checks: PolicyCheck[] = [];
  for (const c of POLICY_CHECKS) {
    const sample = calibration.metrics[c.key];
    const worse = calibratedMetric(c.key)!.worse;
    const worst = sample ? worstOf(sample.values, worse) : undefined;
    if (worst === undefined) continue;
    checks.push({ name: c.name, metric: c.metric, comparator: c.comparator, threshold: worst === null ? Number.MAX_VALUE : worst, source: `worst of ${counted(sample!.values.length, 'same-hardware pair')}`, enabled: true });
  }
  if (checks.length === 0) throw new FidelityError('CALIBRATION_NO_PAIRS', 'the calibration has no measured same-hardware pair: no threshold can be derived');
  const runs = calibration.sources.map((s) => `${s.gpu_model} run ${s.run_id}-${s.run_attempt}`).join(', ');
  return {
    schema_version: 1,
    name: 'calibrated-noise-floor',
    calibration_status: 'calibrated',
    description: `Calibrated by fidelity ${calibration.tool.version} from n = ${counted(calibration.n, 'same-hardware pair')} (alpha = ${alpha}) of ${runs}: each threshold is the worst value the same hardware produced.`,
    checks,
    calibration: { n: calibration.n, alpha, tool_version: calibration.tool.version, sources: calibration.sources.map((s) => ({ run_id: s.run_id, run_attempt: s.run_attempt, gpu_model: s.gpu_model, seal_sha256: s.seal_sha256 })) },
  };
}
