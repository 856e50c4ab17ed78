/**
 * The thread of ssim-helper.ts: the Gaussian SSIM of the Y planes it is
 * sent, one frame at a time, in the order sent; the planes go back with the
 * value (moved, not copied) for the next frame. It loads only the kernels
 * and that metric, so it starts in a few tens of milliseconds.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ssimGaussian } from '../metrics/ssim-gaussian.js';
import { helperErrorMessage } from './helper-signal.js';
import type { SsimFromHelper, SsimSetup, SsimToHelper } from './ssim-helper.js';

const port = parentPort!;
const { width, height } = workerData as SsimSetup;

port.on('message', (message: SsimToHelper) => {
  const { index, a, b } = message;
  try {
    const value = ssimGaussian(a, b, width, height);
    port.postMessage({ type: 'value', index, value, a, b } satisfies SsimFromHelper, [a.buffer, b.buffer] as ArrayBuffer[]);
  } catch (error) {
    port.postMessage(helperErrorMessage(error) satisfies SsimFromHelper);
  }
});
