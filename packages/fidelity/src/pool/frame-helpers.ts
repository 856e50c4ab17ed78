/**
 * Helper threads for one pair's video, so that the measuring thread only
 * moves buffers. Two roles (video-worker.ts):
 *
 *  - `threads` value helpers: the order-independent metrics of a frame (the
 *    Gaussian and 7x7 SSIMs, the sample differences: about 95% of the metric
 *    work), each helper one frame at a time. The frame's buffers move there
 *    and back with transfer lists, never copied.
 *  - one ordered helper: ssim_ffmpeg, which must see every frame in order
 *    (its line buffers carry over). It gets a copy of the Y, U, V planes
 *    (a third of a frame's bytes), in recycled buffers, because the frame
 *    itself is with a value helper at the same time.
 *
 * submit() waits for a free value helper, and while the ordered helper is
 * more than a few frames behind: that back-pressure keeps memory flat.
 * Results come back through the handlers in whatever order the helpers
 * finish; the accumulator files them by frame index, so the report is the
 * same bytes for any thread count (tested).
 */
import { Worker } from 'node:worker_threads';
import { FidelityError } from '../errors.js';
import type { FrameRecords } from '../media/video-decoder.js';
import type { FrameGeometry } from '../metrics/frame.js';
import type { FfmpegSsim } from '../metrics/ssim-ffmpeg.js';
import type { FrameValues } from '../metrics/video.js';
import { workerFilePath } from './worker-file.js';

export type HelperRole = 'values' | 'ordered';

export type FrameToHelper =
  | { type: 'values'; index: number; a: FrameRecords; b: FrameRecords }
  | { type: 'ordered'; index: number; a: Uint8Array; b: Uint8Array };

export type FrameFromHelper =
  | { type: 'values'; index: number; values: FrameValues; a: FrameRecords; b: FrameRecords }
  | { type: 'ordered'; index: number; ssim: FfmpegSsim; a: Uint8Array; b: Uint8Array }
  | { type: 'error'; code: string; message: string; stack: string | undefined };

export interface FrameHandlers {
  /** A frame's order-free values, with its buffers, for the decoders to reuse. */
  onValues(index: number, values: FrameValues, a: FrameRecords, b: FrameRecords): void;
  /** A frame's ssim_ffmpeg; these come in frame order. */
  onOrdered(index: number, ssim: FfmpegSsim): void;
}

export interface FrameHelpers {
  readonly threads: number;
  /** Hands frame `index` to the helpers (the records are unusable here afterwards); waits while they are busy. */
  submit(index: number, a: FrameRecords, b: FrameRecords): Promise<void>;
  /** Resolves once every submitted frame has come back from both roles. */
  drain(): Promise<void>;
  /** Stops the threads; safe at any time, also on error paths. */
  close(): Promise<void>;
}

/** Frames the ordered helper may lag behind by before submit() waits for it. */
const ORDERED_LAG = 4;

export function openFrameHelpers(geometry: FrameGeometry, threads: number, handlers: FrameHandlers): FrameHelpers {
  const file = workerFilePath('video-worker.js');
  const workers: Worker[] = [];
  const idle: Worker[] = [];
  /** Recycled buffers for the copies of the planes sent to the ordered helper. */
  const spare: Uint8Array[] = [];
  let valuesOut = 0;
  let orderedOut = 0;
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
  const guard = (fn: () => void): void => {
    try {
      fn();
    } catch (error) {
      fail(error as Error);
    }
  };

  const start = (role: HelperRole): Worker => {
    const worker = new Worker(file, { workerData: { geometry, role } });
    worker.on('message', (message: FrameFromHelper) => {
      if (message.type === 'error') {
        const error = new FidelityError(message.code, message.message);
        if (message.stack) error.stack = message.stack;
        fail(error);
      } else if (message.type === 'ordered') {
        orderedOut--;
        spare.push(message.a, message.b);
        guard(() => handlers.onOrdered(message.index, message.ssim));
      } else {
        valuesOut--;
        idle.push(worker);
        guard(() => handlers.onValues(message.index, message.values, message.a, message.b));
      }
      wake();
    });
    worker.on('error', (error) => fail(error));
    worker.on('exit', () => {
      if (!closing) fail(new FidelityError('INTERNAL', 'A video metrics thread stopped in the middle of a stream'));
    });
    workers.push(worker);
    return worker;
  };
  const ordered = start('ordered');
  for (let i = 0; i < threads; i++) idle.push(start('values'));

  const until = async (ready: () => boolean): Promise<void> => {
    while (!failure && !ready()) await new Promise<void>((resolve) => waiters.push(resolve));
    if (failure) throw failure;
  };
  const copy = (planes: Uint8Array): Uint8Array => {
    const at = spare.findIndex((s) => s.length === planes.length);
    const target = at >= 0 ? spare.splice(at, 1)[0]! : new Uint8Array(planes.length);
    target.set(planes);
    return target;
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
      await until(() => idle.length > 0 && orderedOut < ORDERED_LAG);
      const ca = copy(a.planes);
      const cb = copy(b.planes);
      orderedOut++;
      ordered.postMessage({ type: 'ordered', index, a: ca, b: cb } satisfies FrameToHelper, [ca.buffer, cb.buffer] as ArrayBuffer[]);
      const worker = idle.pop()!;
      valuesOut++;
      worker.postMessage({ type: 'values', index, a, b } satisfies FrameToHelper, [a.planes.buffer, a.rgb.buffer, b.planes.buffer, b.rgb.buffer] as ArrayBuffer[]);
    },
    drain: () => until(() => valuesOut === 0 && orderedOut === 0),
    async close() {
      closing = true;
      wake();
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}
