/**
 * A helper thread of one pair's video (frame-helpers.ts): computes the
 * order-independent metrics of whole frames, one frame at a time, and sends
 * the frame's buffers back with the values so the decoder can refill them.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { isFidelityError } from '../errors.js';
import { frameFromRecords } from '../media/video-decoder.js';
import type { FrameGeometry } from '../metrics/frame.js';
import { measureFrameValues } from '../metrics/video.js';
import type { FrameFromHelper, FrameToHelper } from './frame-helpers.js';

const port = parentPort!;
const { geometry } = workerData as { geometry: FrameGeometry };

port.on('message', (message: FrameToHelper) => {
  try {
    const { index, a, b } = message;
    const values = measureFrameValues(frameFromRecords(geometry, a), frameFromRecords(geometry, b), geometry);
    const reply: FrameFromHelper = { type: 'values', index, values, a, b };
    port.postMessage(reply, [a.planes.buffer, a.rgb.buffer, b.planes.buffer, b.rgb.buffer] as ArrayBuffer[]);
  } catch (error) {
    const e = error as Error;
    const reply: FrameFromHelper = { type: 'error', code: isFidelityError(error) ? error.code : 'INTERNAL', message: e?.message ?? String(error), stack: e?.stack };
    port.postMessage(reply);
  }
});
