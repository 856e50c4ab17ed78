/**
 * The thread of ssim-helper.ts: the Gaussian SSIM of the Y planes it is
 * sent, one frame at a time, in the order sent; the planes go back with the
 * value (moved, not copied) for the next frame. It loads only the kernels
 * and that metric, so it starts in a few tens of milliseconds.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { isFidelityError } from '../errors.js';
import { ssimGaussian } from '../metrics/ssim-gaussian.js';
import type { SsimFromHelper, SsimSetup, SsimToHelper } from './ssim-helper.js';

const port = parentPort!;
const { width, height } = workerData as SsimSetup;

port.on('message', (message: SsimToHelper) => {
  const { index, a, b } = message;
  try {
    const value = ssimGaussian(a, b, width, height);
    port.postMessage({ type: 'value', index, value, a, b } satisfies SsimFromHelper, [a.buffer, b.buffer] as ArrayBuffer[]);
  } catch (error) {
    const e = error as Error;
    port.postMessage({ type: 'error', code: isFidelityError(error) ? error.code : 'INTERNAL', message: e?.message ?? String(error), stack: e?.stack } satisfies SsimFromHelper);
  }
});
