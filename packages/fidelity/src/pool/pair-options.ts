/**
 * A pair measurement's options: their checks (the same for measurePair and the pool) and the
 * defaults chosen from the machine when the caller leaves them open (how many helper threads,
 * whether the SSIM runs beside). The results are the same bytes for every choice.
 */
import { invalidParameter } from '../errors.js';
import type { VideoProbe } from '../media/probe.js';
import { resolveMetrics } from '../metrics/registry.js';
import type { MeasureOptions } from './api.js';
import { checkBounded } from '../bounds.js';

/**
 * Per child process. Generous on purpose: a decoder waits (blocked on its
 * pipe) while the metrics run, so its wall-clock time is the whole
 * measurement's, which on two busy cores can reach minutes for a long clip.
 */
export const DEFAULT_DECODE_TIMEOUT_MS = 600_000;

/** The longest child limit in milliseconds: the most a Node timer waits (a larger one fires at once). */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/** More helpers than this only hold more frames in memory: the decoders cannot feed them. */
export const MAX_VIDEO_THREADS = 64;

/**
 * Helper threads for a pair's video when the caller leaves it open: `cores`
 * (the cores this pair may use) from AUTO_THREADS_MIN_CORES on, else none.
 *
 * With fewer cores, a frame's trip through the helpers (measuring thread ->
 * ordered helper -> value helper -> back) waits on threads that get no core:
 * measured on 2 idle cores, full-size pairs, every set was faster without
 * helpers (`default` 3.9 s against 5.5 s per pair, `all` 4.3 against 5.3,
 * `ffmpeg` 1.18 against 1.36; docs/performance.md). That was when the
 * decoders still converted rgb24 (4 ms of CPU per frame and file); with
 * planes-only decoders helpers cost more CPU on a busy 2-core machine, and
 * their wall gain on an idle one is not measured yet, so the threshold stands.
 * None for a small stream either, where starting threads costs more than they
 * save. The results are the same bytes either way.
 */
export function autoVideoThreads(video: VideoProbe, cores: number): number {
  const geometry = video.geometry;
  if (!geometry || cores < AUTO_THREADS_MIN_CORES) return 0;
  return geometry.width * geometry.height * video.frames >= AUTO_THREADS_MIN_SAMPLES ? cores : 0;
}

/** The fewest cores for which a pair gets video helper threads by default (see autoVideoThreads). */
export const AUTO_THREADS_MIN_CORES = 4;

/**
 * Whether a pair measured without helper threads, `videoThreads` left open, runs the Gaussian SSIM
 * of its differing frames in a thread of its own (ssim-helper.ts): when it may use 2 cores or more
 * and the stream is as large as autoVideoThreads asks (starting the thread costs about 40 ms of CPU,
 * copying the Y planes there about 0.2 ms a frame, against 7-12 ms of SSIM per 1344x768 frame).
 * The results are the same bytes either way.
 */
export function autoSsimAside(video: VideoProbe, cores: number): boolean {
  const geometry = video.geometry;
  return cores >= 2 && geometry !== null && geometry.width * geometry.height * video.frames >= AUTO_THREADS_MIN_SAMPLES;
}

/** About 20 frames at 1344x768, a third of a second of metric work on one core. */
const AUTO_THREADS_MIN_SAMPLES = 20_000_000;

/**
 * measurePair's and probePair's arguments: two paths and the options, each refused with
 * INVALID_ARGUMENT; all but `options.plan`, which is checkPlanSpec's (plan-spec.ts): its schema is
 * plan.json's, which a pool's worker thread need not load for a plan its pool already checked.
 */
export function checkArguments(baseline: unknown, candidate: unknown, options: MeasureOptions): void {
  if (typeof baseline !== 'string' || baseline.length === 0) throw invalidParameter('baseline', 'a file path', baseline);
  if (typeof candidate !== 'string' || candidate.length === 0) throw invalidParameter('candidate', 'a file path', candidate);
  const { timeoutMs } = options;
  checkBounded('timeoutMs', timeoutMs);
  checkVideoThreads(options.videoThreads);
  if (options.metrics !== undefined) resolveMetrics(options.metrics);
}

/** MeasureOptions.videoThreads and PoolOptions.videoThreads: absent, or 0 to MAX_VIDEO_THREADS. */
export function checkVideoThreads(videoThreads: unknown): void {
  if (videoThreads !== undefined && !(Number.isInteger(videoThreads) && (videoThreads as number) >= 0 && (videoThreads as number) <= MAX_VIDEO_THREADS)) {
    throw invalidParameter('options.videoThreads', `an integer from 0 to ${MAX_VIDEO_THREADS}`, videoThreads);
  }
}
