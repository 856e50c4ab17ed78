/**
 * A helper thread of one pair's video (frame-helpers.ts), in one of two
 * roles. `values`: the order-independent metrics of whole frames, one frame
 * at a time. `ordered`: ssim_ffmpeg, whose line buffers carry over from
 * frame to frame, on every frame in the order the messages arrive (a port
 * delivers in order). Either way the buffers go back with the result, to be
 * filled again.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { isFidelityError } from '../errors.js';
import { frameFromRecords, planarFromRecord } from '../media/video-decoder.js';
import type { FrameGeometry } from '../metrics/frame.js';
import { createFfmpegSeries, measureFrameValues } from '../metrics/video.js';
import type { FrameFromHelper, FrameToHelper, HelperRole } from './frame-helpers.js';

const port = parentPort!;
const { geometry, role } = workerData as { geometry: FrameGeometry; role: HelperRole };
const series = role === 'ordered' ? createFfmpegSeries(geometry) : null;

function handle(message: FrameToHelper): void {
  if (message.type === 'ordered') {
    const { index, a, b } = message;
    const ssim = series!.next(planarFromRecord(geometry, a), planarFromRecord(geometry, b));
    const reply: FrameFromHelper = { type: 'ordered', index, ssim, a, b };
    port.postMessage(reply, [a.buffer, b.buffer] as ArrayBuffer[]);
  } else {
    const { index, a, b } = message;
    const values = measureFrameValues(frameFromRecords(geometry, a), frameFromRecords(geometry, b), geometry);
    const reply: FrameFromHelper = { type: 'values', index, values, a, b };
    port.postMessage(reply, [a.planes.buffer, a.rgb.buffer, b.planes.buffer, b.rgb.buffer] as ArrayBuffer[]);
  }
}

port.on('message', (message: FrameToHelper) => {
  try {
    handle(message);
  } catch (error) {
    const e = error as Error;
    const reply: FrameFromHelper = { type: 'error', code: isFidelityError(error) ? error.code : 'INTERNAL', message: e?.message ?? String(error), stack: e?.stack };
    port.postMessage(reply);
  }
});
