/**
 * The Gaussian SSIM of a pair's differing frames beside the measuring
 * thread, on a second core (measure-pair.ts decides when). It is most of a
 * differing frame's CPU in the default and `all` sets (7-12 ms at
 * 1344x768), and on a machine with a free core the rest of the frame's work
 * (the decoders, the other metrics, the audio) need not wait for it; on two
 * cores the video helper threads of frame-helpers.ts cost more than that
 * (three threads loading the whole library, every frame moved through two of
 * them).
 *
 * Only the two Y planes travel, copied into buffers of this helper's (the
 * decoders' buffers go straight back to them), and the value comes back by
 * frame index: each is the same kernel on the same bytes, so the report is
 * the same bytes as when the measuring thread computes it. At most
 * FRAMES_OUT frames are out at a time: memory stays flat and the decoders
 * wait for the slowest thread, as they do without the helper.
 */
import { Worker } from 'node:worker_threads';
import { FidelityError } from '../errors.js';
import { HelperSignal, helperError, type HelperErrorMessage } from './helper-signal.js';
import { workerFilePath } from './worker-file.js';

/** What the helper thread is told: the planes' size. */
export interface SsimSetup {
  width: number;
  height: number;
}

export interface SsimToHelper {
  index: number;
  a: Uint8Array;
  b: Uint8Array;
}

export type SsimFromHelper =
  | { type: 'value'; index: number; value: number; a: Uint8Array; b: Uint8Array }
  | HelperErrorMessage;

/** Frames out at once: one computing, one waiting, so the thread never idles on a message. */
export const FRAMES_OUT = 2;

export interface SsimHelper {
  /** Sends frame `index`'s Y planes (copied: the caller keeps its own); waits while FRAMES_OUT frames are out. */
  submit(index: number, a: Uint8Array, b: Uint8Array): Promise<void>;
  /** Resolves once every submitted frame's value has been handed to `onValue`. */
  drain(): Promise<void>;
  /** Stops the thread; safe at any time, also on error paths. */
  close(): Promise<void>;
}

export function openSsimHelper(width: number, height: number, onValue: (index: number, value: number) => void): SsimHelper {
  const worker = new Worker(workerFilePath('ssim-worker.js'), { workerData: { width, height } satisfies SsimSetup });
  /** Plane buffers back from the thread, for the next frames. */
  const spare: Uint8Array[] = [];
  let out = 0;
  let closing = false;
  const signal = new HelperSignal();
  worker.on('message', (message: SsimFromHelper) => {
    if (message.type === 'error') return signal.fail(helperError(message));
    out--;
    spare.push(message.a, message.b);
    try {
      onValue(message.index, message.value);
    } catch (error) {
      signal.fail(error as Error);
    }
    signal.wake();
  });
  worker.on('error', (error) => signal.fail(error));
  worker.on('exit', () => {
    if (!closing) signal.fail(new FidelityError('INTERNAL', 'The SSIM thread stopped in the middle of a stream'));
  });
  const until = (ready: () => boolean): Promise<void> => signal.until(ready);
  const copy = (plane: Uint8Array): Uint8Array => {
    const buffer = spare.pop() ?? new Uint8Array(plane.length);
    buffer.set(plane);
    return buffer;
  };
  return {
    async submit(index, a, b) {
      await until(() => out < FRAMES_OUT);
      out++;
      const [ca, cb] = [copy(a), copy(b)];
      worker.postMessage({ index, a: ca, b: cb } satisfies SsimToHelper, [ca.buffer, cb.buffer] as ArrayBuffer[]);
    },
    drain: () => until(() => out === 0),
    async close() {
      closing = true;
      signal.wake();
      await worker.terminate();
    },
  };
}
