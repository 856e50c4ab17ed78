/**
 * The frame sink that measures every metric of a frame in the loop's own thread, at once: the
 * choice without helper threads and without a core to spare for the SSIM.
 */
import type { VideoAccumulator } from '../metrics/video.js';
import type { FrameSettle, FrameSink } from './frame-loop.js';

/** Measures each frame into `accumulator`, then settles it: at hand, released, done. */
export function inlineSink(accumulator: VideoAccumulator, settle: FrameSettle): FrameSink {
  return {
    submit(index, a, b) {
      accumulator.addFrame(a, b);
      settle.atHand(index, a, b, false);
      settle.release(a, b);
      settle.done();
    },
    drain: async () => {},
    close: async () => {},
  };
}
