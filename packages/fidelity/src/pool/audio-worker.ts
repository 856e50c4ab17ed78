/**
 * The audio metrics of one pair, in a thread of their own so they run beside
 * the video metrics instead of after them (audio-sink.ts). Chunks arrive
 * moved, not copied; each is acknowledged so the sender can keep only a few
 * in flight.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createAudioAccumulator } from '../metrics/audio.js';
import { helperErrorMessage } from './helper-signal.js';
import type { AudioFromWorker, AudioToWorker } from './audio-sink.js';

const port = parentPort!;
const { sampleRate, channels } = workerData as { sampleRate: number; channels: number };
const post = (message: AudioFromWorker): void => port.postMessage(message);

try {
  const accumulator = createAudioAccumulator(sampleRate, channels);
  port.on('message', (message: AudioToWorker) => {
    try {
      if (message.type === 'push') {
        accumulator.push(message.a, message.b);
        // The arrays go back to be filled again: no garbage per chunk.
        const { a, b } = message;
        port.postMessage({ type: 'ack', a, b } satisfies AudioFromWorker, [...a, ...b].map((p) => p.buffer as ArrayBuffer));
      } else {
        const metrics = accumulator.finish();
        post({ type: 'result', result: { metrics, sums: accumulator.sums() } });
        port.close();
      }
    } catch (error) {
      fail(error);
    }
  });
} catch (error) {
  fail(error);
}

function fail(error: unknown): void {
  post(helperErrorMessage(error));
  port.close();
}
