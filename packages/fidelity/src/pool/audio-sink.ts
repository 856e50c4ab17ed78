/**
 * Where measurePair sends the audio chunks: an accumulator in the calling
 * thread, or (MeasureOptions.audioThread) in a helper thread, so the audio
 * metrics run beside the video metrics. Both give the same bytes: the same
 * accumulator sees the same chunks in the same order. Either way the chunk
 * arrays are recycled, so a long clip leaves no garbage behind per chunk.
 */
import { Worker } from 'node:worker_threads';
import { FidelityError } from '../errors.js';
import { createAudioAccumulator } from '../metrics/audio.js';
import type { AudioChannelSums } from '../metrics/audio-channel.js';
import type { AudioMetrics } from '../schemas/measurement.js';
import { helperError, type HelperErrorMessage } from './helper-signal.js';
import { workerFilePath } from './worker-file.js';

export type AudioToWorker = { type: 'push'; a: Float32Array[]; b: Float32Array[] } | { type: 'finish' };
export type AudioFromWorker =
  | { type: 'ack'; a: Float32Array[]; b: Float32Array[] }
  | { type: 'result'; result: AudioResult }
  | HelperErrorMessage;

/** The pair's audio metrics, and per channel the raw sums InferenceX's figures are made from. */
export interface AudioResult {
  metrics: AudioMetrics;
  sums: AudioChannelSums[];
}

/** The sample loop's sink (sample-loop.ts): the pair's audio metrics, in this thread or in a helper. */
export interface AudioSink {
  /** Arrays to decode the next chunk into (one per channel): recycled from earlier chunks when the length fits. */
  planes(samples: number): Float32Array[];
  /** Resolves when the sink can take another chunk (back-pressure). The arrays are the sink's from now on. */
  submit(a: Float32Array[], b: Float32Array[]): Promise<void>;
  /** The metrics, once every submitted chunk is measured. */
  drain(): Promise<AudioResult>;
  /** Stops the helper thread, if any; safe after drain() and on error paths. */
  close(): Promise<void>;
}

/** Chunks in flight to the helper: enough to keep it busy, few enough to bound memory. */
const IN_FLIGHT = 2;

/** Chunk arrays handed back after use, by length (the last chunk of a stream is shorter). */
class PlanePool {
  readonly #channels: number;
  readonly #free: Float32Array[][] = [];

  constructor(channels: number) {
    this.#channels = channels;
  }

  take(samples: number): Float32Array[] {
    const at = this.#free.findIndex((set) => set[0]!.length === samples);
    if (at >= 0) return this.#free.splice(at, 1)[0]!;
    return Array.from({ length: this.#channels }, () => new Float32Array(samples));
  }

  give(...sets: Float32Array[][]): void {
    // A few sets cover every chunk in flight; more would only be kept for nothing.
    for (const set of sets) if (this.#free.length < 2 * IN_FLIGHT + 2) this.#free.push(set);
  }
}

function inline(sampleRate: number, channels: number): AudioSink {
  const accumulator = createAudioAccumulator(sampleRate, channels);
  const pool = new PlanePool(channels);
  return {
    planes: (samples) => pool.take(samples),
    submit: async (a, b) => {
      accumulator.push(a, b);
      pool.give(a, b);
    },
    drain: async () => {
      const metrics = accumulator.finish();
      return { metrics, sums: accumulator.sums() };
    },
    close: async () => undefined,
  };
}

function threaded(sampleRate: number, channels: number): AudioSink {
  const worker = new Worker(workerFilePath('audio-worker.js'), { workerData: { sampleRate, channels } });
  const pool = new PlanePool(channels);
  let inFlight = 0;
  let failure: Error | null = null;
  let wake: (() => void) | null = null;
  let result: ((result: AudioResult) => void) | null = null;
  let rejectResult: ((error: Error) => void) | null = null;
  const settle = (): void => {
    const w = wake;
    wake = null;
    w?.();
    if (failure && rejectResult) rejectResult(failure);
  };
  worker.on('message', (message: AudioFromWorker) => {
    if (message.type === 'ack') {
      inFlight--;
      pool.give(message.a, message.b);
    }
    else if (message.type === 'result') result?.(message.result);
    else failure = helperError(message);
    settle();
  });
  worker.on('error', (error) => {
    failure ??= error;
    settle();
  });
  worker.on('exit', () => {
    failure ??= new FidelityError('INTERNAL', 'The audio metrics thread stopped before its result');
    settle();
  });

  return {
    planes: (samples) => pool.take(samples),
    async submit(a, b) {
      if (failure) throw failure;
      const transfer = [...a, ...b].map((plane) => plane.buffer as ArrayBuffer);
      worker.postMessage({ type: 'push', a, b } satisfies AudioToWorker, transfer);
      inFlight++;
      while (inFlight >= IN_FLIGHT && !failure) await new Promise<void>((resolve) => (wake = resolve));
      if (failure) throw failure;
    },
    drain() {
      return new Promise<AudioResult>((resolve, reject) => {
        if (failure) return reject(failure);
        result = resolve;
        rejectResult = reject;
        worker.postMessage({ type: 'finish' } satisfies AudioToWorker);
      });
    },
    async close() {
      result = null;
      rejectResult = null;
      await worker.terminate();
    },
  };
}

/** A sink for one pair's audio, in a helper thread when asked for. */
export function openAudioSink(sampleRate: number, channels: number, useThread: boolean): AudioSink {
  if (!useThread) return inline(sampleRate, channels);
  try {
    return threaded(sampleRate, channels);
  } catch {
    // No worker script (a bundler left it out): the same metrics, in this thread.
    return inline(sampleRate, channels);
  }
}
