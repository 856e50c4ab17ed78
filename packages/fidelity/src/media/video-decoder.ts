/**
 * Streams the decoded frames of one file, or of both files of a pair: ONE
 * ffmpeg process writes each file's native planes (Y, U, V) on a fd of its
 * own (fd 3 for the first file, 4 for the second), exactly as decoded. One
 * process for both files of a pair saves a process start per pair (Debian's
 * dynamically linked ffmpeg spends about 0.06 s of CPU loading its
 * libraries) and a fork of the measuring process; each file still has its
 * own outputs, so a short stream names its side, and a failure of the
 * process names the file ffmpeg's messages name (process.ts, InputsFailure).
 *
 * The metrics convert rgb24 from those planes themselves (metrics/rgb24.ts),
 * so the decoder normally converts nothing. Only for a stream the exact
 * formula does not cover (4:4:4, an odd height in 4:2:0, ...) does the same
 * process also write ffmpeg's rgb24 (`rgb24: true`, the `ffmpeg`
 * conversion), each file's on its own fd after the planes', read in lockstep
 * with the planes (frame-reader.ts); otherwise a frame's `rgb` is empty.
 * Given a file's audio stream, the same process also decodes it into a short
 * frame summary (audio-facts.ts) on a fd after those: the exact sample count
 * and first timestamp the compatibility checks need, without a process of
 * their own. The same process also writes every decoded video frame's timestamp
 * (`framecrc` of `wrapped_avframe`, which copies no picture: a line per frame,
 * in the stream's own time base) for the clip analysis (metrics/clip-video.ts).
 *
 * The process logs at `repeat+level+verbose`, read line by line (decoder-log.ts): each side's
 * corrupt-frame lines and its video stream's frame sizes for the clip checks; only the
 * error-or-worse lines reach the stderr tail, as at `-loglevel error`. The process reads each side
 * through a link of our own naming (input-links.ts): no file name reaches its log, and a file given
 * for both sides is two links, so that every line names one side.
 *
 * `-vsync passthrough` keeps every decoded frame exactly once: the rawvideo
 * muxer would otherwise get constant-frame-rate treatment, which duplicates
 * or drops frames when timestamps are irregular.
 */
import { FidelityError } from '../errors.js';
import type { DecodedFrame, FrameGeometry } from '../metrics/frame.js';
import { ReaderGroup } from './frame-reader.js';
import type { FrameReader, RecordBuffers } from './frame-reader.js';
import type { PlaneGeometry } from './pixel-formats.js';
import { audioFactsOutput, readAudioFacts, readFrameSummary } from './audio-facts.js';
import type { AudioFacts, FrameSummary } from './audio-facts.js';
import { DecoderLog, distinctInputUrls, logsCorruptFrames, VIDEO_DECODER_LOG_LEVEL } from './decoder-log.js';
import type { StreamSizes } from './decoder-log.js';
import { binaryFromAnywhere, linkInputs } from './input-links.js';
import { INPUT_OPTIONS } from './probe.js';
import type { AudioProbe, ProbeTools, VideoProbe } from './probe.js';
import type { Child, ProcessScope } from './process.js';
import { inputsExitError } from './process.js';
import { spawnRawOutputs } from './raw-outputs.js';

export interface VideoDecoderOptions {
  /** Decoded frames that may wait for the consumer, per pipe. */
  capacity?: number;
  /** Also deliver ffmpeg's rgb24 on fd 4 (the `ffmpeg` conversion, {@link rgb24Filter}); default false: planes only, no swscale. */
  rgb24?: boolean;
  /** The file's audio stream: also count its decoded samples and read its start (fd 5, {@link VideoDecoder.audioFacts}). */
  audio?: AudioProbe | null;
  /** Where each side's plane records come from (default: fresh arrays; frame-reader.ts RecordBuffers), by side. */
  buffers?: readonly (RecordBuffers | undefined)[];
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
  /** Every decoded video frame's PTS and duration in the stream's time base, read from the same process; settles once it has exited. */
  frameTimes(): Promise<FrameSummary>;
  /** What the process's log said of this side's video stream (decoder-log.ts); settles once it has exited. */
  videoLog(): Promise<VideoLog>;
}

/** One side's video stream as its decoder's log tells it. */
export interface VideoLog {
  /** Frames the decoder flagged corrupt; null where this ffmpeg build does not log the flag. */
  corruptFrames: number | null;
  /** The frame sizes the filter graphs were configured with; null where the log showed none. */
  sizes: StreamSizes | null;
}

/**
 * A decoded frame as the records ffmpeg wrote: the planes (Y, U, V back to
 * back) and rgb24 (empty unless ffmpeg converts: an empty record of its own),
 * each the whole of its own ArrayBuffer, so a frame can be moved to another
 * thread (transfer list) and handed back; or, when the planes were read
 * straight into the metric kernels' memory (`buffers`), a view into it, which
 * stays in its thread.
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
  return { planes: new Uint8Array(frame.y.buffer, frame.y.byteOffset, frame.y.length + frame.u.length + frame.v.length), rgb: frame.rgb ?? new Uint8Array(0) };
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

/** The fd of the audio frame summary (audio-facts.ts) of a one-file decoder. */
export const AUDIO_FACTS_FD = 5;

/** One file of a decoder process: its path, its name in messages ("baseline"), its video stream and, for the facts, its audio stream. */
export interface VideoSide {
  file: string;
  label: string;
  video: VideoProbe;
  audio?: AudioProbe | null;
}

/** Where side `i` of `n` writes: its planes, ffmpeg's rgb24, its audio frame summary and its video frame summary. */
export function videoSideFds(i: number, n: number): { planes: number; rgb: number; facts: number; times: number } {
  return { planes: 3 + i, rgb: 3 + n + i, facts: 3 + 2 * n + i, times: 3 + 3 * n + i };
}

/**
 * The output that writes a side's video frame timestamps: the decoded frames wrapped as they are
 * (`wrapped_avframe`: no copy, no conversion), every one kept (`passthrough`), in the input
 * stream's own time base (`-enc_time_base -1`), summarised by framecrc, one line per frame.
 */
export function frameTimesOutput(input: number, streamIndex: number, fd: number): string[] {
  return ['-map', `${input}:${streamIndex}`, '-c:v', 'wrapped_avframe', '-vsync', 'passthrough', '-enc_time_base', '-1', '-f', 'framecrc', `pipe:${fd}`];
}

/**
 * Frames each raw output may queue inside ffmpeg. The outputs go through the `fifo` muxer, which
 * writes them from a thread of its own: without it ffmpeg's one thread that decodes also writes, and
 * it blocks on a full socket (a few hundred KB, a fraction of a frame) whenever the measuring thread
 * is busy with the metrics, so decoding and measuring took turns instead of overlapping (measured:
 * a full-size pair alone took 3.4-4.0 s of wall time, 2.7-3.0 s through the queue; docs/performance.md).
 * Two: one being written, one waiting. The bytes written are the same.
 */
export const RAW_QUEUE_FRAMES = 2;

/**
 * Each input's decoder runs on one thread (`-threads 1`, an input option). Measuring keeps every core
 * busy without ffmpeg's frame threads: the metrics take as long as decoding, and the pool runs a pair
 * per core. Frame threads cost CPU (about 12% of a full-size decode here: thread hand-offs and every
 * thread's own buffers) and on a busy machine that CPU is another pair's time (measured: `compare` of
 * two full-size pairs on 2 cores took 0.3-0.5 s less wall time). One thread also makes the decoded
 * bytes the same on every machine: H.264's error concealment of a damaged stream depends on its
 * thread count, which by default follows the machine's cores. Every decode of a frame (the stills'
 * frames.ts too) uses it.
 */
export const DECODER_THREADS = ['-threads', '1'] as const;

/**
 * The ffmpeg arguments of one process decoding every side, exported for docs and the benchmark:
 * side i's planes on fd 3 + i; `rgb24: true` adds ffmpeg's rgb24 on fd 3 + n + i; a side's audio
 * adds its frame summary on fd 3 + 2n + i (and `-copyts`, so that its first timestamp is the file's
 * own; raw outputs carry no timestamps, so nothing else changes). One file: planes on 3, rgb24 on 4,
 * the summary on 5. `urls` are the `-i` names (the decoders give links of their own, input-links.ts);
 * without them the files' paths, a file given twice named `file:PATH` the second time (decoder-log.ts).
 */
export function videoDecodeArgs(sides: readonly Pick<VideoSide, 'file' | 'video' | 'audio'>[], options: { rgb24?: boolean; urls?: readonly string[] } = {}): string[] {
  const n = sides.length;
  // -copyts is global: it is given when the files have audio (a pair whose sides disagree on audio is refused before decoding).
  const copyts = sides.some((s) => s.audio) ? ['-copyts'] : [];
  const [nostdin, banner, , , ...perInput] = INPUT_OPTIONS;
  const args: string[] = [nostdin, banner, '-loglevel', VIDEO_DECODER_LOG_LEVEL, ...copyts];
  const urls = options.urls ?? distinctInputUrls(sides.map((s) => s.file));
  for (const url of urls) args.push(...perInput, ...DECODER_THREADS, '-i', url);
  const out = (i: number, map: string, pixFmt: string, fd: number): string[] => [
    ...['-map', map, '-vsync', 'passthrough', '-c:v', 'rawvideo', '-pix_fmt', pixFmt],
    ...['-f', 'fifo', '-fifo_format', 'rawvideo', '-queue_size', String(RAW_QUEUE_FRAMES), `pipe:${fd}`],
  ];
  sides.forEach((side, i) => {
    const fds = videoSideFds(i, n);
    if (options.rgb24 === true) {
      args.push('-filter_complex', `[${i}:${side.video.index}]split=2[planes${i}][torgb${i}];[torgb${i}]${rgb24Filter(side.video.pixFmt)}[rgb${i}]`);
      args.push(...out(i, `[planes${i}]`, side.video.pixFmt, fds.planes), ...out(i, `[rgb${i}]`, 'rgb24', fds.rgb));
    } else {
      args.push(...out(i, `${i}:${side.video.index}`, side.video.pixFmt, fds.planes));
    }
  });
  sides.forEach((side, i) => {
    if (side.audio) args.push(...audioFactsOutput(side.audio, videoSideFds(i, n).facts, i));
  });
  sides.forEach((side, i) => args.push(...frameTimesOutput(i, side.video.index, videoSideFds(i, n).times)));
  return args;
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

/**
 * One decoder process for several files (a pair's two sides): one {@link VideoDecoder} per side, in
 * order, each reading its own outputs. They share the process: its exit (and its time limit) is
 * theirs, and an error of the process is thrown by each side's calls, as an {@link InputsFailure}
 * naming the files it is about when there are several.
 */
export async function openVideoDecoders(scope: ProcessScope, tools: ProbeTools, sides: readonly VideoSide[], options: Omit<VideoDecoderOptions, 'audio'> = {}): Promise<VideoDecoder[]> {
  for (const side of sides) {
    if (!side.video.geometry) throw new FidelityError('UNSUPPORTED_PIXEL_FORMAT', `${side.label}: ${side.video.pixFmt} is not read without conversion`);
  }
  const n = sides.length;
  const capacity = options.capacity ?? 2;
  const withRgb = options.rgb24 === true;
  // Every output of the process in one group: while any waits for its next frame, ffmpeg may be
  // blocked writing another, which must then be read (frame-reader.ts).
  const group = new ReaderGroup();
  const outputs = sides.flatMap((side, i) => {
    const geometry = side.video.geometry!;
    const fds = videoSideFds(i, n);
    return [
      { fd: fds.planes, recordBytes: geometry.yuvBytes, reader: { capacity, group, label: `${side.label} planes`, buffers: options.buffers?.[i] } },
      ...(withRgb ? [{ fd: fds.rgb, recordBytes: geometry.rgbBytes, reader: { capacity, group, label: `${side.label} rgb24` } }] : []),
    ];
  });
  const factsFds = [...sides.flatMap((side, i) => (side.audio ? [videoSideFds(i, n).facts] : [])), ...sides.map((_, i) => videoSideFds(i, n).times)];
  const labels = sides.map((s) => s.label).join(' and ');
  // The process reads links of our own naming, so no file name reaches a line of its log (input-links.ts).
  const links = await linkInputs(sides.map((s) => s.file));
  const log = new DecoderLog(links.urls, { countCorrupt: logsCorruptFrames(tools.ffmpegVersion) });
  const { child, readers } = await spawnRawOutputs(scope, binaryFromAnywhere(tools.ffmpeg), videoDecodeArgs(sides, { rgb24: withRgb, urls: links.urls }), outputs, {
    label: `ffmpeg (video, ${labels})`,
    timeoutMs: tools.timeoutMs,
    textPipes: factsFds,
    log,
    cwd: links.dir,
  }).catch((error: unknown) => {
    links.remove();
    throw error;
  });
  // Before the scope's close() returns: it awaits the exit after this callback was registered.
  void child.exited.then(links.remove);
  const named = sides.map((side, i) => ({ file: links.urls[i]!, label: side.label }));
  let failed: Promise<FidelityError | undefined> | null = null;
  const processFailure = (): Promise<FidelityError | undefined> => (failed ??= inputsExitError(`ffmpeg decoding the video of ${labels}`, child, named, tools.timeoutMs));

  return sides.map((side, i): VideoDecoder => {
    const geometry = side.video.geometry!;
    const planes = readers[withRgb ? 2 * i : i] as FrameReader;
    const rgb = withRgb ? (readers[2 * i + 1] as FrameReader) : noRgb;
    // Read as it streams (or ffmpeg would block on a full pipe); a read error shows as the process's exit.
    const facts = side.audio ? readAudioFacts(child.pipe(videoSideFds(i, n).facts), side.audio.channels, side.label) : Promise.resolve(null);
    facts.catch(() => undefined);
    const times = readFrameSummary(child.pipe(videoSideFds(i, n).times), side.label, 'video');
    times.catch(() => undefined);
    // A reader error (a frame cut short) usually means ffmpeg died: its exit says why, so prefer it.
    const explain = async (error: unknown): Promise<never> => {
      throw (await processFailure()) ?? error;
    };
    const label = side.label;
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
        const error = await processFailure();
        if (error) throw error;
      },
      peakBuffers: () => ({ planes: planes.peakBuffers, rgb: rgb.peakBuffers }),
      async audioFacts(): Promise<AudioFacts | null> {
        const error = await processFailure();
        if (error) throw error;
        return facts;
      },
      async frameTimes(): Promise<FrameSummary> {
        const error = await processFailure();
        if (error) throw error;
        return times;
      },
      async videoLog(): Promise<VideoLog> {
        const error = await processFailure();
        if (error) throw error;
        return { corruptFrames: log.corruptFrames(i, side.video.index), sizes: log.sizes(i, side.video.index) };
      },
    };
  });
}

/** One file's decoder process ({@link openVideoDecoders} with one side). */
export async function openVideoDecoder(
  scope: ProcessScope,
  tools: ProbeTools,
  file: string,
  label: string,
  video: VideoProbe,
  options: VideoDecoderOptions = {},
): Promise<VideoDecoder> {
  const { audio = null, ...rest } = options;
  const [decoder] = await openVideoDecoders(scope, tools, [{ file, label, video, audio }], rest);
  return decoder!;
}
