/**
 * Helper threads for one pair's video. The measuring thread keeps the part
 * of each frame that must run in order (ssim_ffmpeg, metrics/video.ts) and
 * hands the rest of the frame to a free helper: the Gaussian and 7x7 SSIMs
 * and the sample differences, about 95% of the metric work. Frames move to
 * the helper and back with transfer lists, never copied.
 *
 * A helper takes one frame at a time, so at most `threads` frames are out;
 * submit() waits for a free helper, which is the back-pressure that keeps
 * memory flat. The values come back through `onValues`, in whatever order
 * the helpers finish; the accumulator files them by frame index, so the
 * report is the same bytes for any thread count (tested).
 */
import { Worker } from 'node:worker_threads';
import { FidelityError } from '../errors.js';
import type { FrameRecords } from '../media/video-decoder.js';
import type { FrameGeometry } from '../metrics/frame.js';
import type { FrameValues } from '../metrics/video.js';
import { workerFilePath } from './worker-file.js';

export interface FrameToHelper {
  index: number;
  a: FrameRecords;
  b: FrameRecords;
}

export type FrameFromHelper =
  | { type: 'values'; index: number; values: FrameValues; a: FrameRecords; b: FrameRecords }
  | { type: 'error'; code: string; message: string; stack: string | undefined };

/** What a helper hands back: the frame's values and its buffers, for the decoders to reuse. */
export type OnValues = (index: number, values: FrameValues, a: FrameRecords, b: FrameRecords) => void;

export interface FrameHelpers {
  readonly threads: number;
  /** Moves frame `index` to a free helper (the records are unusable here afterwards); waits while none is free. */
  submit(index: number, a: FrameRecords, b: FrameRecords): Promise<void>;
  /** Resolves once every submitted frame has come back. */
  drain(): Promise<void>;
  /** Stops the threads; safe at any time, also on error paths. */
  close(): Promise<void>;
}

export function openFrameHelpers(geometry: FrameGeometry, threads: number, onValues: OnValues): FrameHelpers {
  const file = workerFilePath('video-worker.js');
  const idle: Worker[] = [];
  const workers: Worker[] = [];
  let out = 0;
  let failure: Error | null = null;
  let closing = false;
  const waiters: (() => void)[] = [];
  const wake = (): void => {
    for (const w of waiters.splice(0)) w();
  };
  const fail = (error: Error): void => {
    failure ??= error;
    wake();
  };

  for (let i = 0; i < threads; i++) {
    const worker = new Worker(file, { workerData: { geometry } });
    worker.on('message', (message: FrameFromHelper) => {
      if (message.type === 'error') {
        const error = new FidelityError(message.code, message.message);
        if (message.stack) error.stack = message.stack;
        fail(error);
        return;
      }
      out--;
      idle.push(worker);
      try {
        onValues(message.index, message.values, message.a, message.b);
      } catch (error) {
        fail(error as Error);
      }
      wake();
    });
    worker.on('error', (error) => fail(error));
    worker.on('exit', () => {
      if (!closing) fail(new FidelityError('INTERNAL', 'A video metrics thread stopped in the middle of a stream'));
    });
    workers.push(worker);
    idle.push(worker);
  }

  const until = async (ready: () => boolean): Promise<void> => {
    while (!failure && !ready()) await new Promise<void>((resolve) => waiters.push(resolve));
    if (failure) throw failure;
  };

  return {
    threads,
    async submit(index, a, b) {
      for (const record of [a.planes, a.rgb, b.planes, b.rgb]) {
        // Moving a view's buffer moves all of it: only whole-buffer records (the decoders') may go.
        if (record.byteOffset !== 0 || record.byteLength !== record.buffer.byteLength) {
          throw new FidelityError('INTERNAL', 'A frame record to move to a helper thread must be the whole of its buffer');
        }
      }
      await until(() => idle.length > 0);
      const worker = idle.pop()!;
      out++;
      const message: FrameToHelper = { index, a, b };
      worker.postMessage(message, [a.planes.buffer, a.rgb.buffer, b.planes.buffer, b.rgb.buffer] as ArrayBuffer[]);
    },
    drain: () => until(() => out === 0),
    async close() {
      closing = true;
      wake();
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}
