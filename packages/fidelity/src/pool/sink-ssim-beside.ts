/**
 * The frame sink for a pair measured without helper threads but with a core to spare: the Gaussian
 * SSIM of each differing frame runs in a thread of its own (ssim-helper.ts), the frame's other
 * metrics in two runners here (the ordered one and the order-free rest), and the SSIM is filed by
 * frame index when it comes back. A frame whose value is still out when its buffers go back is
 * at hand as `pending`, so whoever keeps it copies it (frame-capture.ts).
 */
import type { FrameGeometry } from '../metrics/frame.js';
import { createMetricRunner } from '../metrics/registry.js';
import type { MetricName, MetricRunner } from '../metrics/registry.js';
import type { RgbConversion } from '../metrics/rgb24.js';
import type { Kernels } from '../metrics/wasm.js';
import type { FrameValues, VideoAccumulator } from '../metrics/video.js';
import type { FrameSettle, FrameSink } from './frame-loop.js';
import { openSsimHelper } from './ssim-helper.js';
import type { SsimHelper } from './ssim-helper.js';

/** What the sink measures: the stream's geometry and conversion, the set (with `ssim`), and the kernels of this thread. */
export interface SsimBesideOptions {
  geometry: FrameGeometry;
  metrics: readonly MetricName[];
  rgb: RgbConversion;
  kernels: Kernels;
}

/**
 * Measures each frame here but its SSIM, which the helper thread (started at the first differing
 * frame) sends back by index. The two runners are laid out on `kernels` now, before the caller
 * carves the frame buffers out of that memory and pins it (frame-memory.ts); the sink itself is
 * made once the loop can tell it how frames settle.
 */
export function ssimBesideSink(options: SsimBesideOptions, accumulator: VideoAccumulator): (settle: FrameSettle) => FrameSink {
  const { geometry, metrics, rgb, kernels: k } = options;
  const ordered = createMetricRunner(geometry, metrics, true, rgb, k);
  const rest = createMetricRunner(geometry, metrics.filter((m) => m !== 'ssim'), false, rgb, k);
  return (settle) => sinkOn(geometry, accumulator, settle, ordered, rest);
}

function sinkOn(geometry: FrameGeometry, accumulator: VideoAccumulator, settle: FrameSettle, ordered: MetricRunner, rest: MetricRunner): FrameSink {
  /** Frames whose SSIM is out, with their other values. */
  const waiting = new Map<number, FrameValues>();
  let ssim: SsimHelper | null = null;
  return {
    submit(index, a, b) {
      accumulator.addOrdered(index, ordered.frame(a, b));
      settle.atHand(index, a, b, false);
      const values = rest.frame(a, b);
      // Equal Y planes have SSIM exactly 1 (the kernel gives it; the definition skips it): only the others travel.
      if (values.identical || Buffer.from(a.y.buffer, a.y.byteOffset, a.y.length).equals(Buffer.from(b.y.buffer, b.y.byteOffset, b.y.length))) {
        values.metrics['ssim'] = 1;
        accumulator.addValues(index, values);
        settle.atHand(index, a, b, false);
        settle.done();
        settle.release(a, b);
        return;
      }
      ssim ??= openSsimHelper(geometry.width, geometry.height, (i, value) => {
        const frame = waiting.get(i)!;
        waiting.delete(i);
        frame.metrics['ssim'] = value;
        accumulator.addValues(i, frame);
        settle.done();
      });
      waiting.set(index, values);
      // Its SSIM comes back after the buffers went back to the decoders: a copy waits with it (frame-capture.ts).
      settle.atHand(index, a, b, true);
      return ssim.submit(index, a.y, b.y).then(() => settle.release(a, b));
    },
    drain: async () => ssim?.drain(),
    close: async () => ssim?.close(),
  };
}
