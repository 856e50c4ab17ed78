/**
 * Phase 2 of compare(): measure a chosen subset of the ordered pair list in
 * the worker pool. The result is plain data (MeasuredPair, a zod schema), so
 * it can leave the process: a shard writes it into its partial and merge
 * reads it back, and the report is built from it the same way either way.
 */
import { setMaxListeners } from 'node:events';
import { z } from 'zod';
import { FidelityError } from '../errors.js';
import type { ResolveOptions } from '../media/ffmpeg.js';
import type { PairCapture } from '../media/frames.js';
import type { MediaPlanSpec } from '../media/plan-conformance.js';
import type { MetricsSpec } from '../metrics/names.js';
import { createSharingPool, type PoolThreads } from '../pool/pool.js';
import { defaultThreadCount } from '../pool/threads.js';
import type { PairJob } from '../pool/api.js';
import type { AnalysedClip, ClipAnalysis, ClipOutcome } from '../schemas/clip.js';
import { MeasureOutcome } from '../schemas/measurement.js';
import type { Reason } from '../schemas/report.js';
import { noisePairs, type NoisePair } from '../calibrate/pairs.js';
import type { ComparisonPlan, PairRef } from './plan.js';
import type { VerifiedRun } from '../archive/types.js';
import { forgetProbes } from '../media/probe-cache.js';
import { checkBounded } from '../bounds.js';

/** One pair's result: null when pairing refused it before measuring (its reasons are in the plan). */
export const MeasuredPair = z.object({
  index: z.number().int().min(0),
  /** `<candidate run_id>-<run_attempt>/<slot_id>` (PairRef.id), a cross-check of the index. */
  pair: z.string(),
  outcome: MeasureOutcome.nullable(),
});
export type MeasuredPair = z.infer<typeof MeasuredPair>;

/** What {@link measurePairs} measured: one MeasuredPair per ref, and the clips its pairs did not analyse, each analysed on its own. */
export interface MeasuredPairs {
  pairs: MeasuredPair[];
  /** By SHA-256, ascending: each distinct file once. */
  clips: AnalysedClip[];
}

/** What measuring needs from the compare options. */
export interface MeasureSettings {
  /** Cores to keep busy (default: every available one): pairs at once, and helper threads per pair from the rest. */
  threads?: number;
  /** Which ffmpeg/ffprobe measure (default: resolved as {@link resolveFfmpeg} does). */
  ffmpeg?: ResolveOptions;
  /** Wall-clock limit of each ffmpeg/ffprobe child, in milliseconds; a pair past it is invalid with DECODE_TIMEOUT. */
  timeoutMs?: number;
  /** Cancels: the ffmpeg children are killed and the promise rejects with a FidelityError `ABORTED`. */
  signal?: AbortSignal;
  /** The metric set (MeasureOptions.metrics); default `default`. */
  metrics?: MetricsSpec;
  /** The plan every file's media are checked against (MeasureOptions.plan); measurePairs sets it from the runs' plan. */
  plan?: MediaPlanSpec;
  /** Told as pairs are measured: pairs done of all, and their frames. */
  onProgress?: (event: { pairsDone: number; pairsTotal: number; framesDone: number; framesTotal: number }) => void;
  /**
   * Keep, by pair id, what the bundle shows of each measured pair from its measuring decode
   * (the stills' frame, the first `audioSeconds` of audio), for compare's
   * writeBundle and a shard's writePartial. Outside the MeasuredPair results, which stay plain data
   * (a partial carries no pixels); calibrate keeps nothing.
   */
  keep?: {
    audioSeconds: number;
    captures: Map<string, PairCapture>;
    /** Told as each pair's outcome counts (its files checked unchanged), after its capture is kept: compare makes its files then (comparison/files-ahead.ts). */
    onMeasured?: (id: string, outcome: MeasureOutcome) => void;
  };
}

/** {@link MeasureSettings} of the library's own commands. */
export interface CommandMeasureSettings extends MeasureSettings {
  /**
   * Worker threads the command started ahead (compare starts them while it verifies the runs): the
   * pool runs on them and leaves them to their owner. Absent: the pool starts and ends its own.
   */
  threadsFrom?: PoolThreads;
}

/**
 * The measuring settings of compare's and merge's options (cores, ffmpeg, its time limit, cancel),
 * with the metric list the pairs are measured with and where progress goes.
 */
export function measureSettingsOf(
  options: { threads?: number; ffmpeg?: ResolveOptions; timeoutMs?: number; signal?: AbortSignal },
  metrics: readonly string[],
  onProgress: NonNullable<MeasureSettings['onProgress']>,
): MeasureSettings {
  return {
    ...(options.threads !== undefined ? { threads: options.threads } : {}),
    ...(options.ffmpeg ? { ffmpeg: options.ffmpeg } : {}),
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    metrics,
    onProgress,
  };
}

/**
 * timings_ms differs run to run and nothing downstream reads it (report.json
 * leaves it out too); dropping it keeps partials reproducible.
 */
function withoutTimings(outcome: MeasureOutcome): MeasureOutcome {
  if (!outcome.ok) return outcome;
  const { timings_ms: _dropped, ...measurement } = outcome.measurement;
  return { ok: true, measurement };
}

/** `<run index>/<slot_id>`: a run's clip, whichever pairs show it. */
function clipKey(run: number, slot: string): string {
  return `${run}/${slot}`;
}

/**
 * The clips whose home is among `refs`, each a completed request's sealed media: a clip's home is the
 * first pair of the ordered pair list that shows it (a baseline slot's: its pair with the first
 * candidate; a candidate slot's: its own pair). Every clip has exactly one home, fixed by the plan
 * alone, so the shards of any count cover every clip once between them (docs/scale-out.md) and a
 * shard never needs to know what another measured.
 */
export function homeClips(plan: ComparisonPlan, refs: readonly PairRef[]): ClipCandidate[] {
  const home = new Map<string, number>();
  const claim = (key: string, index: number): void => {
    if (!home.has(key)) home.set(key, index);
  };
  for (const r of plan.pairs) {
    claim(clipKey(0, r.pair.slot_id), r.index);
    claim(clipKey(r.comparison + 1, r.pair.slot_id), r.index);
  }
  const out: ClipCandidate[] = [];
  for (const r of [...refs].sort((a, b) => a.index - b.index)) {
    const sides = [
      { key: clipKey(0, r.pair.slot_id), side: r.pair.baseline, run: plan.baseline },
      { key: clipKey(r.comparison + 1, r.pair.slot_id), side: r.pair.candidate, run: r.candidate },
    ];
    for (const { key, side, run } of sides) {
      if (home.get(key) !== r.index || side.status !== 'ok' || !side.media) continue;
      const slot = r.pair.slot_id;
      out.push({ sha256: side.media.sha256, file: () => run.mediaPath(slot), check: () => run.checkMedia(slot) });
    }
  }
  return out;
}

/** The SHA-256s of the clips that `measured`'s pairs analysed (ok outcomes with clips): those need no analysis of their own. */
export function pairAnalysedShas(plan: ComparisonPlan, measured: readonly MeasuredPair[]): Set<string> {
  const shas = new Set<string>();
  for (const m of measured) {
    if (!m.outcome?.ok || !m.outcome.measurement.clips) continue;
    const pair = plan.pairs[m.index]!.pair;
    for (const side of [pair.baseline, pair.candidate]) if (side.media) shas.add(side.media.sha256);
  }
  return shas;
}

/**
 * Measures `refs` (a subset of plan.pairs) and returns one MeasuredPair per
 * ref, in index order. Pairs that cannot be measured get a null outcome
 * without touching the pool. Then every clip whose home is among `refs`
 * ({@link homeClips}) and that none of these pairs analysed is analysed on its
 * own in the same pool, once per distinct file.
 */
export async function measurePairs(plan: ComparisonPlan, refs: readonly PairRef[], settings: MeasureSettings = {}): Promise<MeasuredPairs> {
  return measurePairsOn(plan, refs, settings);
}

/** {@link measurePairs} for compare, on threads it may have started ahead (CommandMeasureSettings.threadsFrom). */
export async function measurePairsOn(plan: ComparisonPlan, refs: readonly PairRef[], settings: CommandMeasureSettings): Promise<MeasuredPairs> {
  const sorted = [...refs].sort((a, b) => a.index - b.index);
  const jobs: MediaJob[] = sorted
    .filter((r) => r.measurable)
    .map((r) => ({
      id: r.id,
      baseline: () => plan.baseline.mediaPath(r.pair.slot_id),
      candidate: () => r.candidate.mediaPath(r.pair.slot_id),
      check: () => bothUnchanged(plan.baseline, r.candidate, r.pair.slot_id, r.pair.slot_id),
      ...sealedMedia(r.pair.baseline.media, r.pair.candidate.media),
    }));
  // Every run of a comparison has the same plan (planComparison refuses others): its media spec is the baseline's.
  const spec = mediaSpecOf(plan.baseline.plan);
  const measured = await measureMedia(jobs, homeClips(plan, sorted), spec.video.frames, { ...settings, plan: spec });
  return {
    pairs: sorted.map((r) => ({ index: r.index, pair: r.id, outcome: measured.outcomes.get(r.id) ?? null })),
    clips: [...measured.clips].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([sha256, outcome]) => ({ sha256, outcome })),
  };
}

/**
 * Each of `clips` analysed on its own against the plan's media spec, in one pool, once per distinct
 * file, as {@link measurePairs} analyses the clips its pairs leave: merge re-derives with it the clips
 * a partial analysed on its own. By SHA-256, ascending.
 */
export async function analyseClipsAlone(plan: ComparisonPlan, clips: readonly ClipCandidate[], settings: Omit<MeasureSettings, 'plan' | 'keep'> = {}): Promise<AnalysedClip[]> {
  if (clips.length === 0) return [];
  const spec = mediaSpecOf(plan.baseline.plan);
  const measured = await measureMedia([], clips, spec.video.frames, { ...settings, plan: spec });
  return [...measured.clips].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([sha256, outcome]) => ({ sha256, outcome }));
}

/** The media spec of a run's plan (MeasureSettings.plan), which every measured file is checked against. */
export function mediaSpecOf(plan: MediaPlanSpec): MediaPlanSpec {
  const { video, audio, max_av_start_skew_seconds, max_av_end_skew_seconds } = plan;
  return {
    video,
    audio,
    ...(max_av_start_skew_seconds === undefined ? {} : { max_av_start_skew_seconds }),
    ...(max_av_end_skew_seconds === undefined ? {} : { max_av_end_skew_seconds }),
  };
}

/**
 * Measures same-hardware pairs (calibrate/pairs.ts) in the pool every command shares, against the
 * media spec of `plan`: every pair without a `reason`, by its id. calibrate measures its noise sample
 * this way, and compare and merge the baseline's own repetitions ({@link measureOwnRepetitions}), so a
 * repetition pair gives the same figures in a calibration and in a report.
 */
export async function measureNoisePairs(pairs: readonly NoisePair[], plan: MediaPlanSpec, settings: Omit<CommandMeasureSettings, 'plan' | 'keep'> = {}): Promise<Map<string, MeasureOutcome>> {
  const jobs: MediaJob[] = pairs
    .filter((p) => p.reason === null)
    .map((p) => ({
      id: p.id,
      baseline: () => p.baseline.run.mediaPath(p.baseline.slot_id),
      candidate: () => p.candidate.run.mediaPath(p.candidate.slot_id),
      check: () => bothUnchanged(p.baseline.run, p.candidate.run, p.baseline.slot_id, p.candidate.slot_id),
      // Same-hardware pairs share clips (one repetition against several): each is analysed once, and
      // repetitions that reproduce each other bit for bit are decoded once.
      ...sealedMedia(p.baseline.media, p.candidate.media),
    }));
  // Media that differ from the plan are refused like any other pair's (MEDIA_PLAN_MISMATCH).
  const spec = mediaSpecOf(plan);
  return measureMediaJobs(jobs, spec.video.frames, { ...settings, plan: spec });
}

/**
 * One repetition of a case in the baseline run against repetition 0 of the same run (compare's and
 * merge's `repeatability`): `outcome` is null when it was not measured: the two are the same sealed
 * bytes (`identical`) or one has no ok media (`reason`).
 */
export interface MeasuredRepetition {
  case_id: string;
  repetition: number;
  slot_id: string;
  against_repetition: number;
  against_slot_id: string;
  /** Both have ok media with one SHA-256: nothing to measure. */
  identical: boolean;
  /** Why it was not measured: repetition 0 (`side` `baseline`), this repetition (`candidate`) or both have no ok media. */
  reason: Reason | null;
  outcome: MeasureOutcome | null;
}

/**
 * The baseline run's own repetitions, each measured against its repetition 0 like a pair (the same
 * pool, metric set and media checks), in noisePairs' order: case by case in plan order, repetition
 * 1 upward. Only repetitions whose bytes differ from repetition 0 are measured; the figures depend
 * on the two files alone, so they are the same for every thread count and wherever they are measured.
 */
export async function measureOwnRepetitions(plan: ComparisonPlan, settings: Omit<MeasureSettings, 'plan' | 'keep'> = {}): Promise<MeasuredRepetition[]> {
  return measureOwnRepetitionsOn(plan, settings);
}

/** {@link measureOwnRepetitions} for compare, on threads it may have started ahead (CommandMeasureSettings.threadsFrom). */
export async function measureOwnRepetitionsOn(plan: ComparisonPlan, settings: Omit<CommandMeasureSettings, 'plan' | 'keep'>): Promise<MeasuredRepetition[]> {
  // One run: noisePairs gives its repetition pairs only, repetition 0 against every later one, case by case.
  const pairs = noisePairs([plan.baseline]);
  const identical = (p: NoisePair): boolean => p.reason === null && p.baseline.media!.sha256 === p.candidate.media!.sha256;
  const outcomes = await measureNoisePairs(pairs.filter((p) => !identical(p)), plan.baseline.plan, settings);
  return pairs.map((p) => ({
    case_id: p.case_id,
    repetition: p.repetition,
    slot_id: p.candidate.slot_id,
    against_repetition: 0,
    against_slot_id: p.baseline.slot_id,
    identical: identical(p),
    reason: p.reason,
    outcome: outcomes.get(p.id) ?? null,
  }));
}

/**
 * The most bytes of captures (MeasureSettings.keep) held at once: about 60 full-size pairs (a
 * 1344x768 frame and 2 s of 32 kHz stereo per side are about 4 MiB). A larger comparison keeps
 * those of the pairs measured first and extracts the others' again (the same bytes), so its memory
 * stays bounded whatever its size.
 */
const CAPTURE_BUDGET_BYTES = 256 * 1024 * 1024;

/** The bytes a capture holds. */
function captureBytes(capture: PairCapture): number {
  let bytes = 0;
  if (capture.frame) for (const side of [capture.frame.baseline, capture.frame.candidate]) bytes += side.planes.byteLength + (side.rgb?.byteLength ?? 0);
  if (capture.audio) for (const channel of [...capture.audio.baseline, ...capture.audio.candidate]) bytes += channel.byteLength;
  return bytes;
}

/** One pair to measure: its id and where each side's media is read from (opened only when its turn comes). */
export interface MediaJob {
  id: string;
  baseline: () => Promise<string>;
  candidate: () => Promise<string>;
  /**
   * Each side's sealed SHA-256: a clip in several pairs is analysed once (PairJob.known), and a pair
   * whose two sides agree (a candidate that reproduces its baseline) is probed, analysed and decoded
   * once (PairJob.sameMedia). Absent: analysed in every pair.
   */
  sha256?: { baseline: string; candidate: string };
  /**
   * Throws MEDIA_CHANGED when a side's file is no longer the one verified (VerifiedRun.checkMedia):
   * run once the pair is measured, so a file changed at any moment while it was read (even put back
   * since) never gives a measured pair.
   */
  check?: () => Promise<void>;
}

/** A clip a command shows, to be analysed on its own when none of its pairs analyses it: its sealed SHA-256 and where it is read from. */
export interface ClipCandidate {
  sha256: string;
  file: () => Promise<string>;
  /** As MediaJob.check: run once the clip is analysed. */
  check?: () => Promise<void>;
}

/** MediaJob.check of two runs' slots: both files still the ones verified. */
async function bothUnchanged(baseline: VerifiedRun, candidate: VerifiedRun, baselineSlot: string, candidateSlot: string): Promise<void> {
  await baseline.checkMedia(baselineSlot);
  await candidate.checkMedia(candidateSlot);
}

/** Runs a file's check; a file that changed has no probe kept under its sealed SHA-256 either (it may be of other bytes). */
async function checked(check: (() => Promise<void>) | undefined, shas: readonly string[]): Promise<void> {
  try {
    await check?.();
  } catch (error) {
    for (const sha of shas) forgetProbes(sha);
    throw error;
  }
}

/** MediaJob.sha256 from both sides' sealed media entries, when both have one. */
export function sealedMedia(baseline: { sha256: string } | null | undefined, candidate: { sha256: string } | null | undefined): Pick<MediaJob, 'sha256'> {
  return baseline && candidate ? { sha256: { baseline: baseline.sha256, candidate: candidate.sha256 } } : {};
}

/**
 * Measures every job in one worker pool, the code path every entry point
 * shares (compare, a shard, calibrate), so a pair gives the same bytes
 * whichever measured it. Returns outcomes by job id, timings dropped.
 */
export async function measureMediaJobs(jobs: readonly MediaJob[], framesPerPair: number, settings: CommandMeasureSettings = {}): Promise<Map<string, MeasureOutcome>> {
  return (await measureMedia(jobs, [], framesPerPair, settings)).outcomes;
}

/**
 * {@link measureMediaJobs}, then, in the same pool, each of `clips` that no pair analysed (by SHA-256)
 * analysed on its own, once per distinct file (docs/metrics.md, "Clip validity"). The clips go
 * after the pairs, since only the pairs' outcomes say which clips are left; they run as many at
 * once as the pool has threads. Returns the pairs' outcomes by job id and those clips' outcomes by
 * SHA-256.
 */
export async function measureMedia(
  jobs: readonly MediaJob[],
  clips: readonly ClipCandidate[],
  framesPerPair: number,
  settings: CommandMeasureSettings = {},
): Promise<{ outcomes: Map<string, MeasureOutcome>; clips: Map<string, ClipOutcome> }> {
  checkBounded('threads', settings.threads);
  checkBounded('timeoutMs', settings.timeoutMs);
  const outcomes = new Map<string, MeasureOutcome>();
  const alone = new Map<string, ClipOutcome>();
  if (jobs.length === 0 && clips.length === 0) return { outcomes, clips: alone };
  const frames = new Map<string, { done: number; total: number }>();
  let pairsDone = 0;
  const report = (): void => {
    let framesDone = 0;
    let framesTotal = 0;
    for (const j of jobs) {
      const f = frames.get(j.id);
      framesDone += f?.done ?? 0;
      framesTotal += f?.total ?? framesPerPair;
    }
    settings.onProgress?.({ pairsDone, pairsTotal: jobs.length, framesDone, framesTotal });
  };
  // One internal signal for every pair: each measure() listens on it, more than the default ten listeners.
  const controller = new AbortController();
  setMaxListeners(jobs.length + 10, controller.signal);
  const forward = (): void => controller.abort(settings.signal?.reason);
  if (settings.signal?.aborted) forward();
  else settings.signal?.addEventListener('abort', forward, { once: true });
  // `threads` is the cores to use: no more pair threads than pairs, and what is left goes to each pair's video helpers.
  const cores = settings.threads ?? defaultThreadCount();
  let kept = 0;
  const pool = createSharingPool({
    ...(settings.threadsFrom ? { threadsFrom: settings.threadsFrom } : {}),
    threads: Math.max(1, Math.min(cores, Math.max(jobs.length, clips.length))),
    cores,
    ...(settings.ffmpeg ? { ffmpeg: settings.ffmpeg } : {}),
    ...(settings.timeoutMs ? { timeoutMs: settings.timeoutMs } : {}),
    ...(settings.metrics !== undefined ? { metrics: settings.metrics } : {}),
    ...(settings.plan ? { plan: settings.plan } : {}),
  });
  try {
    report();
    // Each distinct clip is analysed once per command (docs/metrics.md, "Clip validity"): a pair is
    // given the analyses earlier pairs made of its bytes (PairJob.known). As many pairs run at once as
    // the pool has threads, taken in order, except that a pair whose clip another running pair is
    // analysing waits behind one that does not, while there is one; the figures are the same
    // whichever pair analyses a clip, so the outcome does not depend on that order.
    const analyses = new Map<string, ClipAnalysis>();
    const analysing = new Set<string>();
    const shas = (j: MediaJob): string[] => (j.sha256 ? [j.sha256.baseline, j.sha256.candidate] : []);
    const free = (j: MediaJob): boolean => shas(j).every((sha) => analyses.has(sha) || !analysing.has(sha));
    const waiting = [...jobs];
    const measureOne = async (j: MediaJob): Promise<void> => {
      const mine = shas(j).filter((sha) => !analyses.has(sha) && !analysing.has(sha));
      for (const sha of mine) analysing.add(sha);
      const baselineKnown = j.sha256 ? analyses.get(j.sha256.baseline) : undefined;
      const candidateKnown = j.sha256 ? analyses.get(j.sha256.candidate) : undefined;
      const known = { ...(baselineKnown ? { baseline: baselineKnown } : {}), ...(candidateKnown ? { candidate: candidateKnown } : {}) };
      try {
        await measureJob(j, Object.keys(known).length > 0 ? known : undefined);
      } finally {
        for (const sha of mine) analysing.delete(sha);
      }
      const outcome = outcomes.get(j.id);
      if (j.sha256 && outcome?.ok && outcome.measurement.clips) {
        if (!analyses.has(j.sha256.baseline)) analyses.set(j.sha256.baseline, outcome.measurement.clips.baseline);
        if (!analyses.has(j.sha256.candidate)) analyses.set(j.sha256.candidate, outcome.measurement.clips.candidate);
      }
    };
    const measureJob = async (j: MediaJob, known: PairJob['known']): Promise<void> => {
      const job = { id: j.id, baseline: await j.baseline(), candidate: await j.candidate(), ...(j.sha256 && j.sha256.baseline === j.sha256.candidate ? { sameMedia: true } : {}), ...(known ? { known } : {}) };
      const keep = settings.keep;
      const outcome = await pool.measure(job, {
        signal: controller.signal,
        // Each distinct file is probed once per command too, and once per process (the pool's probe cache:
        // a pair is given the probe an earlier pair or command made of its bytes, before any decode).
        ...(j.sha256 ? { sha256: j.sha256 } : {}),
        ...(keep
          ? {
              keep: { audioSeconds: keep.audioSeconds },
              onCapture: (capture: PairCapture | null) => {
                // Held until the bundle is written: past the budget a pair's files are extracted again (the same bytes).
                const bytes = capture ? captureBytes(capture) : 0;
                if (capture && kept + bytes <= CAPTURE_BUDGET_BYTES) {
                  keep.captures.set(j.id, capture);
                  kept += bytes;
                }
              },
            }
          : {}),
        onProgress: (progress) => {
          frames.set(j.id, { done: progress.framesDone, total: progress.framesTotal });
          report();
        },
      });
      // The bytes measured are the bytes verified: checked after the last read, before the outcome counts.
      await checked(j.check, shas(j));
      const counted = withoutTimings(outcome);
      outcomes.set(j.id, counted);
      keep?.onMeasured?.(j.id, counted);
      // A pair refused before decoding (incompatible streams) reports no frames: count its planned frames as done.
      const total = frames.get(j.id)?.total ?? framesPerPair;
      frames.set(j.id, { done: total, total });
      pairsDone++;
      report();
    };
    const lanes = Math.max(1, Math.min(cores, jobs.length));
    if (jobs.length > 0) {
      await Promise.all(
        Array.from({ length: lanes }, async () => {
          while (waiting.length > 0) {
            const next = waiting.findIndex(free);
            await measureOne(waiting.splice(next >= 0 ? next : 0, 1)[0]!);
          }
        }),
      );
    }
    // The clips no pair analysed: each distinct file once, the first candidate's path standing for its bytes.
    const left = new Map<string, ClipCandidate>();
    for (const c of clips) if (!analyses.has(c.sha256) && !left.has(c.sha256)) left.set(c.sha256, c);
    const queue = [...left.values()];
    await Promise.all(
      Array.from({ length: Math.max(1, Math.min(cores, queue.length)) }, async () => {
        for (let c = queue.shift(); c; c = queue.shift()) {
          if (controller.signal.aborted) return;
          const outcome = await pool.analyse({ id: c.sha256, file: await c.file() }, { signal: controller.signal, sha256: c.sha256 });
          await checked(c.check, [c.sha256]);
          alone.set(c.sha256, outcome);
        }
      }),
    );
  } finally {
    settings.signal?.removeEventListener('abort', forward);
    await pool.destroy();
  }
  if (settings.signal?.aborted) throw new FidelityError('ABORTED', 'the measuring was cancelled; nothing was written');
  return { outcomes, clips: alone };
}
