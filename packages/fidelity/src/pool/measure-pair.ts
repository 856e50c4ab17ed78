/**
 * measurePair: probe both files (one ffprobe each), refuse an incompatible
 * pair before any metric where the probes already say so, then run both
 * sides' decodes through the pair's two loops: the frame loop
 * (measure-video.ts, frame-loop.ts) and, beside it once the video is warm,
 * the sample loop (measure-audio.ts, sample-loop.ts). Each loop hands what it
 * reads to its observers (the clip analyses, the offset search, the stills)
 * and to one sink chosen once (how the pair's metrics are measured).
 *
 * The audio's sample count and start are the decoder's: the video decoders
 * report them from their own process (media/audio-facts.ts), and the
 * remaining compatibility checks run on them before any metric is returned;
 * an incompatible pair's metrics are dropped. Processes per file: the probe,
 * the video decoder and, when the set measures audio, the audio decoder.
 * Runs in the calling thread; the pool (pool.ts) runs it inside worker threads.
 *
 * A failure of the pair (corrupt file, ffmpeg crash, time limit, abort) is
 * returned as `{ ok: false, failure }`, never as partial metrics. Only
 * problems that no pair could get past (no usable ffmpeg, a bad argument,
 * a bug) are thrown.
 */
import { FidelityError } from '../errors.js';
import { resolveFfmpeg } from '../media/ffmpeg.js';
import type { AudioFacts } from '../media/audio-facts.js';
import { checkBeforeDecoding, checkCompatibility } from '../media/compat.js';
import { checkDecodedAudio, probeMedia } from '../media/probe.js';
import type { MediaProbe, ProbeTools } from '../media/probe.js';
import { ProcessScope } from '../media/process.js';
import { needsAudio, resolveMetrics } from '../metrics/registry.js';
import { withClipValidity } from '../metrics/inferencex.js';
import { rgbConversionFor } from '../metrics/rgb24.js';
import { createClipAudioAccumulator } from '../metrics/clip-audio.js';
import { clipExpectationsOf, judgeClip } from '../metrics/clip-checks.js';
import type { ClipAnalysis, ClipAudio, PairClips } from '../schemas/clip.js';
import type { FailureSide, MeasureOutcome, PairMeasurement } from '../schemas/measurement.js';
import type { MeasureOptions, PairJob } from './api.js';
import { defaultThreadCount } from './threads.js';
import { createFrameCapture } from './frame-capture.js';
import type { KeepOptions } from './frame-capture.js';
import type { PairCapture } from '../media/frames.js';
import { measureAudio } from './measure-audio.js';
import { measureVideo } from './measure-video.js';
import { seconds } from './observe-clip.js';
import { observeClipAudio } from './observe-clip-audio.js';
import { observeAudioHead } from './observe-stills.js';
import { autoSsimAside, autoVideoThreads, checkArguments, DEFAULT_DECODE_TIMEOUT_MS } from './pair-options.js';
import { computesInferencex, inferencexOf, refused } from './pair-inferencex.js';
import { bothSides, blame, endedEarly, firstFailureWins, onBoth, pairFailure, SideFailure } from './side-failure.js';

function aborted(): MeasureOutcome {
  return { ok: false, failure: { code: 'ABORTED', message: 'The measurement was cancelled' } };
}

/** The probe with the audio's sample count and start as the decode found them. */
function decoded(probe: MediaProbe, facts: AudioFacts | null): MediaProbe {
  if (!probe.audio || !facts) return probe;
  return { ...probe, audio: { ...probe.audio, samples: facts.samples, startPts: facts.startPts, startTimeBase: facts.timeBase } };
}

/** A probed pair's measurement: where the probes come from, the options, and what the command already knows or keeps. */
interface ProbedPair {
  scope: ProcessScope;
  tools: ProbeTools;
  probes: [MediaProbe, MediaProbe];
  options: MeasureOptions;
  cores: number;
  shared: SharedClips;
  keep: KeepOptions | undefined;
  kept: { capture: PairCapture | null };
}

async function measureProbed(pair: ProbedPair): Promise<MeasureOutcome> {
  const { scope, tools, probes, options, cores, shared, keep, kept } = pair;
  // Everything the probes can tell is checked before any frame is decoded.
  const early = checkBeforeDecoding(probes[0], probes[1], options.plan);
  const metrics = resolveMetrics(options.metrics).list;
  if (early) return refused(early, probes, metrics);
  const files: [string, string] = [probes[0].file, probes[1].file];
  const [va, vb] = [probes[0].video!, probes[1].video!];
  const [aa, ab] = [probes[0].audio, probes[1].audio];
  const videoThreads = options.videoThreads ?? autoVideoThreads(va, cores);
  const withAudio = needsAudio(metrics);
  // Audio runs beside video, once the video has reached its steady state: the peak memory is then
  // the same sum (video's buffers + audio's) for a short clip as for a long one.
  let warm!: () => void;
  const videoWarm = new Promise<void>((resolve) => (warm = resolve));
  // The bundle's stills and difference audio, kept from this decode when asked (frame-capture.ts).
  const capture = keep
    ? createFrameCapture(metrics, { pixFmt: va.pixFmt, samples: va.width * va.height, rgb24: rgbConversionFor(va.pixFmt, va.height).by === 'ffmpeg' }, aa && withAudio ? Math.round(keep.audioSeconds * aa.sampleRate) : 0)
    : null;
  // Each distinct clip is analysed once per command (docs/metrics.md, "Clip validity"): a side with
  // the baseline's bytes (PairJob.sameMedia) or an analysis this command already made (PairJob.known)
  // is not analysed here. The clips' audio is analysed whatever the set: a set without `audio`
  // decodes it for the clip analysis alone.
  const known = shared.known ?? {};
  const sameMedia = shared.sameMedia === true;
  const analyse: [boolean, boolean] = [known.baseline === undefined, known.candidate === undefined && !sameMedia];
  const hasAudio = aa !== null && ab !== null;
  const clipAudio = [
    hasAudio && analyse[0] ? observeClipAudio(createClipAudioAccumulator(aa.sampleRate, aa.channels), 0) : null,
    hasAudio && analyse[1] ? observeClipAudio(createClipAudioAccumulator(ab.sampleRate, ab.channels), 1) : null,
  ] as const;
  // Audio is decoded for the pair metrics, or for a clip analysed here.
  const decodeAudio = hasAudio && (withAudio || analyse[0] || analyse[1]);
  const [video, audio] = await firstFailureWins(
    scope,
    measureVideo({
      scope,
      tools,
      files,
      streams: [va, vb],
      audio: [aa, ab],
      metrics,
      threads: videoThreads,
      ssimAside: options.videoThreads === undefined && autoSsimAside(va, cores),
      onProgress: options.onProgress,
      onWarm: warm,
      analyse,
      capture,
      // The same bytes on both sides are decoded once (measured in this thread: a frame cannot be moved to a helper as both sides).
      single: sameMedia && videoThreads === 0,
    }),
    decodeAudio
      ? measureAudio({
          scope,
          tools,
          files,
          streams: [aa!, ab!],
          useThread: options.audioThread ?? videoThreads > 0,
          start: videoWarm,
          observers: { baseline: clipAudio[0], candidate: clipAudio[1], others: [capture ? observeAudioHead(capture) : null] },
          pairMetrics: withAudio,
        })
      : Promise.resolve(null),
  );
  // The audio's sample count and start, as the decoders found them: a PCM index they fall short of is
  // a truncated file, then every compatibility check runs in its order; metrics of a pair that
  // fails one are dropped.
  const full: [MediaProbe, MediaProbe] = [decoded(probes[0], video.audio[0]), decoded(probes[1], video.audio[1])];
  (['baseline', 'candidate'] as const).forEach((side, i) => {
    const a = full[i]!.audio;
    if (a?.samples != null) {
      try {
        checkDecodedAudio(a, a.samples, side);
      } catch (error) {
        throw new SideFailure((error as FidelityError).code, (error as FidelityError).message, side, error);
      }
    }
  });
  const failure = checkCompatibility(full[0], full[1], options.plan);
  if (failure) return refused(failure, full, metrics);
  if (audio) {
    // The measuring decoders delivered what the counting ones decoded (the same decoder, another process).
    const expected = full[0].audio!.samples!;
    const [da, db] = audio.delivered;
    if (da !== expected || db !== expected || (withAudio && !audio.metrics)) {
      const side: FailureSide = da !== expected && db !== expected ? 'both' : da !== expected ? 'baseline' : 'candidate';
      throw endedEarly('audio samples', side, side === 'candidate' ? db : da, expected);
    }
  }
  // A clip's audio figures: its samples' sums, with the decoded frames' timestamps the video decoder's
  // process reported and the corrupt frames the audio decoder's process logged (the process whose
  // samples are measured: a frame is counted once, not again by the video process that also decodes it).
  const expectations = options.plan ? clipExpectationsOf(options.plan) : {};
  const analysed = (i: 0 | 1): ClipAnalysis => {
    const facts = video.audio[i];
    const figures: ClipAudio | null = clipAudio[i]?.finish({ timeBase: facts ? seconds(facts.timeBase) : 1, frames: facts?.frames ?? [], corrupt: audio?.corrupt[i] ?? null }) ?? null;
    return judgeClip(video.clips[i]!, figures, expectations);
  };
  const baselineClip = known.baseline ?? analysed(0);
  const clips: PairClips = { baseline: baselineClip, candidate: known.candidate ?? (sameMedia ? baselineClip : analysed(1)) };
  // A set without `audio` measures none: the field is absent (not computed), not null (no audio stream).
  const measurement: PairMeasurement = withAudio ? { video: video.metrics, audio: audio?.metrics ?? null, clips } : { video: video.metrics, clips };
  if (computesInferencex(metrics)) {
    // InferenceX refuses a pair whose clip fails one of its unconditional checks (docs/metrics.md, "Clip validity").
    const validity = { baseline: clips.baseline.unconditional_valid, candidate: clips.candidate.unconditional_valid };
    measurement.inferencex = withClipValidity(inferencexOf(full, video.metrics, audio?.sums ?? null), validity);
  }
  if (capture) kept.capture = capture.finish(video.metrics);
  return { ok: true, measurement };
}

/**
 * Measures one baseline/candidate pair of MP4 files. Resolves with the
 * metrics, or with the reason (one of MeasureFailureCodes) the pair could
 * not be measured. Every child process has exited when the promise settles.
 *
 * Which fields the measurement has depends on the metric set (`options.metrics`,
 * docs/metrics.md "Metric sets"): a metric the set does not compute is absent,
 * never null (see {@link VideoMetrics} and {@link PairMeasurement} for each field);
 * null keeps its own meaning (identical frames have no PSNR, identical channels no SNR).
 * Both files must agree exactly in frame count and in decoded audio samples per channel:
 * otherwise the outcome is `{ ok: false }` with `INCOMPATIBLE_FRAME_COUNT` /
 * `INCOMPATIBLE_SAMPLE_COUNT` and no metric at all (docs/media.md, step 3).
 *
 * @throws FidelityError `INVALID_ARGUMENT` for a bad path or option, `FFMPEG_NOT_FOUND` /
 *   `FFMPEG_BROKEN` when no usable ffmpeg/ffprobe pair is found, `ABORTED` when `signal` fires.
 * @example
 * ```ts
 * import { measurePair } from 'media-fidelity';
 *
 * // Two MP4s of the same slot, e.g. from `npx fidelity generate --out runs`.
 * const outcome = await measurePair('runs/h200/media/measurement-r000-c003.mp4', 'runs/b200/media/measurement-r000-c003.mp4');
 * if (!outcome.ok) {
 *   // Not comparable: a reason code and why, never partial metrics.
 *   console.error(outcome.failure.code, outcome.failure.message);
 * } else {
 *   const { video, audio } = outcome.measurement;
 *   // The default set computes ssim, ssim_ffmpeg, psnr_y, psnr_db, mae and audio; `ffmpeg` has no ssim, and so on.
 *   console.log(video.frames, video.ssim?.min, video.ssim?.worst_frame); // e.g. 12 0.4351606117094784 9 (the generator's encoder decides the exact values)
 *   console.log(video.psnr_db === null ? 'identical frames' : video.psnr_db); // e.g. 22.765244281245607 (null only when every frame is identical)
 *   // audio: absent when the set has no `audio`, null when neither file has audio.
 *   for (const ch of audio?.channels ?? []) console.log(ch.channel, ch.snr_db ?? ch.snr_db_reason); // 0 identical, 1 identical (this pair's audio is bit-identical)
 * }
 * ```
 */
export async function measurePair(baseline: string, candidate: string, options: MeasureOptions = {}): Promise<MeasureOutcome> {
  return measurePairOn(baseline, candidate, options, defaultThreadCount());
}

/**
 * What a pool task knows of its pair's clips before measuring (PairJob.sameMedia, PairJob.known), and
 * `probes`: a side's probe another pair of the command already made of the same bytes (as probeMedia
 * returned it, before any decode), which is used instead of probing that side again.
 */
export type SharedClips = Pick<PairJob, 'sameMedia' | 'known'> & { probes?: KnownProbes };

/** Each side's probe, as probeMedia returned it (the file's own path aside). */
export interface KnownProbes {
  baseline?: MediaProbe;
  candidate?: MediaProbe;
}

/**
 * measurePair for a caller that shares the machine (the pool): `cores` bounds the default helper
 * threads; `shared` says which clip analyses need not be made here: both files hold the same bytes
 * (PairJob.sameMedia: the file is probed once and analysed once for both sides), or a side's
 * analysis was already made by another pair of the command (PairJob.known).
 */
export async function measurePairOn(baseline: string, candidate: string, options: MeasureOptions, cores: number, shared: SharedClips = {}): Promise<MeasureOutcome> {
  return measurePairWith(baseline, candidate, options, { cores, shared, keep: undefined, kept: { capture: null } });
}

/**
 * measurePairOn, also keeping what the bundle shows of the pair (`keep`, pool/frame-capture.ts) when
 * the pair is measured: `capture` is null for a pair that failed or was refused, and a part of it is
 * null where nothing was kept. The outcome is the same bytes as measurePairOn's.
 */
export async function measurePairKeeping(
  baseline: string,
  candidate: string,
  options: MeasureOptions,
  cores: number,
  keep: KeepOptions,
  shared: SharedClips = {},
): Promise<{ outcome: MeasureOutcome; capture: PairCapture | null }> {
  const kept: { capture: PairCapture | null } = { capture: null };
  const outcome = await measurePairWith(baseline, candidate, options, { cores, shared, keep, kept });
  return { outcome, capture: outcome.ok ? kept.capture : null };
}

/**
 * How a pair is measured besides its options: the machine's share, what is known, what to keep, and
 * `probed`, where both probes are left once made (so the caller can hand them to later pairs of the same bytes);
 * `planChecked`: options.plan was already checked (by the pool, in its thread).
 */
type PairRun = Pick<ProbedPair, 'cores' | 'shared' | 'keep' | 'kept'> & { probed?: { probes: [MediaProbe, MediaProbe] | null }; planChecked?: boolean };

/**
 * measurePairKeeping (when `keep` is given) or measurePairOn, for the pool's worker, whose pool has
 * checked options.plan already (createMeasurePool): also returns
 * the pair's two probes as probeMedia made them (null when a side's probe failed), so that a file
 * shared by several pairs of one command is probed once (SharedClips.probes).
 */
export async function measurePairSharing(
  baseline: string,
  candidate: string,
  options: MeasureOptions,
  cores: number,
  keep: KeepOptions | undefined,
  shared: SharedClips,
): Promise<{ outcome: MeasureOutcome; capture: PairCapture | null; probes: [MediaProbe, MediaProbe] | null }> {
  const kept: { capture: PairCapture | null } = { capture: null };
  const probed: { probes: [MediaProbe, MediaProbe] | null } = { probes: null };
  const outcome = await measurePairWith(baseline, candidate, options, { cores, shared, keep, kept, probed, planChecked: true });
  return { outcome, capture: outcome.ok ? kept.capture : null, probes: probed.probes };
}

/** A side's probe: the one given (another pair's, of the same bytes, at this pair's path), else one ffprobe run. */
function probeSide(scope: ProcessScope, tools: ProbeTools, file: string, label: 'baseline' | 'candidate', given: MediaProbe | undefined): Promise<MediaProbe> {
  return given ? Promise.resolve({ ...given, file }) : probeMedia(scope, tools, file, label);
}

async function measurePairWith(baseline: string, candidate: string, options: MeasureOptions, run: PairRun): Promise<MeasureOutcome> {
  const { shared } = run;
  const sameMedia = shared.sameMedia === true;
  checkArguments(baseline, candidate, options);
  // The pool checked the plan in its own thread; a worker does not load plan.json's schema for it again.
  if (!run.planChecked) (await import('./plan-spec.js')).checkPlanSpec(options.plan);
  if (options.signal?.aborted) return aborted();
  const toolchain = await resolveFfmpeg(options.ffmpeg);
  const tools: ProbeTools = {
    ffmpeg: toolchain.ffmpeg.path,
    ffprobe: toolchain.ffprobe.path,
    timeoutMs: options.timeoutMs ?? DEFAULT_DECODE_TIMEOUT_MS,
    ffmpegVersion: toolchain.ffmpeg.version,
  };
  const scope = new ProcessScope(options.signal);
  try {
    // The same bytes probe the same: once, and its failure is both sides'.
    const given = shared.probes ?? {};
    const probes: [MediaProbe, MediaProbe] = sameMedia
      ? await onBoth(probeSide(scope, tools, baseline, 'baseline', given.baseline)).then((p): [MediaProbe, MediaProbe] => [p, { ...p, file: candidate }])
      : await bothSides(blame('baseline', probeSide(scope, tools, baseline, 'baseline', given.baseline)), blame('candidate', probeSide(scope, tools, candidate, 'candidate', given.candidate)));
    scope.throwIfAborted();
    if (run.probed) run.probed.probes = probes;
    return await measureProbed({ scope, tools, probes, options, ...run });
  } catch (error) {
    // Whatever broke after an abort (a killed pipe, a short frame) is the abort.
    if (options.signal?.aborted) return aborted();
    const failed = pairFailure(error);
    if (failed) return failed;
    throw error;
  } finally {
    await scope.close();
  }
}
