/**
 * The temporal offset diagnosis (docs/metrics.md, "Temporal offset"): does
 * the candidate look shifted in time against the baseline, as a dropped or
 * repeated frame makes it? A diagnosis only: every metric of the pair stays
 * frame-aligned (docs/metrics.md: no best-offset alignment), and nothing here
 * changes a metric or a check.
 *
 * What it measures: on K evenly spaced candidate frames n (at most
 * SAMPLED_FRAMES), FFmpeg's SSIM on the Y plane (the x264 approximation of
 * ssim-ffmpeg.ts, the `ssim_ffmpeg` metric's kernel) of baseline frame n + k
 * against candidate frame n, for every offset k in -M..M (M = MAX_OFFSET,
 * less for a stream under 5 frames). Only frames n with every n + k inside
 * the stream are sampled, so each offset's mean is over the same frames.
 *
 * Why that SSIM, and not the Gaussian one of the `ssim` metric: cost. It is
 * about 0.5 ms per 1344x768 Y plane where the Gaussian kernel takes several,
 * so the 40 SSIMs of a pair cost about 20 ms of CPU in every metric set. A
 * diagnosis needs to rank five offsets, not to be a metric. Each SSIM
 * starts from zeroed line buffers of its own (ssimFfmpegPlane's rule): the
 * metric's buffers, which carry from frame to frame, are never touched, so
 * the values are the same whatever the metric set, and offset 0 is measured
 * here too (it differs from the `ssim_ffmpeg` Y series in the last float
 * bits, by that carry).
 *
 * Cost, bounded: K * (2M + 1) = 40 plane SSIMs per pair at most, and the Y
 * planes of at most 2M + 2 frames held at a time: the measuring thread keeps
 * a copy of the baseline frames around each sampled frame as they stream
 * past, and measures a sample as soon as its last baseline frame (n + M) has
 * arrived. The copies are made before a frame is moved to a helper thread,
 * and the SSIMs run in the measuring thread, in frame order: the same bytes
 * for every helper thread count.
 *
 * The choice (chooseOffset): the offset with the highest mean (ties to the
 * smaller |k|, then the negative one) is reported when it beats offset 0 by
 * MIN_GAIN in mean SSIM and closes at least GAP_SHARE of the gap to 1 that
 * offset 0 leaves ((1 - best) <= (1 - zero) / 2); otherwise `frames` is 0.
 */
import { FidelityError } from '../errors.js';
import type { TemporalOffset } from '../schemas/measurement.js';
import { ffmpegPlaneAt, ffmpegTempInts } from './ssim-ffmpeg.js';
import { kernels, Layout } from './wasm.js';

/** The largest shift searched either way, in frames. */
export const MAX_OFFSET = 2;
/** The most candidate frames sampled per pair. */
export const SAMPLED_FRAMES = 8;
/** How much higher the best offset's mean SSIM must be than offset 0's. */
export const MIN_GAIN = 0.01;
/** The share of offset 0's gap to 1 (1 - mean) the best offset must close. */
export const GAP_SHARE = 0.5;

/** The offsets searched and the candidate frames sampled for a stream of `frames` frames; null when no offset can be searched (under 3 frames). */
export function offsetSearchPlan(frames: number): { offsets: number[]; sampled: number[] } | null {
  if (!Number.isInteger(frames) || frames < 3) return null;
  const m = Math.min(MAX_OFFSET, Math.floor((frames - 1) / 2));
  const offsets = Array.from({ length: 2 * m + 1 }, (_, i) => i - m);
  // Frames n with n - m >= 0 and n + m <= frames - 1; K of them, each at the middle of its share.
  const valid = frames - 2 * m;
  const k = Math.min(SAMPLED_FRAMES, valid);
  const sampled = Array.from({ length: k }, (_, i) => m + Math.floor(((2 * i + 1) * valid) / (2 * k)));
  return { offsets, sampled };
}

/** The mean of each offset's column, in sample order (float64, one fixed order: the same bits everywhere). */
export function offsetMeans(byFrame: readonly (readonly number[])[], offsets: number): number[] {
  const means: number[] = [];
  for (let j = 0; j < offsets; j++) {
    let sum = 0;
    for (const row of byFrame) sum += row[j]!;
    means.push(sum / byFrame.length);
  }
  return means;
}

/** The reported offset (chooseOffset's rule in the module comment) from each offset's mean. */
export function chooseOffset(offsets: readonly number[], means: readonly number[]): number {
  const zero = offsets.indexOf(0);
  if (zero < 0 || means.length !== offsets.length) throw new FidelityError('INTERNAL', 'offset means without offset 0');
  // Smaller shifts first, the negative one before the positive: a tie goes to the simpler explanation.
  const order = offsets
    .map((k, i) => ({ k, i }))
    .filter((x) => x.k !== 0)
    .sort((x, y) => Math.abs(x.k) - Math.abs(y.k) || x.k - y.k);
  let best: { k: number; i: number } | null = null;
  for (const x of order) if (best === null || means[x.i]! > means[best.i]!) best = x;
  if (best === null) return 0;
  const [b, z] = [means[best.i]!, means[zero]!];
  return b - z >= MIN_GAIN && 1 - b <= GAP_SHARE * (1 - z) ? best.k : 0;
}

/** The report's field from the per-frame values ({@link TemporalOffset}). */
export function temporalOffsetOf(offsets: readonly number[], sampled: readonly number[], byFrame: readonly (readonly number[])[]): TemporalOffset {
  const means = offsetMeans(byFrame, offsets.length);
  const frames = chooseOffset(offsets, means);
  return {
    frames,
    ssim_mean_at_offset: means[offsets.indexOf(frames)]!,
    ssim_mean_at_zero: means[offsets.indexOf(0)]!,
    searched: { offsets: [...offsets], sampled_frames: [...sampled], ssim_by_frame: byFrame.map((r) => [...r]), ssim_means: means },
  };
}

/** The smallest plane side FFmpeg's SSIM takes: two whole 4x4 blocks (ssim-ffmpeg.ts, checkFfmpegSize). */
export const MIN_PLANE_SIDE = 8;

/** Whether a stream of `frames` frames of `width` x `height` Y planes is searched (the report has the field exactly then, for video that differs). */
export function canSearch(width: number, height: number, frames: number): boolean {
  return width >= MIN_PLANE_SIDE && height >= MIN_PLANE_SIDE && offsetSearchPlan(frames) !== null;
}

/**
 * FFmpeg's SSIM on Y of candidate plane `b` against each of `baselines`, in order, every one from
 * zeroed line buffers of its own: `b` is written into wasm memory once, each baseline plane in turn.
 */
export function ssimAgainst(baselines: readonly Uint8Array[], b: Uint8Array, width: number, height: number): number[] {
  const k = kernels();
  const bytes = width * height;
  const ints = ffmpegTempInts(width);
  const layout = new Layout(k.base);
  const [pa, pb, temp] = [layout.take(bytes), layout.take(bytes), layout.take(4 * ints)];
  k.reserve(layout.size - k.base);
  k.u8(pb, bytes).set(b);
  return baselines.map((a) => {
    // Equal planes: the kernel gives exactly 1 there (every window's numerator is its denominator), without the work.
    if (equalBytes(a, b)) return 1;
    k.u8(pa, bytes).set(a);
    k.i32(temp, ints).fill(0);
    return ffmpegPlaneAt(k, pa, pb, width, height, temp);
  });
}

/**
 * How far offset 0's value (fresh line buffers) may be from the `ssim_ffmpeg` metric's Y of the same
 * frame (buffers carried from frame to frame) for planes `height` rows high. The carry changes only
 * the windows the kernel computes past a row's end and subtracts again, so only float32 rounding
 * moves: at most about one unit in the last place of the running sum per row of windows, that is
 * (height / 4 + 3) * 2^-23 of the mean. Twice that, so an honest value is never refused: 4.6e-5 at
 * 768 rows. Measured: about 1e-6 (docs/metrics.md, "Temporal offset").
 */
export function carryTolerance(height: number): number {
  return ((height >> 2) + 3) * 2 ** -22;
}

/** One stream's search: feed every frame's Y planes in order, then finish. */
export interface TemporalOffsetSearch {
  /** Frame `index` (0, 1, 2, ... in order) of both streams: keeps the Y planes the search needs (copied), measures a sample whose frames are all in. */
  add(index: number, a: Uint8Array, b: Uint8Array): void;
  /** The diagnosis once every frame was added. */
  finish(): TemporalOffset;
}

const equalBytes = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));

/**
 * Starts the search for a stream of `frames` frames of `width` x `height` Y planes; null when it
 * cannot run ({@link canSearch}: fewer than 3 frames, or a side under 8 pixels).
 */
export function createTemporalOffsetSearch(width: number, height: number, frames: number): TemporalOffsetSearch | null {
  const plan = offsetSearchPlan(frames);
  if (!plan || !canSearch(width, height, frames)) return null;
  const { offsets, sampled } = plan;
  const m = offsets[offsets.length - 1]!;
  const neededBaseline = new Set(sampled.flatMap((n) => offsets.map((k) => n + k)));
  const neededCandidate = new Set(sampled);
  const baseline = new Map<number, Uint8Array>();
  const candidate = new Map<number, Uint8Array>();
  const byFrame: number[][] = [];
  let nextSample = 0;
  let expected = 0;
  // Copies no longer needed are reused for the next ones: at most 2M + 2 planes are ever allocated,
  // where a fresh copy per kept plane would be about 50 a pair, each a megabyte of new memory to fault in.
  const spare: Uint8Array[] = [];
  const copy = (plane: Uint8Array): Uint8Array => {
    const into = spare.pop() ?? new Uint8Array(plane.length);
    into.set(plane);
    return into;
  };

  const measure = (n: number): void => {
    byFrame.push(ssimAgainst(offsets.map((k) => baseline.get(n + k)!), candidate.get(n)!, width, height));
    spare.push(candidate.get(n)!);
    candidate.delete(n);
  };

  return {
    add(index, a, b) {
      if (index !== expected) throw new FidelityError('INTERNAL', `temporal offset search: frame ${index} added where ${expected} was expected`);
      expected++;
      if (neededBaseline.has(index)) baseline.set(index, copy(a));
      if (neededCandidate.has(index)) candidate.set(index, copy(b));
      while (nextSample < sampled.length && sampled[nextSample]! + m === index) {
        measure(sampled[nextSample]!);
        nextSample++;
        // Baseline frames before the next sample's window are needed no more.
        const from = nextSample < sampled.length ? sampled[nextSample]! - m : Infinity;
        for (const [j, plane] of baseline) {
          if (j < from) {
            spare.push(plane);
            baseline.delete(j);
          }
        }
      }
    },
    finish() {
      if (nextSample !== sampled.length) throw new FidelityError('INTERNAL', `temporal offset search finished after ${expected} of ${frames} frames`);
      return temporalOffsetOf(offsets, sampled, byFrame);
    },
  };
}
