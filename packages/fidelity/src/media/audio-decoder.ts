/**
 * Streams the first audio stream as 32-bit float at its own rate and channel
 * count (ffmpeg only changes the sample format: AAC decodes to planar float,
 * pcm_f32le interleaves it; no resampling, no remixing). Chunks are cut at a
 * fixed number of samples per channel and de-interleaved into one
 * Float32Array per channel, into arrays the caller may recycle: fresh arrays
 * for every chunk are garbage that V8 collects late (external memory), and
 * the peak would grow with the clip's length.
 */
import { FidelityError } from '../errors.js';
import { INPUT_OPTIONS } from './probe.js';
import type { AudioProbe, ProbeTools } from './probe.js';
import type { Child, ProcessScope } from './process.js';
import { exitError } from './process.js';
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

export function audioDecodeArgs(file: string, audio: AudioProbe): string[] {
  return [...INPUT_OPTIONS, ...AUDIO_DECODER_OPTIONS, '-i', file, '-map', `0:${audio.index}`, '-c:a', 'pcm_f32le', '-f', 'f32le', 'pipe:1'];
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

export async function openAudioDecoder(
  scope: ProcessScope,
  tools: ProbeTools,
  file: string,
  label: string,
  audio: AudioProbe,
  chunkSamples = AUDIO_CHUNK_SAMPLES,
): Promise<AudioDecoder> {
  const { child, readers } = await spawnRawOutputs(
    scope,
    tools.ffmpeg,
    audioDecodeArgs(file, audio),
    [{ fd: 1, recordBytes: chunkSamples * audio.channels * 4, reader: { capacity: 2, allowPartialLast: true, label: `${label} audio` } }],
    { label: `ffmpeg (audio, ${label})`, timeoutMs: tools.timeoutMs },
  );
  const reader = readers[0]!;
  const explain = async (error: unknown): Promise<never> => {
    const exit = await child.exited;
    throw exitError(`ffmpeg decoding the audio of ${label}`, exit, tools.timeoutMs) ?? error;
  };
  return {
    child,
    async next(take: PlaneSupply = fresh(audio.channels)): Promise<Float32Array[] | null> {
      let bytes: Uint8Array | null;
      try {
        bytes = await reader.next();
      } catch (error) {
        return explain(error);
      }
      if (!bytes) return null;
      const planes = deinterleave(bytes, audio.channels, label, take);
      reader.release(bytes);
      return planes;
    },
    async finished(): Promise<void> {
      const exit = await child.exited;
      const error = exitError(`ffmpeg decoding the audio of ${label}`, exit, tools.timeoutMs);
      if (error) throw error;
    },
  };
}
