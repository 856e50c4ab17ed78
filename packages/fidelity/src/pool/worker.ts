/**
 * The pool's tasks: measure one pair, or analyse one clip on its own, in a worker thread. measurePair
 * spawns its ffmpeg children from here, so they belong to this worker's
 * measurement, and an abort (a message on the task's port) kills them
 * before the task returns. piscina's own abort is not used on a running
 * task: it terminates the thread, which would leave the children behind.
 */
import { receiveMessageOnPort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { isFidelityError } from '../errors.js';
import { adoptToolchain } from '../media/ffmpeg.js';
import { analyseClipProbed } from './analyse-clip.js';
import { measurePairSharing } from './measure-pair.js';
import type { MeasureOptions } from './api.js';
import type { FromWorker, ToWorker, WorkerResult, WorkerTask } from './protocol.js';
import { captureTransferList, packOutcome, transferList } from './transfer.js';

/** The least time between two progress messages of a pair, first and last count apart (25 a second is smooth for a person). */
const PROGRESS_INTERVAL_MS = 40;

function isAbort(message: unknown): boolean {
  return (message as ToWorker | undefined)?.type === 'abort';
}

async function run(task: WorkerTask): Promise<WorkerResult> {
  const { port } = task;
  const controller = new AbortController();
  // An abort sent while the task waited in the queue is already on the port.
  for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) if (isAbort(m.message)) controller.abort();
  port.on('message', (message: unknown) => {
    if (isAbort(message)) controller.abort();
  });
  const post = (message: FromWorker): void => port.postMessage(message);
  let lastProgress = Number.NEGATIVE_INFINITY;
  adoptToolchain(task.ffmpeg ?? {}, task.toolchain);
  try {
    if (task.kind === 'clip') {
      const outcome = await analyseClipProbed(task.file, {
        ...(task.ffmpeg ? { ffmpeg: task.ffmpeg } : {}),
        ...(task.timeoutMs !== undefined ? { timeoutMs: task.timeoutMs } : {}),
        ...(task.plan ? { plan: task.plan } : {}),
        signal: controller.signal,
      }, task.probe);
      return { kind: 'clip', outcome };
    }
    const options: MeasureOptions = {
      ...(task.ffmpeg ? { ffmpeg: task.ffmpeg } : {}),
      ...(task.timeoutMs !== undefined ? { timeoutMs: task.timeoutMs } : {}),
      ...(task.videoThreads !== undefined ? { videoThreads: task.videoThreads } : {}),
      metrics: task.metrics,
      ...(task.plan ? { plan: task.plan } : {}),
      signal: controller.signal,
      onProgress: ({ framesDone, framesTotal }) => {
        // A message per frame cost about 60 ms of a full-size pair's CPU in this thread alone: the first
        // and last counts always go, the ones between at most every PROGRESS_INTERVAL_MS.
        const now = performance.now();
        if (framesDone !== 0 && framesDone !== framesTotal && now - lastProgress < PROGRESS_INTERVAL_MS) return;
        lastProgress = now;
        post({ type: 'progress', framesDone, framesTotal });
      },
    };
    const shared = { sameMedia: task.sameMedia, ...(task.known ? { known: task.known } : {}), ...(task.probes ? { probes: task.probes } : {}) };
    const { outcome, capture, probes } = await measurePairSharing(task.baseline, task.candidate, options, task.coresPerPair, task.keep, shared);
    return { kind: 'outcome', packed: packOutcome(outcome), ...(task.keep ? { capture } : {}), probes };
  } catch (error) {
    if (isFidelityError(error)) return { kind: 'thrown', code: error.code, message: error.message, problems: error.problems, stack: error.stack };
    throw error;
  } finally {
    post({ type: 'done' });
    port.close();
  }
}

export default async function measureTask(task: WorkerTask): Promise<unknown> {
  const result = await run(task);
  const buffers = result.kind === 'outcome' ? [...transferList(result.packed), ...captureTransferList(result.capture ?? null)] : [];
  return Piscina.move({ [Piscina.transferableSymbol]: buffers, [Piscina.valueSymbol]: result } as never);
}
