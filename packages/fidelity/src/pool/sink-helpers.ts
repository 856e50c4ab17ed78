/**
 * The frame sink that moves each frame to the helper threads (frame-helpers.ts): the ordered
 * helper's temporal values come back in frame order, the value helpers' in any order, each filed by
 * frame index, so the report is the same bytes for any thread count. A frame is settled when its
 * buffers come back with its values.
 */
import type { FrameGeometry } from '../metrics/frame.js';
import type { MetricName } from '../metrics/registry.js';
import type { RgbConversion } from '../metrics/rgb24.js';
import type { VideoAccumulator } from '../metrics/video.js';
import { frameFromRecords, frameRecords } from '../media/video-decoder.js';
import { openFrameHelpers } from './frame-helpers.js';
import type { FrameSettle, FrameSink } from './frame-loop.js';

/** What the helper sink measures: the stream's geometry and conversion, the set, and how many value helpers. */
export interface HelperSinkOptions {
  geometry: FrameGeometry;
  metrics: readonly MetricName[];
  threads: number;
  rgb: RgbConversion;
}

/** Starts `threads` value helpers and the ordered one; each frame's values go to `accumulator` as they come back. */
export function helperSink(options: HelperSinkOptions, accumulator: VideoAccumulator, settle: FrameSettle): FrameSink {
  const { geometry } = options;
  const helpers = openFrameHelpers(
    geometry,
    options.metrics,
    options.threads,
    {
      onValues(index, values, ra, rb) {
        accumulator.addValues(index, values);
        const [fa, fb] = [frameFromRecords(geometry, ra), frameFromRecords(geometry, rb)];
        settle.atHand(index, fa, fb, false);
        settle.release(fa, fb);
        settle.done();
      },
      onOrdered: (index, values) => accumulator.addOrdered(index, values),
    },
    options.rgb,
  );
  return {
    submit: (index, a, b) => helpers.submit(index, frameRecords(a), frameRecords(b)),
    drain: () => helpers.drain(),
    close: () => helpers.close(),
  };
}
