/**
 * Streams the decoded frames of one file: ONE ffmpeg process writes the
 * native planes (Y, U, V) on fd 3, exactly as decoded. The metrics convert
 * rgb24 from those planes themselves (metrics/rgb24.ts), so the decoder
 * normally converts nothing. Only for a stream the exact formula does not
 * cover (4:4:4, an odd height in 4:2:0, ...) does the same process also
 * write ffmpeg's rgb24 on fd 4 (`rgb24: true`, the `ffmpeg` conversion),
 * read in lockstep with the planes (frame-reader.ts); otherwise a frame's
 * `rgb` is empty. Given the file's audio stream, the same process also
 * decodes it into a short frame summary on fd 5 (audio-facts.ts): the exact
 * sample count and first timestamp the compatibility checks need, without a
 * process of their own.
 *
 * `-vsync passthrough` keeps every decoded frame exactly once: the rawvideo
 * muxer would otherwise get constant-frame-rate treatment, which duplicates
 * or drops frames when timestamps are irregular.
 */
import { FidelityError } from '../errors.js';
import type { DecodedFrame, FrameGeometry } from '../metrics/frame.js';
import { ReaderGroup } from './frame-reader.js';
import type { FrameReader } from './frame-reader.js';
import type { PlaneGeometry } from './pixel-formats.js';
import { audioFactsOutput, readAudioFacts } from './audio-facts.js';
import type { AudioFacts } from './audio-facts.js';
import { INPUT_OPTIONS } from './probe.js';
import type { AudioProbe, ProbeTools, VideoProbe } from './probe.js';
import type { Child, ProcessScope } from './process.js';
import { exitError } from './process.js';
import { spawnRawOutputs } from './raw-outputs.js';

export interface VideoDecoderOptions {
  /** Decoded frames that may wait for the consumer, per pipe. */
  capacity?: number;
  /** Also deliver ffmpeg's rgb24 on fd 4 (the `ffmpeg` conversion, {@link rgb24Filter}); default false: planes only, no swscale. */
  rgb24?: boolean;
  /** The file's audio stream: also count its decoded samples and read its start (fd 5, {@link VideoDecoder.audioFacts}). */
  audio?: AudioProbe | null;
}

export interface VideoDecoder {
  readonly geometry: PlaneGeometry;
  readonly child: Child;
  /** The next frame, or null after the last. Throws UNDECODABLE / DECODE_TIMEOUT / ABORTED. */
  next(): Promise<DecodedFrame | null>;
  /** Returns the frame's buffers for reuse: call once the metrics are done with it. */
  release(frame: DecodedFrame): void;

  /** Waits for ffmpeg to exit and throws if it failed; call after next() returned null. */
  finished(): Promise<void>;
  /** Most frame buffers held at once by each pipe (bounded-memory checks). */
  peakBuffers(): { planes: number; rgb: number };
  /** The audio's sample count and start, read from the same process (null when no audio was given); settles once it has exited. */
  audioFacts(): Promise<AudioFacts | null>;
}

/**
 * A decoded frame as the records ffmpeg wrote: the planes (Y, U, V back to
 * back) and rgb24 (empty unless ffmpeg converts: an empty record of its own),
 * each the whole of its own ArrayBuffer, so a frame can be moved to another
 * thread (transfer list) and handed back.
 */
export interface FrameRecords {
  planes: Uint8Array;
  rgb: Uint8Array;
}

/** Plane views over the records; no copy. */
export function frameFromRecords(geometry: FrameGeometry, records: FrameRecords): DecodedFrame {
  return { ...planarFromRecord(geometry, records.planes), rgb: records.rgb };
}

/** Y, U and V views over a planes record; no copy. */
export function planarFromRecord(geometry: FrameGeometry, planes: Uint8Array): Omit<DecodedFrame, 'rgb'> {
  const ySize = geometry.width * geometry.height;
  const cSize = geometry.chromaWidth * geometry.chromaHeight;
  return {
    width: geometry.width,
    height: geometry.height,
    chromaWidth: geometry.chromaWidth,
    chromaHeight: geometry.chromaHeight,
    y: planes.subarray(0, ySize),
    u: planes.subarray(ySize, ySize + cSize),
    v: planes.subarray(ySize + cSize, ySize + 2 * cSize),
  };
}

/** The records behind a frame from frameFromRecords(). */
export function frameRecords(frame: DecodedFrame): FrameRecords {
  return { planes: new Uint8Array(frame.y.buffer, 0, frame.y.length + frame.u.length + frame.v.length), rgb: frame.rgb ?? new Uint8Array(0) };
}

/**
 * ffmpeg's rgb24 for a stream the exact formula does not cover (docs/metrics.md, "RGB conversion"):
 * swscale's default path (not `accurate_rnd`, which interpolates chroma and is not what InferenceX's
 * evaluator gets) with PyAV's parameters, so the bytes are those of `frame.to_ndarray("rgb24")` made
 * with the same libswscale: SWS_BILINEAR, BT.601 whatever the stream's tags say, full range only for
 * `yuvj*` formats. Not promised identical across CPUs (swscale's SIMD and C paths round differently).
 */
export function rgb24Filter(pixFmt: string): string {
  const range = pixFmt.startsWith('yuvj') ? 'pc' : 'tv';
  return `scale=flags=bilinear:in_color_matrix=bt601:in_range=${range},format=rgb24`;
}

/** The fd of the audio frame summary (audio-facts.ts). */
export const AUDIO_FACTS_FD = 5;

/**
 * The ffmpeg arguments, exported for docs and the benchmark: the planes on fd 3; `rgb24: true` adds
 * ffmpeg's rgb24 on fd 4; `audio` adds the audio frame summary on fd 5 (and `-copyts`, so that its
 * first timestamp is the file's own; raw outputs carry no timestamps, so nothing else changes).
 */
export function videoDecodeArgs(file: string, video: VideoProbe, options: { rgb24?: boolean; audio?: AudioProbe | null } = {}): string[] {
  const input = [...INPUT_OPTIONS, ...(options.audio ? ['-copyts'] : []), '-i', file];
  const audio = options.audio ? audioFactsOutput(options.audio, AUDIO_FACTS_FD) : [];
  if (options.rgb24 !== true) {
    return [...input, '-map', `0:${video.index}`, '-vsync', 'passthrough', '-f', 'rawvideo', '-pix_fmt', video.pixFmt, 'pipe:3', ...audio];
  }
  return [
    ...input,
    '-filter_complex', `[0:${video.index}]split=2[planes][torgb];[torgb]${rgb24Filter(video.pixFmt)}[rgb]`,
    '-map', '[planes]', '-vsync', 'passthrough', '-f', 'rawvideo', '-pix_fmt', video.pixFmt, 'pipe:3',
    '-map', '[rgb]', '-vsync', 'passthrough', '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:4',
    ...audio,
  ];
}

/**
 * Stands in for the rgb24 pipe when it is not decoded: every frame's rgb24 is an empty record of its
 * own (its own buffer, so a frame's records can still be moved to a helper thread).
 */
const noRgb = {
  delivered: 0,
  peakBuffers: 0,
  next: (): Promise<Uint8Array> => Promise.resolve(new Uint8Array(0)),
  release: (): void => undefined,
};

export async function openVideoDecoder(
  scope: ProcessScope,
  tools: ProbeTools,
  file: string,
  label: string,
  video: VideoProbe,
  options: VideoDecoderOptions = {},
): Promise<VideoDecoder> {
  const geometry = video.geometry;
  if (!geometry) throw new FidelityError('UNSUPPORTED_PIXEL_FORMAT', `${label}: ${video.pixFmt} is not read without conversion`);
  const capacity = options.capacity ?? 2;
  const withRgb = options.rgb24 === true;
  const group = new ReaderGroup();
  const audio = options.audio ?? null;
  const { child, readers } = await spawnRawOutputs(
    scope,
    tools.ffmpeg,
    videoDecodeArgs(file, video, { rgb24: withRgb, audio }),
    [
      { fd: 3, recordBytes: geometry.yuvBytes, reader: { capacity, group, label: `${label} planes` } },
      ...(withRgb ? [{ fd: 4, recordBytes: geometry.rgbBytes, reader: { capacity, group, label: `${label} rgb24` } }] : []),
    ],
    { label: `ffmpeg (video, ${label})`, timeoutMs: tools.timeoutMs, textPipes: audio ? [AUDIO_FACTS_FD] : [] },
  );
  const planes = readers[0] as FrameReader;
  const rgb = withRgb ? (readers[1] as FrameReader) : noRgb;
  // Read as it streams (or ffmpeg would block on a full pipe); a read error shows as the process's exit.
  const facts = audio ? readAudioFacts(child.pipe(AUDIO_FACTS_FD), audio.channels, label) : Promise.resolve(null);
  facts.catch(() => undefined);

  // A reader error (a frame cut short) usually means ffmpeg died: its exit says why, so prefer it.
  const explain = async (error: unknown): Promise<never> => {
    const exit = await child.exited;
    throw exitError(`ffmpeg decoding the video of ${label}`, exit, tools.timeoutMs) ?? error;
  };

  return {
    geometry,
    child,
    async next(): Promise<DecodedFrame | null> {
      let pair: [Uint8Array | null, Uint8Array | null];
      try {
        pair = await Promise.all([planes.next(), rgb.next()]);
        // Without rgb24 the planes alone say where the stream ends.
        if (!withRgb && pair[0] === null) pair[1] = null;
      } catch (error) {
        return explain(error);
      }
      const [yuv, rgbBytes] = pair;
      if (!yuv || !rgbBytes) {
        if (yuv) planes.release(yuv);
        if (rgbBytes) rgb.release(rgbBytes);
        if (yuv || rgbBytes) {
          await explain(new FidelityError('UNDECODABLE', `${label}: ffmpeg wrote ${planes.delivered} planar frames but ${rgb.delivered} rgb24 frames`));
        }
        return null;
      }
      return frameFromRecords(geometry, { planes: yuv, rgb: rgbBytes });
    },
    release(frame: DecodedFrame): void {
      const records = frameRecords(frame);
      planes.release(records.planes);
      rgb.release(records.rgb);
    },

    async finished(): Promise<void> {
      const exit = await child.exited;
      const error = exitError(`ffmpeg decoding the video of ${label}`, exit, tools.timeoutMs);
      if (error) throw error;
    },
    peakBuffers: () => ({ planes: planes.peakBuffers, rgb: rgb.peakBuffers }),
    async audioFacts(): Promise<AudioFacts | null> {
      const exit = await child.exited;
      const error = exitError(`ffmpeg decoding the video of ${label}`, exit, tools.timeoutMs);
      if (error) throw error;
      return facts;
    },
  };
}
