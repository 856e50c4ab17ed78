/**
 * The frame loop's observer of the temporal offset diagnosis (metrics/temporal-offset.ts): it keeps
 * copies of a few Y planes, taken before a frame moves to a helper, so it runs in the loop's thread,
 * in frame order, for every thread count. Video that does not differ has nothing to diagnose.
 */
import type { TemporalOffsetSearch } from '../metrics/temporal-offset.js';
import type { TemporalOffset } from '../schemas/measurement.js';
import type { FrameObserver } from './frame-loop.js';

/** Feeds every frame's Y planes to `search`; its diagnosis, or null when the video is identical. */
export function observeOffset(search: TemporalOffsetSearch): FrameObserver<TemporalOffset | null> {
  return {
    addFrame(index, a, b) {
      search.add(index, a.y, b.y);
    },
    finish: (end) => (end.video()?.identical === false ? search.finish() : null),
    close() {},
  };
}
