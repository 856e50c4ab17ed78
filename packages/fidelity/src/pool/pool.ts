/**
 * A piscina pool whose task measures one pair (worker.ts). One pair per
 * thread: decoding already runs in ffmpeg children, so a pair's own thread
 * is busy with metrics and two pairs use two cores. Cores beyond one per
 * thread go to each pair's video helper threads (frame-helpers.ts) when a pair
 * gets at least 4 (measure-pair.ts, autoVideoThreads).
 *
 * The worker must be plain JavaScript: see worker-file.ts for how it is
 * found when the library runs from source under vitest.
 */
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { FidelityError, invalidParameter } from '../errors.js';
import { resolveFfmpeg } from '../media/ffmpeg.js';
import { resolveMetrics } from '../metrics/registry.js';
import { ClipAnalysis } from '../schemas/clip.js';
import type { MeasureOutcome } from '../schemas/measurement.js';
import type { MeasurePool, MeasureRunOptions, PairJob, PoolOptions } from './api.js';
import type { FromWorker, ToWorker, WorkerResult, WorkerTask } from './protocol.js';
import { checkPlanSpec, checkVideoThreads } from './pair-options.js';
import { defaultThreadCount } from './threads.js';
import { unpackOutcome } from './transfer.js';
import { workerFilePath } from './worker-file.js';

/** The pool's worker script (dist/pool/worker.js, also when running from source). */
export function workerFile(): string {
  return workerFilePath('worker.js');
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
 * Creates the pool. Tasks queue without limit; `measure` resolves with the
 * pair's outcome (a failed pair is an outcome, as with measurePair) and an
 * aborted pair resolves as ABORTED once its ffmpeg children have exited.
 */
export function createMeasurePool(options: PoolOptions = {}): MeasurePool {
  const threads = options.threads ?? defaultThreadCount();
  if (!Number.isInteger(threads) || threads < 1) throw invalidParameter('options.threads', 'a positive integer', threads);
  const { timeoutMs, videoThreads } = options;
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0)) {
    throw invalidParameter('options.timeoutMs', 'a positive integer', timeoutMs);
  }
  checkVideoThreads(videoThreads);
  checkPlanSpec(options.plan);
  const metrics = resolveMetrics(options.metrics).list;
  const cores = options.cores ?? defaultThreadCount();
  if (!Number.isInteger(cores) || cores < 1) throw invalidParameter('options.cores', 'a positive integer', cores);
  // With as many pairs in flight as threads, each pair's share of the cores.
  const coresPerPair = Math.max(1, Math.floor(cores / threads));
  const piscina = new Piscina({ filename: workerFile(), minThreads: 0, maxThreads: threads, idleTimeout: 30_000, concurrentTasksPerWorker: 1 });
  let destroyed = false;
  /** Aborts of the tasks in flight, so destroy() can stop their ffmpeg children before the threads go. */
  const inFlight = new Map<Promise<unknown>, () => void>();

  async function measure(job: PairJob, runOptions: MeasureRunOptions = {}): Promise<MeasureOutcome> {
    checkJob(job);
    if (destroyed) throw new FidelityError('INVALID_ARGUMENT', 'The measuring pool was destroyed');
    const { signal, onProgress } = runOptions;
    if (signal?.aborted) return abortedOutcome();
    // Resolved (and hashed) once in this thread, not once more in every worker thread.
    const toolchain = await resolveFfmpeg(options.ffmpeg);
    if (destroyed) throw new FidelityError('INVALID_ARGUMENT', 'The measuring pool was destroyed');
    if (signal?.aborted) return abortedOutcome();
    const { port1, port2 } = new MessageChannel();
    let markDone!: () => void;
    const done = new Promise<void>((resolve) => (markDone = resolve));
    port1.on('message', (message: FromWorker) => {
      if (message.type === 'progress') onProgress?.({ framesDone: message.framesDone, framesTotal: message.framesTotal });
      else if (message.type === 'done') markDone();
    });
    const onAbort = (): void => port1.postMessage({ type: 'abort' } satisfies ToWorker);
    signal?.addEventListener('abort', onAbort, { once: true });
    const task: WorkerTask = {
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
      port: port2,
    };
    const running = piscina.run(task, { transferList: [port2] }) as Promise<WorkerResult>;
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
      if (runOptions.keep) runOptions.onCapture?.(result.capture ?? null);
      return unpackOutcome(result.packed);
    } finally {
      inFlight.delete(running);
      signal?.removeEventListener('abort', onAbort);
      port1.close();
    }
  }

  return {
    threads,
    measure,
    async destroy(): Promise<void> {
      if (destroyed) return;
      destroyed = true;
      // piscina.destroy() terminates threads; a task's children must be killed by its own worker first.
      for (const abort of inFlight.values()) abort();
      await Promise.allSettled([...inFlight.keys()]);
      await piscina.destroy();
    },
  };
}
