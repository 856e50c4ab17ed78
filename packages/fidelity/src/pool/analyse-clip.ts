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
import { describeFieldMismatches, planFieldMismatches } from '../media/plan-conformance.js';
import type { MediaPlanSpec } from '../media/plan-conformance.js';
import type { PlanField } from '../schemas/measurement.js';
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

/** Options of {@link analyseClip}. */
export interface AnalyseClipOptions {
  /** Which ffmpeg / ffprobe (default: resolved as everywhere else). */
  ffmpeg?: ResolveOptions;
  /** Per child process, milliseconds (default {@link DEFAULT_DECODE_TIMEOUT_MS}). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /**
   * The plan: its frame rate and clip expectations (docs/run-archive.md); absent: the defaults alone.
   * A clip whose width, height or frame count differs from it, or whose audio lasts longer than it
   * allows, is not decoded: its outcome is `MEDIA_PLAN_MISMATCH`.
   */
  plan?: MediaPlanSpec;
}

/** The plan's fields whose excess makes a decode costly: a clip off any of them is reported without being decoded. */
const DECODE_COST_FIELDS: readonly PlanField[] = ['width', 'height', 'frames', 'audio_duration'];

export type { ClipOutcome };

/**
 * Decodes one clip and analyses it on its own (docs/metrics.md, "Clip validity").
 *
 * @throws FidelityError `ABORTED` when `signal` fires; `FFMPEG_NOT_FOUND` / `FFMPEG_BROKEN`.
 */
export async function analyseClip(file: string, options: AnalyseClipOptions = {}): Promise<ClipOutcome> {
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
    // A clip off the plan's size, frame count or audio length is not decoded (as compare refuses the
    // pair before decoding): a small file may hold thousands of frames far larger than planned, or
    // hours of audio behind a plan-sized picture (a decode bomb).
    const off = options.plan ? planFieldMismatches(probe, options.plan).filter((m) => DECODE_COST_FIELDS.includes(m.field)) : [];
    if (off.length > 0) return { ok: false, failure: { code: 'MEDIA_PLAN_MISMATCH', message: `the clip's media differ from the plan: ${describeFieldMismatches(off)}; not decoded` } };
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
    return { ok: true, clip: judgeClip(figures, audio, options.plan ? clipExpectationsOf(options.plan) : {}) };
  } catch (error) {
    if (options.signal?.aborted) throw new FidelityError('ABORTED', 'the clip analysis was cancelled', { cause: error });
    if (isFidelityError(error) && !['FFMPEG_NOT_FOUND', 'FFMPEG_BROKEN', 'INTERNAL', 'INVALID_ARGUMENT'].includes(error.code)) {
      return { ok: false, failure: { code: error.code, message: error.message } };
    }
    throw error;
  } finally {
    await scope.close();
  }
}
