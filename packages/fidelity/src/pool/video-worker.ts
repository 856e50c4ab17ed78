/**
 * A helper thread of one pair's video (frame-helpers.ts), in one of two
 * roles. Every frame goes first to the one `ordered` helper, which runs the
 * set's temporal metrics (ssim_ffmpeg's line buffers carry over from frame to
 * frame, so it takes the frames in the order they were sent: a port delivers in order) and
 * then moves the frame on to the `values` helper the measuring thread
 * chose, over a port of their own. That helper computes the order-free
 * metrics and moves the buffers back to the measuring thread with them.
 * No frame byte is copied between threads.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import { frameFromRecords } from '../media/video-decoder.js';
import type { FrameRecords } from '../media/video-decoder.js';
import type { FrameGeometry } from '../metrics/frame.js';
import { createMetricRunner } from '../metrics/registry.js';
import type { MetricName } from '../metrics/registry.js';
import { helperErrorMessage } from './helper-signal.js';
import type { FrameFromHelper, FrameToHelper, HelperSetup } from './frame-helpers.js';

const port = parentPort!;
const setup = workerData as HelperSetup;
const { geometry, metrics, rgb } = setup;

const buffersOf = (a: FrameRecords, b: FrameRecords): ArrayBuffer[] => [a.planes.buffer, a.rgb.buffer, b.planes.buffer, b.rgb.buffer] as ArrayBuffer[];

function report(error: unknown): void {
  port.postMessage(helperErrorMessage(error) satisfies FrameFromHelper);
}

function ordered(geometry: FrameGeometry, metrics: MetricName[], helpers: MessagePort[]): void {
  const runner = createMetricRunner(geometry, metrics, true, rgb);
  port.on('message', (message: FrameToHelper) => {
    try {
      const { index, a, b, helper } = message;
      const values = runner.frame(frameFromRecords(geometry, a), frameFromRecords(geometry, b));
      port.postMessage({ type: 'ordered', index, values } satisfies FrameFromHelper);
      helpers[helper]!.postMessage(message, buffersOf(a, b));
    } catch (error) {
      report(error);
    }
  });
}

function values(geometry: FrameGeometry, metrics: MetricName[], from: MessagePort): void {
  const runner = createMetricRunner(geometry, metrics, false, rgb);
  from.on('message', (message: FrameToHelper) => {
    try {
      const { index, a, b } = message;
      const result = runner.frame(frameFromRecords(geometry, a), frameFromRecords(geometry, b));
      port.postMessage({ type: 'values', index, values: result, a, b } satisfies FrameFromHelper, buffersOf(a, b));
    } catch (error) {
      report(error);
    }
  });
}

try {
  if (setup.role === 'ordered') ordered(geometry, metrics, setup.helpers);
  else values(geometry, metrics, setup.from);
} catch (error) {
  // A setup that cannot work (a frame size the kernels refuse) fails the pair with its own code.
  report(error);
}
