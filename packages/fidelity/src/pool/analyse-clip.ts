/**
 * One clip analysed on its own, without a partner (`fidelity verify RUN --clips`, a new site's
 * first run): the same accumulators as a pair's measurement (metrics/clip-video.ts,
 * metrics/clip-audio.ts, metrics/clip-checks.ts) fed by one file's decoders, so the figures are
 * the ones a compare of that clip reports, read through the pair's frame loop (frame-loop.ts) with
 * the clip's observer and no sink. One video decoder process (planes, the audio's frame
 * summary and the video's frame timestamps) and, with audio, one audio decoder process.
 */
import { FidelityError, isFidelityError } from '../errors.js';
import { openAudioDecoder } from '../media/audio-decoder.js';
import { resolveFfmpeg } from '../media/ffmpeg.js';
import type { ResolveOptions } from '../media/ffmpeg.js';
import { clipPlanReason, planFieldMismatches } from '../media/plan-conformance.js';
import type { MediaPlanSpec } from '../media/plan-conformance.js';
import { probeMedia } from '../media/probe.js';
import type { MediaProbe, ProbeTools } from '../media/probe.js';
import { ProcessScope } from '../media/process.js';
import { openVideoDecoder } from '../media/video-decoder.js';
import { createClipAudioAccumulator } from '../metrics/clip-audio.js';
import type { ClipAudio } from '../schemas/clip.js';
import { clipExpectationsOf, judgeClip } from '../metrics/clip-checks.js';
import { createClipVideoAccumulator } from '../metrics/clip-video.js';
import { rgbConversionFor } from '../metrics/rgb24.js';
import type { ClipOutcome } from '../schemas/clip.js';
import { pairDecoders, runFrameLoop } from './frame-loop.js';
import { observeClip, seconds } from './observe-clip.js';
import { DEFAULT_DECODE_TIMEOUT_MS } from './pair-options.js';
import { checkBounded } from '../bounds.js';

/** Options of {@link analyseClip}. */
export interface AnalyseClipOptions {
  /** Which ffmpeg / ffprobe (default: resolved as everywhere else). */
  ffmpeg?: ResolveOptions;
  /** Per child process, milliseconds (default {@link DEFAULT_DECODE_TIMEOUT_MS}). */
  timeoutMs?: number;
  /** Cancels: the ffmpeg children are killed and the promise rejects with a FidelityError `ABORTED`. */
  signal?: AbortSignal;
  /**
   * The plan: its media spec, frame rate and clip expectations (docs/run-archive.md); absent: the
   * defaults alone. A clip whose media differ from it in any field is invalid with
   * `MEDIA_PLAN_MISMATCH` first ({@link clipPlanReason}); one that would cost more than
   * {@link DECODE_COST_SLACK} times the plan's pixels to decode is not decoded: its outcome is then
   * that failure. Audio lasting longer than the plan allows is never decoded
   * (hours of audio may hide behind a plan-sized picture).
   */
  plan?: MediaPlanSpec;
}

/**
 * How many times the plan's pixels (width x height x frames) a clip off the plan may hold and still be
 * decoded and analysed: one with fewer frames or a smaller picture than planned is analysed like any
 * other (its figures are written, and it is invalid with `MEDIA_PLAN_MISMATCH`); a small file that
 * holds far more frames, or far larger ones, than planned (a decode bomb) is reported without being
 * decoded.
 */
export const DECODE_COST_SLACK = 2;

/** Whether a clip off the plan holds more than {@link DECODE_COST_SLACK} times the plan's pixels. */
function beyondDecodeCost(video: { width: number; height: number; frames: number }, plan: MediaPlanSpec): boolean {
  const planned = plan.video.width * plan.video.height * plan.video.frames;
  return video.width * video.height * video.frames > DECODE_COST_SLACK * planned;
}

export type { ClipOutcome };

/**
 * Decodes one clip and analyses it on its own (docs/metrics.md, "Clip validity").
 *
 * @throws FidelityError `ABORTED` when `signal` fires; `FFMPEG_NOT_FOUND` / `FFMPEG_BROKEN`.
 */
export async function analyseClip(file: string, options: AnalyseClipOptions = {}): Promise<ClipOutcome> {
  checkBounded('timeoutMs', options.timeoutMs);
  return analyseClipProbed(file, options, undefined);
}

/**
 * {@link analyseClip} with the clip's probe when the command already has one (a pair of the same
 * bytes made it; MediaProbe as probeMedia returned it): the file is not probed again.
 */
export async function analyseClipProbed(file: string, options: AnalyseClipOptions, given: MediaProbe | undefined): Promise<ClipOutcome> {
  const toolchain = await resolveFfmpeg(options.ffmpeg);
  const tools: ProbeTools = {
    ffmpeg: toolchain.ffmpeg.path,
    ffprobe: toolchain.ffprobe.path,
    timeoutMs: options.timeoutMs ?? DEFAULT_DECODE_TIMEOUT_MS,
    ffmpegVersion: toolchain.ffmpeg.version,
  };
  const scope = new ProcessScope(options.signal);
  try {
    const probe = given ? { ...given, file } : await probeMedia(scope, tools, file, 'clip');
    const video = probe.video;
    if (!video) return { ok: false, failure: { code: 'NO_VIDEO_STREAM', message: 'the clip has no video stream' } };
    // Every field the plan states is judged here, once for every command (clipPlanReason); a clip far
    // beyond the plan's pixels is not decoded: a small file may hold thousands of frames far larger
    // than planned, or hours of audio behind a plan-sized picture (a decode bomb).
    const off = options.plan ? planFieldMismatches(probe, options.plan) : [];
    const planReason = clipPlanReason(off);
    if (planReason && (beyondDecodeCost(video, options.plan!) || off.some((m) => m.field === 'audio_duration'))) {
      return { ok: false, failure: { code: 'MEDIA_PLAN_MISMATCH', message: `${planReason.message}; not decoded` } };
    }
    const geometry = video.geometry;
    if (!geometry) return { ok: false, failure: { code: 'UNSUPPORTED_PIXEL_FORMAT', message: `${video.pixFmt} is not read without conversion` } };
    const rgb = rgbConversionFor(video.pixFmt, video.height);
    // The pair's frame loop with one decoder standing for both sides, the clip's observer and no sink.
    const clip = observeClip(createClipVideoAccumulator(geometry, rgb), 0);
    let decoder;
    try {
      decoder = await openVideoDecoder(scope, tools, file, 'clip', video, { audio: probe.audio, rgb24: rgb.by === 'ffmpeg' });
    } catch (error) {
      clip.close();
      throw error;
    }
    const loop = await runFrameLoop({ decoders: pairDecoders([decoder]), framesTotal: null, observers: { clip }, sink: null, measured: () => null, onWarm: () => {} });
    const figures = loop.observed.clip;
    const facts = loop.audio[0];
    let audio: ClipAudio | null = null;
    if (probe.audio) {
      const sums = createClipAudioAccumulator(probe.audio.sampleRate, probe.audio.channels);
      const decoder = await openAudioDecoder(scope, tools, file, 'clip', probe.audio);
      for (;;) {
        const chunk = await decoder.next();
        if (!chunk) break;
        if (chunk[0]!.length > 0) sums.push(chunk);
      }
      await decoder.finished();
      audio = sums.finish({ timeBase: facts ? seconds(facts.timeBase) : 1, frames: facts?.frames ?? [] }, await decoder.corruptFrames());
    }
    return { ok: true, clip: judgeClip(figures, audio, options.plan ? clipExpectationsOf(options.plan) : {}, planReason) };
  } catch (error) {
    if (options.signal?.aborted) throw new FidelityError('ABORTED', 'the clip analysis was cancelled', { cause: error });
    if (isFidelityError(error) && !['FFMPEG_NOT_FOUND', 'FFMPEG_BROKEN', 'INTERNAL', 'INVALID_ARGUMENT', 'TEMP_NOT_WRITABLE'].includes(error.code)) {
      return { ok: false, failure: { code: error.code, message: error.message } };
    }
    throw error;
  } finally {
    await scope.close();
  }
}
