/**
 * The video half of one clip's own analysis (docs/metrics.md, "Clip validity"), InferenceX's
 * `analyze_media` figures: every decoded frame as rgb24 (the same converter as the pair metrics,
 * rgb24.ts), frame by frame, and every frame's presentation timestamp.
 *
 * - black: the frame's largest rgb24 sample is <= 3; white: its smallest is >= 252; blank: either.
 * - duplicate: the frame is byte-equal to the one before; adjacent MAE: sum|a - b| / (samples * 255)
 *   against the one before; frozen: that MAE <= 1/1024.
 *
 * The accumulator keeps two rgb24 images (this frame's and the previous one) in a kernels instance
 * of its own (wasm.ts leaseKernels), so the previous frame is never copied back and forth. One kernel
 * pass per frame (wasm/kernels.c `clip_frame_yuv`, or `clip_frame_rgb24` for ffmpeg's rgb24) makes
 * the image and gives its largest and smallest sample and the exact integer sum |a - b| against the
 * previous image (kept in the kernel's own planar order: none of the three depends on it): black, white, duplicate (a sum of 0) and the MAE from three numbers, no image
 * scanned in JavaScript and no squares summed that no figure uses. Fed in frame order by the thread that
 * reads the decoder (pool/measure-pair.ts), before a frame goes anywhere else.
 */
import { FidelityError } from '../errors.js';
import type { ClipVideo, IndexRange } from '../schemas/clip.js';
import type { DecodedFrame, FrameGeometry } from './frame.js';
import { clipFrameRgb24At } from './rgb24.js';
import type { RgbConversion } from './rgb24.js';
import { align, Layout, leaseKernels, returnKernels } from './wasm.js';

/** Largest sample of a black frame, smallest of a white one (InferenceX's thresholds). */
export const BLACK_MAX = 3;
export const WHITE_MIN = 252;
/** Adjacent frames at most this far apart (MAE over rgb24, 0..1) are frozen. */
export const FROZEN_MAE = 1 / 1024;

/** One decoded frame's timing, as the decoder reports it: PTS (null: none) and duration, in time-base ticks. */
export interface FrameTime {
  pts: number | null;
  duration: number;
}

/** A stream's frame timings and their time base (seconds per tick). */
export interface StreamTimes {
  timeBase: number;
  frames: readonly FrameTime[];
}

/**
 * What the decoder's log said of the stream (media/decoder-log.ts): frames it flagged corrupt, and
 * whether every frame had the first one's size; null where the log does not tell.
 */
export interface DecoderFlags {
  corruptFrames: number | null;
  geometryStable: boolean | null;
}

/** What the frames alone give; the timestamps and the decoder's flags are added at the end. */
export interface ClipVideoAccumulator {
  /** The next decoded frame, in order. Its planes (or its rgb24, when ffmpeg converted it) are read, not kept. */
  addFrame(frame: DecodedFrame): void;
  /** The figures, with the stream's timestamps and the decoder's flags; gives the kernels back. */
  finish(times: StreamTimes, flags: DecoderFlags): ClipVideo;
  /** Gives the kernels back without a result (error paths); safe after finish(). */
  close(): void;
}

/** Runs of true values as inclusive index ranges. */
function runsOf(flags: readonly boolean[], offset = 0): IndexRange[] {
  const runs: IndexRange[] = [];
  let start = -1;
  flags.forEach((on, i) => {
    if (on && start < 0) start = i;
    if (!on && start >= 0) {
      runs.push([start + offset, i - 1 + offset]);
      start = -1;
    }
  });
  if (start >= 0) runs.push([start + offset, flags.length - 1 + offset]);
  return runs;
}

/**
 * The timestamp figures (docs/metrics.md): intervals between consecutive frames that both have a
 * PTS; a frame without one is missing; a PTS at or below the last one seen is non-increasing. The
 * end is the last timed frame's PTS plus its duration (or, with none, the last interval).
 */
export function frameTimeFigures(times: StreamTimes): Pick<
  ClipVideo,
  'min_frame_interval_seconds' | 'max_frame_interval_seconds' | 'missing_timestamps' | 'nonincreasing_timestamps' | 'time_base_seconds' | 'start_seconds' | 'end_seconds'
> {
  const tb = times.timeBase;
  let min: number | null = null;
  let max: number | null = null;
  let missing = 0;
  let nonincreasing = 0;
  let last: FrameTime | null = null;
  let first: number | null = null;
  let lastInterval: number | null = null;
  for (const f of times.frames) {
    if (f.pts === null) {
      missing++;
      continue;
    }
    first ??= f.pts;
    if (last && last.pts !== null) {
      if (f.pts <= last.pts) nonincreasing++;
      const interval = (f.pts - last.pts) * tb;
      min = min === null ? interval : Math.min(min, interval);
      max = max === null ? interval : Math.max(max, interval);
      lastInterval = interval;
    }
    last = f;
  }
  const end = last && last.pts !== null ? last.pts * tb + (last.duration > 0 ? last.duration * tb : (lastInterval ?? 0)) : null;
  return {
    min_frame_interval_seconds: min,
    max_frame_interval_seconds: max,
    missing_timestamps: missing,
    nonincreasing_timestamps: nonincreasing,
    time_base_seconds: tb,
    start_seconds: first === null ? null : first * tb,
    end_seconds: end,
  };
}

/**
 * The clip video accumulator of one stream at `geometry`, its rgb24 made as `rgb` says (the pair
 * metrics' conversion: frames carry ffmpeg's rgb24 when `rgb.by` is `ffmpeg`).
 */
export function createClipVideoAccumulator(geometry: FrameGeometry, rgb: RgbConversion): ClipVideoAccumulator {
  const rgbBytes = geometry.width * geometry.height * 3;
  const slot = align(rgbBytes);
  const { kernels: k, keptAt } = leaseKernels(2 * slot + 32);
  const stats = keptAt + 2 * slot;
  let current = 0;
  let frames = 0;
  let black = 0;
  let white = 0;
  let duplicates = 0;
  let maeSum = 0;
  let frozen = 0;
  const blank: boolean[] = [];
  const still: boolean[] = [];
  let returned = false;
  const giveBack = (): void => {
    if (!returned) returnKernels(k);
    returned = true;
  };

  return {
    addFrame(frame) {
      if (returned) throw new FidelityError('INTERNAL', 'a clip video accumulator was fed after it finished');
      if (frame.width !== geometry.width || frame.height !== geometry.height) {
        throw new FidelityError('INTERNAL', `a ${frame.width}x${frame.height} frame in a ${geometry.width}x${geometry.height} clip analysis`);
      }
      const out = keptAt + current * slot;
      // The previous frame's image stays where it was made: 0 asks the kernel for no difference.
      const previous = frames > 0 ? keptAt + (1 - current) * slot : 0;
      if (rgb.by === 'ffmpeg') {
        if (!frame.rgb || frame.rgb.length !== rgbBytes) throw new FidelityError('INTERNAL', 'a frame without its rgb24 in a clip analysis that reads ffmpeg\'s');
        k.u8(out, rgbBytes).set(frame.rgb);
        k.fn.clip_frame_rgb24(out, previous, rgbBytes, stats);
      } else {
        const layout = new Layout(k.base);
        const at = { y: layout.take(frame.y.length), u: layout.take(frame.u.length), v: layout.take(frame.v.length), out, prev: previous, stats };
        k.reserve(layout.size - k.base);
        k.u8(at.y, frame.y.length).set(frame.y);
        k.u8(at.u, frame.u.length).set(frame.u);
        k.u8(at.v, frame.v.length).set(frame.v);
        // Converted, scanned and differenced in one pass (wasm/kernels.c clip_frame_yuv).
        clipFrameRgb24At(k, at, geometry, rgb);
      }
      const figures = k.f64(stats, 3);
      const largest = figures[0]!;
      const smallest = figures[1]!;
      const sad = figures[2]!;
      const isBlack = largest <= BLACK_MAX;
      const isWhite = !isBlack && smallest >= WHITE_MIN;
      if (isBlack) black++;
      if (isWhite) white++;
      blank.push(isBlack || isWhite);
      if (frames > 0) {
        // Byte-equal images are exactly those whose absolute differences sum to 0.
        if (sad === 0) duplicates++;
        const mae = sad / (rgbBytes * 255);
        maeSum += mae;
        const isFrozen = mae <= FROZEN_MAE;
        if (isFrozen) frozen++;
        still.push(isFrozen);
      }
      frames++;
      current = 1 - current;
    },
    finish(times, flags) {
      giveBack();
      const pairs = frames - 1;
      const over = (count: number, n: number): number | null => (n > 0 ? count / n : null);
      // A frozen adjacent pair (i-1, i) joins frames i-1 and i: a run of them covers [first - 1, last].
      const frozenRuns = runsOf(still).map(([a, b]): IndexRange => [a, b + 1]);
      return {
        frame_count: frames,
        width: geometry.width,
        height: geometry.height,
        blank_fraction: over(black + white, frames),
        black_fraction: over(black, frames),
        white_fraction: over(white, frames),
        duplicate_fraction: over(duplicates, pairs),
        mean_adjacent_frame_mae: pairs > 0 ? maeSum / pairs : null,
        frozen_fraction: over(frozen, pairs),
        ...frameTimeFigures(times),
        corrupt_frame_count: flags.corruptFrames,
        geometry_stable: flags.geometryStable,
        blank_runs: runsOf(blank),
        frozen_runs: frozenRuns,
      };
    },
    close: giveBack,
  };
}
