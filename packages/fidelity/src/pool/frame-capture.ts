/**
 * What compare's bundle shows of a pair, kept while measuring so it is not
 * decoded twice (docs/report.md, "Stills and difference audio"): both sides'
 * decoded planes (and ffmpeg's rgb24 where the stream's conversion is
 * ffmpeg's) of the frame the stills show, and the first seconds of both
 * sides' decoded audio.
 *
 * The stills show the worst frame of the charted series (bundle/video-series.ts
 * worstFrameOf: the Gaussian SSIM, else FFmpeg's All, else the 7x7 RGB SSIM,
 * else PSNR Y, else frame 0), known only once every frame is measured, and a
 * frame's value may come back after its buffers went back to the decoder
 * (the SSIM helper thread) or out of order (the value helpers). So the
 * capture keeps a copy of the frame the stills would show if measuring ended
 * now: the worst so far, as the series' summary picks it (metrics/series.ts:
 * the smallest value, the first index on ties; NaN is nobody's worst), and
 * frame 0 while there is none (a set that computes none of those series,
 * such as `inferencex`, or a series with no value yet); it replaces the copy
 * when a worse (value, index) comes in, and holds copies of the few frames
 * whose value is still out. At the end it hands the frame over only when it
 * is the stills' frame by the series it tracks (its worst_frame, else frame
 * 0); the bundle takes it only when it is worstFrameOf's frame, and extracts
 * any other again (the same bytes). Memory: the kept frame, the frames out
 * (two at most with the SSIM helper), and the audio head.
 */
import type { FramePlanes, PairCapture } from '../media/frames.js';
import type { DecodedFrame } from '../metrics/frame.js';
import { psnrFromSse } from '../metrics/psnr.js';
import type { MetricName } from '../metrics/registry.js';
import type { FrameValues } from '../metrics/video.js';
import type { VideoMetrics } from '../schemas/measurement.js';

/** What a pair's measurement is asked to keep: the audio head's length in seconds. */
export interface KeepOptions {
  audioSeconds: number;
}

/** The series a metric set's stills follow, and how one frame's value of it is read from the metric's per-frame value. */
interface Tracked {
  name: MetricName;
  read: (value: unknown) => number;
  worst: (video: VideoMetrics) => number | null | undefined;
}

/** The order of bundle/video-series.ts worstFrameOf, for the metrics a set computes. */
function trackedSeries(metrics: readonly MetricName[], samples: number): Tracked | null {
  const num = (v: unknown): number => (typeof v === 'number' ? v : Number.NaN);
  if (metrics.includes('ssim')) return { name: 'ssim', read: num, worst: (v) => v.ssim?.worst_frame };
  if (metrics.includes('ssim_ffmpeg')) return { name: 'ssim_ffmpeg', read: (v) => num((v as { all?: unknown } | null)?.all), worst: (v) => v.ssim_ffmpeg?.all.worst_frame };
  if (metrics.includes('ssim_rgb7')) return { name: 'ssim_rgb7', read: num, worst: (v) => v.ssim_rgb7?.worst_frame };
  // The per-frame value is the sum of squared differences; the series is its PSNR (null, nobody's worst, for an equal frame).
  if (metrics.includes('psnr_y')) return { name: 'psnr_y', read: (v) => (typeof v === 'number' ? (psnrFromSse(v, samples) ?? Number.NaN) : Number.NaN), worst: (v) => v.psnr_y?.worst_frame };
  return null;
}

/** A copy of both sides of one frame. */
interface Copy {
  baseline: FramePlanes;
  candidate: FramePlanes;
}

export interface FrameCapture {
  /** The accumulator's hook (VideoMetricOptions.onValues): every filed part of every frame. */
  onValues(index: number, values: FrameValues): void;
  /**
   * Frame `index` is at hand (before its buffers go back): kept when it is the stills' frame so far
   * (the worst, or frame 0 while there is none), or copied aside when `pending` (its value is still to come).
   */
  frame(index: number, a: DecodedFrame, b: DecodedFrame, pending: boolean): void;
  /** Both sides' first audio chunks, copied (the caller's arrays may be moved or reused). */
  audio(a: Float32Array[] | undefined, b: Float32Array[] | undefined): void;
  /** What was kept, given the measured metrics: the frame only when it is the stills' frame. */
  finish(video: VideoMetrics | null): PairCapture;
}

/**
 * A capture for one pair: `pixFmt` and `samples` (width * height) describe the frames, `rgb24` says
 * whether they carry ffmpeg's rgb24, `audioSamples` is the head's length per channel (0: no audio kept).
 */
export function createFrameCapture(metrics: readonly MetricName[], frames: { pixFmt: string; samples: number; rgb24: boolean }, audioSamples: number): FrameCapture {
  const tracked = trackedSeries(metrics, frames.samples);
  let best: { index: number; value: number } | null = null;
  let kept: { index: number; copy: Copy } | null = null;
  const pending = new Map<number, Copy>();
  /** Per side, per channel, the head's chunks. */
  const heads: [Float32Array[][], Float32Array[][]] = [[], []];
  let headLength = 0;

  /** Plane buffers of copies no longer needed, for the next ones: a copy per differing frame would otherwise be an allocation each. */
  const spare: Uint8Array[] = [];
  const recycle = (copy: Copy | null | undefined): void => {
    if (copy) spare.push(copy.baseline.planes, copy.candidate.planes);
  };
  const side = (f: DecodedFrame): FramePlanes => {
    const bytes = f.y.length + f.u.length + f.v.length;
    const reused = spare.pop();
    const planes = reused?.length === bytes ? reused : new Uint8Array(bytes);
    planes.set(f.y, 0);
    planes.set(f.u, f.y.length);
    planes.set(f.v, f.y.length + f.u.length);
    const rgb = frames.rgb24 && f.rgb && f.rgb.length > 0 ? f.rgb.slice() : null;
    return { pixFmt: frames.pixFmt, width: f.width, height: f.height, chromaWidth: f.chromaWidth, chromaHeight: f.chromaHeight, planes, rgb };
  };
  /** (value, index) before `best` as the series' summary orders them: a smaller value, or the same value at a smaller index. */
  const worse = (index: number, value: number): boolean => {
    if (Number.isNaN(value)) return false;
    if (!best) return value < Infinity;
    return value < best.value || (value === best.value && index < best.index);
  };

  /** The frame the stills would show if measuring ended now: the worst so far, else frame 0. */
  const still = (): number => best?.index ?? 0;
  /** Keeps `copy` (null: frame() keeps it when it comes, or it is gone) as frame `index`, dropping the copy kept before. */
  const keep = (index: number, copy: Copy | null): void => {
    recycle(kept?.copy);
    kept = copy ? { index, copy } : null;
  };

  return {
    onValues(index, values) {
      if (!tracked || !(tracked.name in values.metrics)) return;
      const copy = pending.get(index);
      pending.delete(index);
      const value = tracked.read(values.metrics[tracked.name]);
      if (worse(index, value)) best = { index, value };
      // The copy set aside becomes the kept one when its frame is now the stills' (a worse value, or
      // frame 0 with no value yet); a new worst whose frame was not set aside is kept by frame().
      if (index === still() && kept?.index !== index) keep(index, copy ?? null);
      else recycle(copy);
    },
    frame(index, a, b, isPending) {
      if (tracked && isPending) pending.set(index, { baseline: side(a), candidate: side(b) });
      else if (index === still() && kept?.index !== index) keep(index, { baseline: side(a), candidate: side(b) });
    },
    audio(a, b) {
      if (!a || !b || headLength >= audioSamples) return;
      const n = Math.min(a[0]?.length ?? 0, b[0]?.length ?? 0, audioSamples - headLength);
      if (n <= 0) return;
      heads[0].push(a.map((c) => c.slice(0, n)));
      heads[1].push(b.map((c) => c.slice(0, n)));
      headLength += n;
    },
    finish(video) {
      pending.clear();
      spare.length = 0;
      // The stills' frame by the series tracked: its worst frame, else frame 0 (none, or a set without one).
      const index = video ? ((tracked ? tracked.worst(video) : null) ?? 0) : null;
      const frame = kept && index === kept.index ? { index: kept.index, ...kept.copy } : null;
      const audio = headLength > 0 ? { baseline: join(heads[0], headLength), candidate: join(heads[1], headLength) } : null;
      return { frame, audio };
    },
  };
}

/** The head's chunks (each one array per channel) joined into one array per channel. */
function join(chunks: readonly Float32Array[][], length: number): Float32Array[] {
  const channels = chunks[0]?.length ?? 0;
  return Array.from({ length: channels }, (_, c) => {
    const plane = new Float32Array(length);
    let at = 0;
    for (const chunk of chunks) {
      plane.set(chunk[c]!, at);
      at += chunk[c]!.length;
    }
    return plane;
  });
}
