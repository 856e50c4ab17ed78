/**
 * Streams the first audio stream as 32-bit float at its own rate and channel
 * count (ffmpeg only changes the sample format: AAC decodes to planar float,
 * pcm_f32le interleaves it; no resampling, no remixing). Chunks are cut at a
 * fixed number of samples per channel and de-interleaved into one
 * Float32Array per channel, into arrays the caller may recycle: fresh arrays
 * for every chunk are garbage that V8 collects late (external memory), and
 * the peak would grow with the clip's length.
 *
 * The process logs at `repeat+level+warning`, read line by line (decoder-log.ts): each side's
 * corrupt-frame lines for the clip checks (the clip's audio figures are this process's samples, so
 * its flags are counted here, never those of the video process that also decodes the audio for its
 * frame summary); only error-or-worse lines reach the stderr tail, as at `-loglevel error`. The
 * process reads each file through a link of our own naming (input-links.ts), so no file name reaches
 * its log.
 */
import { FidelityError } from '../errors.js';
import { AUDIO_DECODER_LOG_LEVEL, DecoderLog, distinctInputUrls, logsCorruptFrames } from './decoder-log.js';
import { binaryFromAnywhere, linkInputs } from './input-links.js';
import { INPUT_OPTIONS } from './probe.js';
import type { AudioProbe, ProbeTools } from './probe.js';
import { ReaderGroup } from './frame-reader.js';
import type { Child, ProcessScope } from './process.js';
import { inputsExitError } from './process.js';
import { spawnRawOutputs } from './raw-outputs.js';

/** Samples per channel per chunk: a second of 32 kHz audio, a few hundred KiB of floats. */
export const AUDIO_CHUNK_SAMPLES = 32_768;

export interface AudioDecoder {
  readonly child: Child;
  /**
   * The next chunk, planar (one array per channel, all the same length), or
   * null at the end. `take(samples)` supplies the arrays to fill (one per
   * channel, each `samples` long): recycled ones, or new ones.
   */
  next(take?: PlaneSupply): Promise<Float32Array[] | null>;
  /** Waits for ffmpeg to exit and throws if it failed. */
  finished(): Promise<void>;
  /** Audio frames the decoder flagged corrupt (null: this ffmpeg build does not log the flag); settles once it has exited. */
  corruptFrames(): Promise<number | null>;
}

export type PlaneSupply = (samples: number) => Float32Array[];

const fresh =
  (channels: number): PlaneSupply =>
  (samples) =>
    Array.from({ length: channels }, () => new Float32Array(samples));

/**
 * `-cpuflags 0`: the decoder's C code on every CPU. FFmpeg picks its float
 * audio code by CPU feature (the AAC decoder gives other last bits with SSE
 * only, with AVX, and in C: measured), so a shard on another machine would
 * measure other audio bits. The C path costs about 0.02 s of CPU per 80 s of
 * stereo AAC (docs/media.md); this process decodes nothing but the audio, so
 * the video decoding keeps its SIMD code.
 */
export const AUDIO_DECODER_OPTIONS = ['-cpuflags', '0'] as const;

/** One file's audio stream: its path, its name in messages ("baseline"), the stream. */
export interface AudioSide {
  file: string;
  label: string;
  audio: AudioProbe;
}

/**
 * The ffmpeg arguments of one process decoding every side's audio stream: side i's samples on
 * fd 3 + i. One process for both files of a pair saves a process start (see video-decoder.ts); the
 * bits are each stream's own, decoded by the same C code. `urls` are the `-i` names (the decoders
 * give links of their own, input-links.ts); without them the files' paths.
 */
export function audioDecodeArgs(sides: readonly Pick<AudioSide, 'file' | 'audio'>[], urls?: readonly string[]): string[] {
  const [nostdin, banner, , , ...perInput] = INPUT_OPTIONS;
  const args: string[] = [nostdin, banner, '-loglevel', AUDIO_DECODER_LOG_LEVEL, ...AUDIO_DECODER_OPTIONS];
  for (const url of urls ?? distinctInputUrls(sides.map((s) => s.file))) args.push(...perInput, '-i', url);
  sides.forEach((side, i) => args.push('-map', `${i}:${side.audio.index}`, '-c:a', 'pcm_f32le', '-f', 'f32le', `pipe:${3 + i}`));
  return args;
}

function deinterleave(bytes: Uint8Array, channels: number, label: string, take: PlaneSupply): Float32Array[] {
  if (bytes.byteLength % (4 * channels) !== 0) {
    throw new FidelityError('UNDECODABLE', `${label}: the decoded audio ends inside a sample frame`);
  }
  const interleaved = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 2);
  const frames = interleaved.length / channels;
  const out = take(frames);
  for (let c = 0; c < channels; c++) {
    const plane = out[c]!;
    for (let i = 0, j = c; i < frames; i++, j += channels) plane[i] = interleaved[j]!;
  }
  return out;
}

/**
 * One decoder process for several files' audio (a pair's two sides): one {@link AudioDecoder} per
 * side, in order, each reading its own output. They share the process: its exit (and its time limit)
 * is theirs, and its failure is an InputsFailure naming the files ffmpeg's messages name.
 */
export async function openAudioDecoders(scope: ProcessScope, tools: ProbeTools, sides: readonly AudioSide[], chunkSamples = AUDIO_CHUNK_SAMPLES): Promise<AudioDecoder[]> {
  // One group: while one side waits for its next chunk, ffmpeg may be blocked writing the other's (frame-reader.ts).
  const group = new ReaderGroup();
  const labels = sides.map((s) => s.label).join(' and ');
  // Links of our own naming: no file name reaches a line of the log (input-links.ts).
  const links = await linkInputs(sides.map((s) => s.file));
  const log = new DecoderLog(links.urls, { countCorrupt: logsCorruptFrames(tools.ffmpegVersion) });
  const { child, readers } = await spawnRawOutputs(
    scope,
    binaryFromAnywhere(tools.ffmpeg),
    audioDecodeArgs(sides, links.urls),
    sides.map((side, i) => ({ fd: 3 + i, recordBytes: chunkSamples * side.audio.channels * 4, reader: { capacity: 2, allowPartialLast: true, group, label: `${side.label} audio` } })),
    { label: `ffmpeg (audio, ${labels})`, timeoutMs: tools.timeoutMs, log, cwd: links.dir },
  ).catch((error: unknown) => {
    links.remove();
    throw error;
  });
  // Before the scope's close() returns: it awaits the exit after this callback was registered.
  void child.exited.then(links.remove);
  const named = sides.map((side, i) => ({ file: links.urls[i]!, label: side.label }));
  let failed: Promise<FidelityError | undefined> | null = null;
  const processFailure = (): Promise<FidelityError | undefined> => (failed ??= inputsExitError(`ffmpeg decoding the audio of ${labels}`, child, named, tools.timeoutMs));
  return sides.map((side, i): AudioDecoder => {
    const reader = readers[i]!;
    const explain = async (error: unknown): Promise<never> => {
      throw (await processFailure()) ?? error;
    };
    return {
      child,
      async next(take: PlaneSupply = fresh(side.audio.channels)): Promise<Float32Array[] | null> {
        let bytes: Uint8Array | null;
        try {
          bytes = await reader.next();
        } catch (error) {
          return explain(error);
        }
        if (!bytes) return null;
        const planes = deinterleave(bytes, side.audio.channels, side.label, take);
        reader.release(bytes);
        return planes;
      },
      async finished(): Promise<void> {
        const error = await processFailure();
        if (error) throw error;
      },
      async corruptFrames(): Promise<number | null> {
        const error = await processFailure();
        if (error) throw error;
        return log.corruptFrames(i, side.audio.index);
      },
    };
  });
}

/** One file's audio decoder process ({@link openAudioDecoders} with one side). */
export async function openAudioDecoder(
  scope: ProcessScope,
  tools: ProbeTools,
  file: string,
  label: string,
  audio: AudioProbe,
  chunkSamples = AUDIO_CHUNK_SAMPLES,
): Promise<AudioDecoder> {
  const [decoder] = await openAudioDecoders(scope, tools, [{ file, label, audio }], chunkSamples);
  return decoder!;
}
