/**
 * What travels between the pool (caller's thread) and its worker: the task,
 * the messages on the task's own MessagePort, and the result. Errors are sent
 * as plain data because structured cloning drops an Error's `code`.
 */
import type { MessagePort } from 'node:worker_threads';
import type { Problem } from '../errors.js';
import type { FfmpegToolchain, ResolveOptions } from '../media/ffmpeg.js';
import type { MediaPlanSpec } from '../media/plan-conformance.js';
import type { MetricName } from '../metrics/registry.js';
import type { PairCapture } from '../media/frames.js';
import type { KeepOptions } from './frame-capture.js';
import type { ClipAnalysis } from '../schemas/clip.js';
import type { PackedOutcome } from './transfer.js';
import type { MediaProbe } from '../media/probe.js';
import type { KnownProbes } from './measure-pair.js';
import type { ClipOutcome } from '../schemas/clip.js';

/** A task of the pool: one pair to measure, or one clip to analyse on its own ({@link ClipTask}). */
export type WorkerTask = PairTask | ClipTask;

/** One pair to measure (MeasurePool.measure). */
export interface PairTask {
  kind: 'pair';
  id: string;
  baseline: string;
  candidate: string;
  ffmpeg: ResolveOptions | undefined;
  /** The toolchain the pool's thread resolved for `ffmpeg`, so the worker does not identify and hash it again. */
  toolchain: FfmpegToolchain;
  timeoutMs: number | undefined;
  /** MeasureOptions.videoThreads as the caller gave it; when absent, up to `coresPerPair` for a large stream. */
  videoThreads: number | undefined;
  coresPerPair: number;
  /** The chosen metrics (resolved). */
  metrics: MetricName[];
  /** The plan's media spec each file is checked against (MeasureOptions.plan); absent: not checked. */
  plan: MediaPlanSpec | undefined;
  /** PairJob.sameMedia: both files hold the same bytes, so each is probed and analysed once. */
  sameMedia: boolean;
  /** PairJob.known: the sides whose clip analysis this command already made. */
  known: { baseline?: ClipAnalysis; candidate?: ClipAnalysis } | undefined;
  /** Also keep what the bundle shows of the pair (pool/frame-capture.ts); absent: nothing kept. */
  keep?: KeepOptions;
  /** Sides this command already probed (the same bytes in another pair): not probed again (SharedClips.probes). */
  probes?: KnownProbes;
  /** Progress and `done` go out on it; `abort` comes in on it. */
  port: MessagePort;
}

/**
 * One clip analysed on its own (MeasurePool.analyse, pool/analyse-clip.ts): a clip of the command
 * whose pair was not measured, decoded in the pool like a pair so it shares the pool's threads.
 */
export interface ClipTask {
  kind: 'clip';
  id: string;
  file: string;
  ffmpeg: ResolveOptions | undefined;
  /** As PairTask.toolchain. */
  toolchain: FfmpegToolchain;
  timeoutMs: number | undefined;
  /** The plan whose frame rate and clip expectations the clip is judged by; absent: the defaults. */
  plan: MediaPlanSpec | undefined;
  /** The clip's probe when a pair of the command already made it (the same bytes): not probed again. */
  probe?: MediaProbe;
  /** `done` goes out on it; `abort` comes in on it. */
  port: MessagePort;
}

/** Caller -> worker. */
export type ToWorker = { type: 'abort' };

/** Worker -> caller. `done` is the last message, sent before the task returns. */
export type FromWorker = { type: 'progress'; framesDone: number; framesTotal: number } | { type: 'done' };

export type WorkerResult =
  | { kind: 'outcome'; packed: PackedOutcome; capture?: PairCapture | null; probes: [MediaProbe, MediaProbe] | null }
  | { kind: 'clip'; outcome: ClipOutcome }
  | { kind: 'thrown'; code: string; message: string; problems: Problem[]; stack: string | undefined };
