/**
 * A piscina pool whose task measures one pair, or analyses one clip on its own (worker.ts). One pair per
 * thread: decoding already runs in ffmpeg children, so a pair's own thread
 * is busy with metrics and two pairs use two cores. Cores beyond one per
 * thread go to each pair's video helper threads (frame-helpers.ts) when a pair
 * gets at least 4 (measure-pair.ts, autoVideoThreads).
 *
 * The worker must be plain JavaScript: see worker-file.ts for how it is
 * found when the library runs from source under vitest.
 */
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { FidelityError, invalidParameter } from '../errors.js';
import { resolveFfmpeg } from '../media/ffmpeg.js';
import { resolveMetrics } from '../metrics/registry.js';
import { ClipAnalysis } from '../schemas/clip.js';
import type { MeasureOutcome } from '../schemas/measurement.js';
import type { MediaProbe } from '../media/probe.js';
import { keepProbe, keptProbe } from '../media/probe-cache.js';
import type { KnownProbes } from './measure-pair.js';
import type { ClipJob, MeasurePool, MeasureRunOptions, PairJob, PoolOptions } from './api.js';
import type { ClipOutcome } from '../schemas/clip.js';
import type { FromWorker, ToWorker, WorkerResult, WorkerTask } from './protocol.js';
import { checkVideoThreads } from './pair-options.js';
import { checkPlanSpec } from './plan-spec.js';
import { defaultThreadCount } from './threads.js';
import { unpackOutcome } from './transfer.js';
import { workerFilePath } from './worker-file.js';
import { checkBounded } from '../bounds.js';

/** The file the pool's threads load (dist/pool/worker-entry.cjs, also when running from source), which imports worker.js. */
export function workerFile(): string {
  return workerFilePath('worker-entry.cjs');
}

function abortedOutcome(): MeasureOutcome {
  return { ok: false, failure: { code: 'ABORTED', message: 'The measurement was cancelled' } };
}

function checkJob(job: PairJob): void {
  if (job === null || typeof job !== 'object') throw invalidParameter('job', 'an object { id, baseline, candidate }', job);
  if (typeof job.id !== 'string') throw invalidParameter('job.id', 'a string', job.id);
  if (typeof job.baseline !== 'string' || job.baseline === '') throw invalidParameter('job.baseline', 'a file path', job.baseline);
  if (typeof job.candidate !== 'string' || job.candidate === '') throw invalidParameter('job.candidate', 'a file path', job.candidate);
  // A given analysis goes into the outcome as is: one that is not a clip analysis is refused here, not reported.
  for (const side of ['baseline', 'candidate'] as const) {
    const given = job.known?.[side];
    if (given !== undefined && !ClipAnalysis.safeParse(given).success) throw invalidParameter(`job.known.${side}`, 'a clip analysis (ClipAnalysis)', given);
  }
}

/**
 * Worker threads started ahead of a pool (compare starts them while the runs are verified, so
 * each thread has loaded its modules when the first pair comes): a pool made with them
 * ({@link SharingPoolOptions.threadsFrom}) runs its tasks there and leaves them running; their
 * owner calls `destroy`. The pool still decides how many pairs run at once and each pair's cores.
 */
export interface PoolThreads {
  readonly count: number;
  /** Resolves once piscina has loaded; the threads themselves start loading the worker at once. */
  readonly piscina: Promise<TaskThreads>;
  destroy(): Promise<void>;
}

/**
 * What the pool asks of its threads: piscina's pool, seen through the two methods used, so that no
 * declaration the package ships names piscina's own types (a consumer compiles without them).
 */
export interface TaskThreads {
  run(task: WorkerTask, options: { transferList: MessagePort[] }): Promise<unknown>;
  destroy(): Promise<void>;
}

function newPiscina(threads: number, eager: boolean): Promise<TaskThreads> {
  return import('piscina').then(
    ({ Piscina }) => new Piscina({ filename: workerFile(), minThreads: eager ? threads : 0, maxThreads: threads, idleTimeout: 30_000, concurrentTasksPerWorker: 1 }),
  );
}

/**
 * Starts `count` worker threads now (each loads the worker's modules while the caller does other
 * work, such as verifying the runs) for the pools of one command.
 */
export function startPoolThreads(count: number): PoolThreads {
  if (!Number.isInteger(count) || count < 1) throw invalidParameter('count', 'a positive integer', count);
  const piscina = newPiscina(count, true);
  // A failure to load piscina is the first task's to report, as when the pool starts it itself.
  piscina.catch(() => {});
  let destroyed: Promise<void> | undefined;
  return {
    count,
    piscina,
    destroy: () => (destroyed ??= piscina.then((p) => p.destroy()).catch(() => {})),
  };
}

/** What a command's own pools take besides {@link PoolOptions}. */
export interface SharingPoolOptions extends PoolOptions {
  /** Threads started ahead ({@link startPoolThreads}); absent: the pool starts its own with the first task. */
  threadsFrom?: PoolThreads;
}

/** Per-pair options of {@link SharingPool.measure} besides {@link MeasureRunOptions}. */
export interface SharingRunOptions extends MeasureRunOptions {
  /**
   * The two files' sealed SHA-256 (checked against their bytes): a side whose bytes this process
   * probed already with the pool's ffprobe is given that probe instead of probing again, and each
   * probe the pair makes is kept for the next (media/probe-cache.ts).
   */
  sha256?: { baseline: string; candidate: string };
}

/** A {@link MeasurePool} whose pairs and clips also share their probes (compare, merge, calibrate: comparison/measure.ts). */
export interface SharingPool extends MeasurePool {
  measure(job: PairJob, options?: SharingRunOptions): Promise<MeasureOutcome>;
  /** MeasurePool.analyse, given the clip's kept probe when this process already probed its bytes (`sha256`, sealed). */
  analyse(job: ClipJob, options?: { signal?: AbortSignal; sha256?: string }): Promise<ClipOutcome>;
}

/**
 * Creates the pool. Tasks queue without limit; `measure` resolves with the
 * pair's outcome (a failed pair is an outcome, as with measurePair) and an
 * aborted pair resolves as ABORTED once its ffmpeg children have exited.
 */
export function createMeasurePool(options: PoolOptions = {}): MeasurePool {
  checkBounded('threads', options.threads);
  return createSharingPool(options);
}

/** {@link createMeasurePool} for the library's own commands: threads started ahead, probes shared. */
export function createSharingPool(options: SharingPoolOptions = {}): SharingPool {
  const threads = options.threads ?? defaultThreadCount();
  if (!Number.isInteger(threads) || threads < 1) throw invalidParameter('options.threads', 'a positive integer', threads);
  const { timeoutMs, videoThreads } = options;
  checkBounded('timeoutMs', timeoutMs);
  checkVideoThreads(videoThreads);
  checkPlanSpec(options.plan);
  const metrics = resolveMetrics(options.metrics).list;
  const cores = options.cores ?? defaultThreadCount();
  if (!Number.isInteger(cores) || cores < 1) throw invalidParameter('options.cores', 'a positive integer', cores);
  // With as many pairs in flight as threads, each pair's share of the cores.
  const coresPerPair = Math.max(1, Math.floor(cores / threads));
  // piscina loads with the first task, not with the pool: importing the library (or creating a pool
  // that is never used) does not pay for it (docs/performance.md, "Start-up").
  let piscina: Promise<TaskThreads> | undefined;
  const borrowed = options.threadsFrom;
  const started = (): Promise<TaskThreads> => (piscina ??= borrowed ? borrowed.piscina : newPiscina(threads, false));
  let destroyed = false;
  /** Aborts of the tasks in flight, so destroy() can stop their ffmpeg children before the threads go. */
  const inFlight = new Map<Promise<unknown>, () => void>();

  /**
   * Runs one task in the pool with its own port: progress and `done` come back on it, an abort of
   * `signal` goes out on it (the worker kills its ffmpeg children), and a thrown FidelityError
   * travels back as data. Resolves with the worker's result once its last message has arrived.
   */
  async function runTask(task: WorkerTask, port1: MessagePort, signal: AbortSignal | undefined, onProgress?: (m: { framesDone: number; framesTotal: number }) => void): Promise<WorkerResult> {
    let markDone!: () => void;
    const done = new Promise<void>((resolve) => (markDone = resolve));
    port1.on('message', (message: FromWorker) => {
      if (message.type === 'progress') onProgress?.({ framesDone: message.framesDone, framesTotal: message.framesTotal });
      else if (message.type === 'done') markDone();
    });
    const onAbort = (): void => port1.postMessage({ type: 'abort' } satisfies ToWorker);
    signal?.addEventListener('abort', onAbort, { once: true });
    const running = started().then((pool) => pool.run(task, { transferList: [task.port] }) as Promise<WorkerResult>);
    inFlight.set(running, onAbort);
    try {
      const result = await running;
      // Progress messages travel on the port, the result on piscina's channel: wait for the port's last word.
      await done;
      if (result.kind === 'thrown') {
        const error = new FidelityError(result.code, result.message, { problems: result.problems });
        if (result.stack) error.stack = result.stack;
        throw error;
      }
      return result;
    } finally {
      inFlight.delete(running);
      signal?.removeEventListener('abort', onAbort);
      port1.close();
    }
  }

  /** The toolchain, resolved (and hashed) once in this thread, not once more in every worker thread; null when the pool went or `signal` fired. */
  async function ready(signal: AbortSignal | undefined): Promise<Awaited<ReturnType<typeof resolveFfmpeg>> | null> {
    if (destroyed) throw new FidelityError('INVALID_ARGUMENT', 'The measuring pool was destroyed');
    if (signal?.aborted) return null;
    const toolchain = await resolveFfmpeg(options.ffmpeg);
    if (destroyed) throw new FidelityError('INVALID_ARGUMENT', 'The measuring pool was destroyed');
    return signal?.aborted ? null : toolchain;
  }

  async function measure(job: PairJob, runOptions: SharingRunOptions = {}): Promise<MeasureOutcome> {
    checkJob(job);
    const { signal, onProgress } = runOptions;
    const toolchain = await ready(signal);
    if (!toolchain) return abortedOutcome();
    // The process's probe cache lives in this thread: the worker is handed the kept probes and hands back what it probed.
    const ffprobe = toolchain.ffprobe.path;
    const sha = runOptions.sha256;
    const given: KnownProbes = {};
    if (sha) {
      const baselineKept = keptProbe<MediaProbe>(ffprobe, sha.baseline, job.baseline);
      const candidateKept = keptProbe<MediaProbe>(ffprobe, sha.candidate, job.candidate);
      if (baselineKept) given.baseline = baselineKept;
      if (candidateKept) given.candidate = candidateKept;
    }
    const { port1, port2 } = new MessageChannel();
    const task: WorkerTask = {
      kind: 'pair',
      id: job.id,
      baseline: job.baseline,
      candidate: job.candidate,
      ffmpeg: options.ffmpeg,
      toolchain,
      timeoutMs,
      videoThreads,
      coresPerPair,
      metrics,
      plan: options.plan,
      sameMedia: job.sameMedia === true,
      known: job.known,
      ...(runOptions.keep ? { keep: runOptions.keep } : {}),
      ...(given.baseline || given.candidate ? { probes: given } : {}),
      port: port2,
    };
    const result = await runTask(task, port1, signal, onProgress);
    if (result.kind !== 'outcome') throw new FidelityError('INTERNAL', `a pair task answered ${result.kind}`);
    if (runOptions.keep) runOptions.onCapture?.(result.capture ?? null);
    // Only probes that succeeded come back (null when a side's failed); a side given from the cache is there already.
    if (sha && result.probes) {
      if (!given.baseline) keepProbe(ffprobe, sha.baseline, result.probes[0]);
      if (!given.candidate && sha.candidate !== sha.baseline) keepProbe(ffprobe, sha.candidate, result.probes[1]);
    }
    return unpackOutcome(result.packed);
  }

  async function analyse(job: ClipJob, runOptions: { signal?: AbortSignal; sha256?: string } = {}): Promise<ClipOutcome> {
    if (job === null || typeof job !== 'object' || typeof job.id !== 'string') throw invalidParameter('job', 'an object { id, file }', job);
    if (typeof job.file !== 'string' || job.file === '') throw invalidParameter('job.file', 'a file path', job.file);
    const { signal } = runOptions;
    const toolchain = await ready(signal);
    if (!toolchain) return { ok: false, failure: { code: 'ABORTED', message: 'The clip analysis was cancelled' } };
    const probe = runOptions.sha256 === undefined ? undefined : keptProbe<MediaProbe>(toolchain.ffprobe.path, runOptions.sha256, job.file);
    const { port1, port2 } = new MessageChannel();
    const task: WorkerTask = { kind: 'clip', id: job.id, file: job.file, ffmpeg: options.ffmpeg, toolchain, timeoutMs, plan: options.plan, ...(probe ? { probe } : {}), port: port2 };
    const result = await runTask(task, port1, signal);
    if (result.kind !== 'clip') throw new FidelityError('INTERNAL', `a clip task answered ${result.kind}`);
    return result.outcome;
  }

  return {
    threads,
    measure,
    analyse,
    async destroy(): Promise<void> {
      if (destroyed) return;
      destroyed = true;
      // piscina.destroy() terminates threads; a task's children must be killed by its own worker first.
      for (const abort of inFlight.values()) abort();
      await Promise.allSettled([...inFlight.keys()]);
      // Borrowed threads are their owner's to end (PoolThreads.destroy).
      if (piscina && !borrowed) await (await piscina).destroy();
    },
  };
}
