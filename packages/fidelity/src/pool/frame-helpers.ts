/**
 * Helper threads for one pair's video, so that the measuring thread only
 * moves buffers (video-worker.ts):
 *
 *  - one ordered helper runs the set's temporal metrics (ssim_ffmpeg, whose
 *    line buffers carry from frame to frame) on every frame in order, then
 *    moves the frame on;
 *  - `threads` value helpers compute the set's order-independent metrics
 *    (the Gaussian and 7x7 SSIMs, the sample differences, and the rgb24
 *    conversion they read), one frame each at a time.
 *
 * Which metric runs in which role is the registry's `temporal` flag
 * (metrics/registry.ts), not a name wired in here.
 *
 * A frame's buffers travel measuring thread -> ordered helper -> the value
 * helper chosen at submit() -> measuring thread, always in transfer lists:
 * never copied. submit() waits until a value helper has a free slot (two
 * each), which bounds the frames out at 2 * `threads` and keeps memory
 * flat. Results come back through the handlers, the values in whatever
 * order the helpers finish; the accumulator files them by frame index, so
 * the report is the same bytes for any thread count (tested).
 */
import { MessageChannel, Worker } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import { FidelityError } from '../errors.js';
import type { FrameRecords } from '../media/video-decoder.js';
import type { FrameGeometry } from '../metrics/frame.js';
import type { MetricName } from '../metrics/registry.js';
import { DEFAULT_RGB_CONVERSION } from '../metrics/rgb24.js';
import type { RgbConversion } from '../metrics/rgb24.js';
import type { FrameValues } from '../metrics/video.js';
import { HelperSignal, helperError, type HelperErrorMessage } from './helper-signal.js';
import { workerFilePath } from './worker-file.js';

/** What every helper of a stream is told: its frames' geometry, the metric set, and how rgb24 is made (metrics/rgb24.ts). */
interface StreamSetup {
  geometry: FrameGeometry;
  metrics: MetricName[];
  rgb: RgbConversion;
}

export type HelperSetup = (StreamSetup & { role: 'ordered'; helpers: MessagePort[] }) | (StreamSetup & { role: 'values'; from: MessagePort });

/** A frame on its way: to the ordered helper, then (same message) to value helper number `helper`. */
export interface FrameToHelper {
  index: number;
  helper: number;
  a: FrameRecords;
  b: FrameRecords;
}

export type FrameFromHelper =
  | { type: 'values'; index: number; values: FrameValues; a: FrameRecords; b: FrameRecords }
  | { type: 'ordered'; index: number; values: FrameValues }
  | HelperErrorMessage;

export interface FrameHandlers {
  /** A frame's order-free values, with its buffers, for the decoders to reuse. */
  onValues(index: number, values: FrameValues, a: FrameRecords, b: FrameRecords): void;
  /** A frame's temporal metrics; these come in frame order. */
  onOrdered(index: number, values: FrameValues): void;
}

export interface FrameHelpers {
  /** Hands frame `index` to the helpers (the records are unusable here afterwards); waits while all are busy. */
  submit(index: number, a: FrameRecords, b: FrameRecords): Promise<void>;
  /** Resolves once every submitted frame has come back from both roles. */
  drain(): Promise<void>;
  /** Stops the threads; safe at any time, also on error paths. */
  close(): Promise<void>;
}

/**
 * Frames each value helper may hold: one it works on and one waiting, so it
 * never idles while the next frame passes through the ordered helper.
 */
export const FRAMES_PER_HELPER = 2;

export function openFrameHelpers(
  geometry: FrameGeometry,
  metrics: readonly MetricName[],
  threads: number,
  handlers: FrameHandlers,
  rgb: RgbConversion = DEFAULT_RGB_CONVERSION,
): FrameHelpers {
  const file = workerFilePath('video-worker.js');
  const workers: Worker[] = [];
  /** A free slot of a value helper is its number; a helper appears once per free slot. */
  const idle: number[] = [];
  const busy = new Map<number, number>();
  let orderedOut = 0;
  let closing = false;
  const signal = new HelperSignal();

  const onMessage = (message: FrameFromHelper): void => {
    try {
      if (message.type === 'error') {
        signal.fail(helperError(message));
      } else if (message.type === 'ordered') {
        orderedOut--;
        handlers.onOrdered(message.index, message.values);
      } else {
        const helper = busy.get(message.index)!;
        busy.delete(message.index);
        idle.push(helper);
        handlers.onValues(message.index, message.values, message.a, message.b);
      }
    } catch (error) {
      signal.fail(error as Error);
    }
    signal.wake();
  };
  const start = (setup: HelperSetup, transferList: MessagePort[]): Worker => {
    const worker = new Worker(file, { workerData: setup, transferList });
    worker.on('message', onMessage);
    worker.on('error', (error) => signal.fail(error));
    worker.on('exit', () => {
      if (!closing) signal.fail(new FidelityError('INTERNAL', 'A video metrics thread stopped in the middle of a stream'));
    });
    workers.push(worker);
    return worker;
  };

  const channels = Array.from({ length: threads }, () => new MessageChannel());
  const helpers = channels.map((c) => c.port1);
  const stream: StreamSetup = { geometry, metrics: [...metrics], rgb: { ...rgb } };
  const ordered = start({ ...stream, role: 'ordered', helpers }, helpers);
  channels.forEach((c, i) => {
    start({ ...stream, role: 'values', from: c.port2 }, [c.port2]);
    for (let k = 0; k < FRAMES_PER_HELPER; k++) idle.push(i);
  });

  const until = (ready: () => boolean): Promise<void> => signal.until(ready);

  return {
    async submit(index, a, b) {
      for (const record of [a.planes, a.rgb, b.planes, b.rgb]) {
        // Moving a view's buffer moves all of it: only whole-buffer records (the decoders') may go.
        if (record.byteOffset !== 0 || record.byteLength !== record.buffer.byteLength) {
          throw new FidelityError('INTERNAL', 'A frame record to move to a helper thread must be the whole of its buffer');
        }
      }
      await until(() => idle.length > 0);
      const helper = idle.pop()!;
      busy.set(index, helper);
      orderedOut++;
      const message: FrameToHelper = { index, helper, a, b };
      ordered.postMessage(message, [a.planes.buffer, a.rgb.buffer, b.planes.buffer, b.rgb.buffer] as ArrayBuffer[]);
    },
    drain: () => until(() => busy.size === 0 && orderedOut === 0),
    async close() {
      closing = true;
      signal.wake();
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}
