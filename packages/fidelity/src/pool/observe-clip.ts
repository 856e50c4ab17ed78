/**
 * The frame loop's observer of one side's clip analysis (metrics/clip-video.ts): every frame of that
 * side, in order, before the frame moves anywhere else (docs/metrics.md, "Clip validity"); its
 * figures once the decoder's timestamps and log are in.
 */
import type { VideoLog } from '../media/video-decoder.js';
import type { ClipVideoAccumulator, DecoderFlags } from '../metrics/clip-video.js';
import type { ClipVideo } from '../schemas/clip.js';
import type { FrameObserver } from './frame-loop.js';

/** Seconds per tick of a time base; 1 when the decoder gave none (no frame). */
export function seconds(tb: { num: number; den: number } | null): number {
  return tb && tb.num > 0 && tb.den > 0 ? tb.num / tb.den : 1;
}

/** The clip checks' view of a side's video log: the corrupt count, and whether every frame had the first frame's size. */
export function decoderFlags(log: VideoLog): DecoderFlags {
  return { corruptFrames: log.corruptFrames, geometryStable: log.sizes ? log.sizes.changedTo === null : null };
}

/** Feeds side `side` (0 baseline, 1 candidate) of every frame pair to `clip`; finishes with that side's timestamps and log. */
export function observeClip(clip: ClipVideoAccumulator, side: 0 | 1): FrameObserver<ClipVideo> {
  return {
    addFrame(_index, a, b) {
      clip.addFrame(side === 0 ? a : b);
    },
    finish(end) {
      const times = end.times[side];
      return clip.finish({ timeBase: seconds(times.timeBase), frames: times.frames.map((f) => ({ pts: f.pts, duration: f.duration })) }, decoderFlags(end.logs[side]));
    },
    close: () => clip.close(),
  };
}
