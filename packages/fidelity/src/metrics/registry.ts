/**
 * The metric registry: every video metric is one definition (name, what it
 * needs decoded, whether it must see the frames in order, and init / frame /
 * finish), and a metric set is a list of names. What a user asks for
 * decides the work: only the chosen definitions run, rgb24 is converted
 * (rgb24.ts) only when one of them reads it, and the audio is decoded only
 * when `audio` is chosen (docs/metrics.md, "Metric sets").
 *
 * A definition's `init` runs once per stream (size checks, constants, the
 * plane weights); `frame` runs once per frame pair and may only depend on
 * that pair (or, for a `temporal` definition, on the frames before it in
 * order); `finish` pools the per-frame values in frame order, so the result
 * is the same bytes whichever thread computed which frame.
 */
import { FidelityError, invalidParameter } from '../errors.js';
import type { VideoMetrics } from '../schemas/measurement.js';
import type { DecodedFrame, FrameGeometry } from './frame.js';
import { checkPlane } from './planes.js';
import { PooledDiff, diffStatsAt, psnrFromSse } from './psnr.js';
import type { DiffStats } from './psnr.js';
import { summarizePsnr, summarizeSsim } from './series.js';
import { FfmpegSsimState, checkFfmpegSize, ffmpegPlaneWeights } from './ssim-ffmpeg.js';
import type { FfmpegSsim } from './ssim-ffmpeg.js';
import { GAUSSIAN_TAPS_BYTES, checkGaussianSize, gaussianScratchBytes, writeGaussianTaps } from './ssim-gaussian.js';
import { boxScratchBytes, boxWindows, checkBoxSize } from './ssim-rgb7.js';
import { DEFAULT_RGB_CONVERSION, checkRgbConversion, convertRgb24At, rgb24DiffAt } from './rgb24.js';
import type { RgbConversion } from './rgb24.js';
import { kernels, Layout } from './wasm.js';
import type { Kernels } from './wasm.js';

export { METRIC_NAMES, METRIC_SETS, describeMetrics, resolveMetrics } from './names.js';
export type { MetricName, MetricSelection, MetricSetName, MetricsSpec } from './names.js';
import type { MetricName } from './names.js';

/** The plane pairs a definition reads, each copied once per frame into the kernels' memory. */
export type PlaneName = 'y' | 'u' | 'v' | 'rgb';

/** One frame pair as the definitions see it. */
export interface FrameContext {
  readonly k: Kernels;
  readonly g: FrameGeometry;
  /** Both frames' plane bytes are equal (a byte compare, done once per frame and plane). */
  equal(plane: PlaneName): boolean;
  /** Where the baseline and candidate plane lie in the kernels' memory; copied on the first call of the frame. */
  at(plane: PlaneName): [number, number];
  /** diff_stats of the two frames' rgb24: from the converted images when a metric reads them, else in one pass from the planes. */
  rgbDiff(): DiffStats;
  /** 16 bytes for a kernel's small results. */
  readonly out: number;
  /** The Gaussian taps' place. */
  readonly taps: number;
  /** Scratch of the largest definition's size. */
  readonly scratch: number;
}

/**
 * One video metric. `S` is its per-stream state (from `init`), `F` its value of one frame.
 * `temporal` definitions carry state from frame to frame: one instance must see every frame in order.
 */
export interface VideoMetricDef<S = unknown, F = unknown> {
  /** The definition's own name (the key of its per-frame values). */
  readonly name: string;
  /** The selectable metrics it fills; it runs when any of them is chosen. */
  readonly provides: readonly MetricName[];
  /** What it reads: the decoded planes, or rgb24 (made from them here, or by ffmpeg as a fallback: rgb24.ts). */
  readonly needs: readonly ('yuv' | 'rgb24')[];
  readonly planes: readonly PlaneName[];
  readonly temporal: boolean;
  /** Once per stream: size checks (FRAME_TOO_SMALL), constants, the scratch it needs. */
  init(g: FrameGeometry): S;
  scratchBytes(g: FrameGeometry): number;
  frame(state: S, f: FrameContext): F;
  /** The report fields, from every frame's value in frame order; only the `chosen` ones. */
  finish(values: readonly F[], g: FrameGeometry, chosen: ReadonlySet<MetricName>): Partial<VideoMetrics>;
}

const defineMetric = <S, F>(def: VideoMetricDef<S, F>): VideoMetricDef<S, F> => def;

/** Wang et al. Gaussian SSIM on Y (ssim-gaussian.ts). Equal planes give exactly 1 from the kernel: skipped. */
const SSIM = defineMetric<null, number>({
  name: 'ssim',
  provides: ['ssim'],
  needs: ['yuv'],
  planes: ['y'],
  temporal: false,
  init(g) {
    checkGaussianSize(g.width, g.height);
    return null;
  },
  scratchBytes: (g) => gaussianScratchBytes(g.width),
  frame(_s, f) {
    if (f.equal('y')) return 1;
    const [pa, pb] = f.at('y');
    writeGaussianTaps(f.k, f.taps);
    return f.k.fn.ssim_gauss(pa, pb, f.g.width, f.g.height, f.taps, f.scratch);
  },
  finish: (values) => ({ ssim: summarizeSsim(values) }),
});

/** FFmpeg's SSIM, Y/U/V/All (ssim-ffmpeg.ts): its line buffers carry over, so it is temporal and never skipped. */
const SSIM_FFMPEG = defineMetric<{ state: FfmpegSsimState; weights: [number, number, number] }, FfmpegSsim>({
  name: 'ssim_ffmpeg',
  provides: ['ssim_ffmpeg'],
  needs: ['yuv'],
  planes: ['y', 'u', 'v'],
  temporal: true,
  init(g) {
    checkFfmpegSize(g.width, g.height);
    checkFfmpegSize(g.chromaWidth, g.chromaHeight);
    return { state: new FfmpegSsimState(g.width), weights: ffmpegPlaneWeights(g) };
  },
  scratchBytes: (g) => 4 * new FfmpegSsimState(g.width).temp.length,
  frame: (s, f) => s.state.frameWeighted(f.k, { y: f.at('y'), u: f.at('u'), v: f.at('v') }, f.g, f.scratch, s.weights),
  finish: (ff) => ({
    ssim_ffmpeg: {
      y: summarizeSsim(ff.map((f) => f.y)),
      u: summarizeSsim(ff.map((f) => f.u)),
      v: summarizeSsim(ff.map((f) => f.v)),
      all: summarizeSsim(ff.map((f) => f.all)),
    },
  }),
});

/** 7x7 uniform SSIM on rgb24, channels averaged (ssim-rgb7.ts). */
const SSIM_RGB7 = defineMetric<{ windows: number }, number>({
  name: 'ssim_rgb7',
  provides: ['ssim_rgb7'],
  needs: ['rgb24'],
  planes: ['rgb'],
  temporal: false,
  init(g) {
    checkBoxSize(g.width, g.height);
    return { windows: 3 * boxWindows(g.width, g.height) };
  },
  scratchBytes: (g) => boxScratchBytes(3 * g.width),
  frame(s, f) {
    if (f.equal('rgb')) return 1;
    const [pa, pb] = f.at('rgb');
    return f.k.fn.ssim_box7(pa, pb, 3 * f.g.width, f.g.height, 3, f.scratch) / s.windows;
  },
  finish: (values) => ({ ssim_rgb7: summarizeSsim(values) }),
});

/** Per-frame PSNR on Y, from the exact sum of squared differences. */
const PSNR_Y = defineMetric<{ samples: number }, number>({
  name: 'psnr_y',
  provides: ['psnr_y'],
  needs: ['yuv'],
  planes: ['y'],
  temporal: false,
  init: (g) => ({ samples: g.width * g.height }),
  scratchBytes: () => 0,
  frame(s, f) {
    if (f.equal('y')) return 0;
    const [pa, pb] = f.at('y');
    return diffStatsAt(f.k, pa, pb, s.samples, f.out).sse;
  },
  finish: (values, g) => ({ psnr_y: summarizePsnr(values.map((sse) => psnrFromSse(sse, g.width * g.height))) }),
});

/** InferenceX's pooled RGB figures: one pass over rgb24 gives both sums; pooled in frame order. */
const RGB_DIFF = defineMetric<{ samples: number }, DiffStats>({
  name: 'rgb_diff',
  provides: ['psnr_db', 'mae'],
  needs: ['rgb24'],
  planes: ['rgb'],
  temporal: false,
  init: (g) => ({ samples: 3 * g.width * g.height }),
  scratchBytes: () => 0,
  frame(_s, f) {
    if (f.equal('rgb')) return { sad: 0, sse: 0 };
    return f.rgbDiff();
  },
  finish(values, g, chosen) {
    const pooled = new PooledDiff();
    for (const v of values) pooled.add(v, 3 * g.width * g.height);
    return { ...(chosen.has('psnr_db') ? { psnr_db: pooled.psnrDb() } : {}), ...(chosen.has('mae') ? { mae: pooled.mae() } : {}) };
  },
});

/** Every video metric definition, in the order their values are computed and written. */
export const VIDEO_METRICS: readonly VideoMetricDef[] = [SSIM, SSIM_FFMPEG, SSIM_RGB7, PSNR_Y, RGB_DIFF].map((d) => d as unknown as VideoMetricDef);

/** The definitions a selection runs. */
export function videoMetricDefs(list: readonly MetricName[]): VideoMetricDef[] {
  return VIDEO_METRICS.filter((d) => d.provides.some((p) => list.includes(p)));
}

/** Whether this selection reads rgb24 (converted from the planes, or by ffmpeg where the formula does not apply). */
export function needsRgb24(list: readonly MetricName[]): boolean {
  return videoMetricDefs(list).some((d) => d.needs.includes('rgb24'));
}

/** Whether the selection measures audio. */
export function needsAudio(list: readonly MetricName[]): boolean {
  return list.includes('audio');
}

/** Checks a geometry: positive integers, chroma no larger than luma. */
export function checkGeometry(geometry: FrameGeometry): FrameGeometry {
  if (geometry === null || typeof geometry !== 'object') throw invalidParameter('geometry', 'an object', geometry);
  const { width, height, chromaWidth, chromaHeight } = geometry;
  for (const [name, value] of Object.entries({ width, height, chromaWidth, chromaHeight })) {
    if (!Number.isInteger(value) || value <= 0) throw invalidParameter(`geometry.${name}`, 'a positive integer', value);
  }
  if (chromaWidth > width || chromaHeight > height) {
    throw invalidParameter('geometry', 'chroma planes no larger than luma', `${chromaWidth}x${chromaHeight} for ${width}x${height}`);
  }
  return { width, height, chromaWidth, chromaHeight };
}

/** One role's values of one frame: by definition name, and (order-free role) whether the frame is identical. */
export interface RoleValues {
  identical?: boolean;
  metrics: Record<string, unknown>;
}

/** The definitions of one role, initialised for one stream, with their memory layout fixed once. */
export interface MetricRunner {
  readonly defs: readonly VideoMetricDef[];
  /** Runs every definition on one frame pair (this thread's kernels). */
  frame(a: DecodedFrame, b: DecodedFrame): RoleValues;
}

const bytesOf = (a: Uint8Array): Buffer => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

/**
 * Starts the definitions of one role (`temporal` true: the ordered ones, false: the order-free ones,
 * which also decide `identical`; null: both, in one thread, each plane copied into the kernels'
 * memory once per frame for all of them) for a stream of this geometry. The layout of the kernels' memory is
 * computed here, once; the planes are copied into it afresh on every frame, because that memory is
 * shared with every other metric call of the thread.
 *
 * rgb24 follows `rgb` (metrics/rgb24.ts): with `fidelity` (the default) it is converted here from
 * the Y, U and V planes already in the kernels' memory, once per frame and only when a chosen
 * definition reads it, and frames carry none; with `ffmpeg` every frame carries the rgb24 ffmpeg
 * made. Equal planes convert to equal rgb24, so such a frame is not converted at all.
 */
export function createMetricRunner(
  geometry: FrameGeometry,
  list: readonly MetricName[],
  temporal: boolean | null,
  rgbConversion: RgbConversion = DEFAULT_RGB_CONVERSION,
  k: Kernels = kernels(),
): MetricRunner {
  const g = checkGeometry(geometry);
  const defs = videoMetricDefs(list).filter((d) => temporal === null || d.temporal === temporal);
  const states = defs.map((d) => d.init(g));
  const rgb = needsRgb24(list);
  const conversion = rgb ? checkRgbConversion(rgbConversion, g) : null;
  const planes = new Set(defs.flatMap((d) => d.planes));
  // Converting here reads the three planes of each frame.
  const convert = planes.has('rgb') && conversion?.by === 'fidelity' ? conversion : null;
  if (convert) for (const p of ['y', 'u', 'v'] as const) planes.add(p);
  const sizes: Record<PlaneName, number> = { y: g.width * g.height, u: g.chromaWidth * g.chromaHeight, v: g.chromaWidth * g.chromaHeight, rgb: 3 * g.width * g.height };
  const layout = new Layout(k.base);
  const offsets = new Map<PlaneName, [number, number]>();
  for (const p of ['y', 'rgb', 'u', 'v'] as const) if (planes.has(p)) offsets.set(p, [layout.take(sizes[p]), layout.take(sizes[p])]);
  const taps = layout.take(GAUSSIAN_TAPS_BYTES);
  const out = layout.take(16);
  const scratch = layout.take(Math.max(16, ...defs.map((d) => d.scratchBytes(g))));
  const bytes = layout.size - k.base;
  // Now, not at the first frame: kernels holding frames pin their memory once every user has reserved (pool/frame-memory.ts).
  k.reserve(bytes);

  const checkFrame = (name: string, frame: DecodedFrame): void => {
    if (frame === null || typeof frame !== 'object') throw invalidParameter(name, 'a DecodedFrame', frame);
    if (frame.width !== g.width || frame.height !== g.height) throw invalidParameter(`${name} size`, `${g.width}x${g.height}`, `${frame.width}x${frame.height}`);
    checkPlane(`${name}.y`, frame.y, g.width, g.height);
    checkPlane(`${name}.u`, frame.u, g.chromaWidth, g.chromaHeight);
    checkPlane(`${name}.v`, frame.v, g.chromaWidth, g.chromaHeight);
    if (!rgb || temporal === true) return;
    if (conversion?.by === 'ffmpeg') checkPlane(`${name}.rgb`, frame.rgb, g.width, g.height, 3);
    else if (frame.rgb !== undefined && frame.rgb.length !== 0) {
      // Silently measuring other bytes than the caller handed in would be a lie: say which conversion to choose.
      throw invalidParameter(`${name}.rgb`, 'none (rgb24 is converted from the planes; pass { by: "ffmpeg", ... } to measure your own rgb24)', `${frame.rgb.length} bytes`);
    }
  };

  return {
    defs,
    frame(a, b) {
      checkFrame('a', a);
      checkFrame('b', b);
      k.reserve(bytes);
      const equal = new Map<PlaneName, boolean>();
      const copied = new Set<PlaneName>();
      const placedAt = new Map<PlaneName, [number, number]>();
      const ctx: FrameContext = {
        k,
        g,
        out,
        taps,
        scratch,
        equal(p) {
          let e = equal.get(p);
          if (e === undefined) {
            e = p === 'rgb' && convert ? ctx.equal('y') && ctx.equal('u') && ctx.equal('v') : bytesOf(a[p]!).equals(bytesOf(b[p]!));
            equal.set(p, e);
          }
          return e;
        },
        at(p) {
          const at = offsets.get(p);
          if (!at) throw new FidelityError('INTERNAL', `metric plane ${p} was not laid out`);
          if (!copied.has(p)) {
            if (p === 'rgb' && convert) {
              const [y, u, v] = [ctx.at('y'), ctx.at('u'), ctx.at('v')];
              for (const side of [0, 1] as const) convertRgb24At(k, { y: y[side], u: u[side], v: v[side], out: at[side] }, g, convert);
            } else {
              // A plane already in these kernels' memory (read there by the decoder: pool/frame-memory.ts) is used where it lies.
              // Only pinned kernels hold frames: no caller's bytes elsewhere in the memory overlap the layout.
              const memory = k.pinned ? k.fn.memory.buffer : null;
              const [pa, pb] = [a[p]!, b[p]!];
              const placed: [number, number] = [pa.buffer === memory ? pa.byteOffset : at[0], pb.buffer === memory ? pb.byteOffset : at[1]];
              if (pa.buffer !== memory) k.u8(at[0], sizes[p]).set(pa);
              if (pb.buffer !== memory) k.u8(at[1], sizes[p]).set(pb);
              placedAt.set(p, placed);
            }
            copied.add(p);
          }
          return placedAt.get(p) ?? at;
        },
        rgbDiff() {
          // Converted here and no metric reads the images: both conversions and the sums in one pass.
          if (convert && !copied.has('rgb')) {
            const [y, u, v] = [ctx.at('y'), ctx.at('u'), ctx.at('v')];
            return rgb24DiffAt(k, { y: y[0], u: u[0], v: v[0] }, { y: y[1], u: u[1], v: v[1] }, out, g, convert);
          }
          const [pa, pb] = ctx.at('rgb');
          return diffStatsAt(k, pa, pb, sizes.rgb, out);
        },
      };
      const metrics: Record<string, unknown> = {};
      defs.forEach((d, i) => (metrics[d.name] = d.frame(states[i], ctx)));
      if (temporal === true) return { metrics };
      // Every Y, U, V (and, when read, rgb24) sample equal; equal YUV converts to equal rgb24, so the set does not change it.
      const identical = ctx.equal('y') && (!rgb || ctx.equal('rgb')) && ctx.equal('u') && ctx.equal('v');
      return { identical, metrics };
    },
  };
}

/** The report's `video` for a stream: geometry, `identical`, and each chosen definition's fields. */
export function finishVideo(
  g: FrameGeometry,
  list: readonly MetricName[],
  frames: number,
  ordered: readonly RoleValues[],
  values: readonly RoleValues[],
  rgbConversion: RgbConversion = DEFAULT_RGB_CONVERSION,
): VideoMetrics {
  const chosen = new Set(list);
  const fields: Partial<VideoMetrics> = {};
  for (const d of videoMetricDefs(list)) {
    const source = d.temporal ? ordered : values;
    Object.assign(fields, d.finish(source.map((v) => v.metrics[d.name]) as never[], g, chosen));
  }
  // Field order of the schema, whatever the definitions' order: the report's bytes do not depend on it.
  const video: Record<string, unknown> = { width: g.width, height: g.height, frames };
  for (const key of ['ssim', 'ssim_ffmpeg', 'ssim_rgb7', 'psnr_y', 'psnr_db', 'mae'] as const) {
    if (fields[key] !== undefined) video[key] = fields[key];
  }
  // Which conversion made the rgb24 those figures read (docs/metrics.md, "RGB conversion").
  if (needsRgb24(list)) {
    video['rgb_conversion'] = rgbConversion.by;
    video['rgb_matrix'] = rgbConversion.matrix;
    video['rgb_range'] = rgbConversion.range;
  }
  video['identical'] = values.every((v) => v.identical === true);
  return video as VideoMetrics;
}
