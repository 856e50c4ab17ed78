/**
 * Pulls the few decoded pieces the report's visual aids need: one frame of a
 * stream (as rgb24 and as its Y plane) and the first seconds of its audio as
 * float PCM. Measuring decodes whole streams elsewhere (media/decode); this is
 * a cheap side path for stills, heat maps and the difference audio only.
 */
import type { Readable } from 'node:stream';
import { FidelityError, invalidParameter } from '../errors.js';
import { AUDIO_DECODER_OPTIONS } from './audio-decoder.js';
import { resolveFfmpeg } from './ffmpeg.js';
import type { ResolveOptions } from './ffmpeg.js';
import { ProcessScope, exitError } from './process.js';

export interface ExtractOptions {
  ffmpeg?: ResolveOptions;
  signal?: AbortSignal;
  /** Wall-clock limit per ffmpeg child. */
  timeoutMs?: number;
}

export interface ExtractedFrame {
  width: number;
  height: number;
  /** width * height * 3 bytes, rgb24 as ffmpeg converts it. */
  rgb: Buffer;
  /** width * height bytes: the decoded Y plane as it is (no range or colour conversion). */
  y: Buffer;
}

const DEFAULT_TIMEOUT_MS = 120_000;

/**
 * All of a pipe's bytes. A pipe destroyed by the child's kill (timeout,
 * abort) emits only 'close', never 'end': it settles then too, with what it
 * got, and the child's exit says why it stopped.
 */
function collect(stream: Readable): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('error', reject);
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('close', () => resolve(Buffer.concat(chunks)));
  });
}

/**
 * Frame `index` (0-based, in decode order, as the metrics count frames) of
 * the first video stream. The caller passes the size the measurement saw, so
 * a mismatch is caught instead of silently mis-striding the planes.
 */
export async function extractFrame(
  file: string,
  index: number,
  size: { width: number; height: number },
  options: ExtractOptions = {},
): Promise<ExtractedFrame> {
  if (!Number.isInteger(index) || index < 0) throw invalidParameter('index', 'a non-negative integer', index);
  const { width, height } = size;
  if (!Number.isInteger(width) || width <= 0) throw invalidParameter('size.width', 'a positive integer', width);
  if (!Number.isInteger(height) || height <= 0) throw invalidParameter('size.height', 'a positive integer', height);
  const tools = await resolveFfmpeg(options.ffmpeg);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // One decode feeds both outputs: rgb24 for the still, extractplanes for the untouched Y plane
  // (a pix_fmt conversion to gray could apply a range conversion; extractplanes copies).
  const graph = `[0:v:0]select=eq(n\\,${index}),split=2[a][b];[a]format=rgb24[rgb];[b]extractplanes=y[y]`;
  const args = [
    '-nostdin', '-hide_banner', '-loglevel', 'error', '-noautorotate', '-i', file,
    '-filter_complex', graph,
    '-map', '[rgb]', '-frames:v', '1', '-vsync', '0', '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1',
    '-map', '[y]', '-frames:v', '1', '-vsync', '0', '-f', 'rawvideo', '-pix_fmt', 'gray', 'pipe:3',
  ];
  const scope = new ProcessScope(options.signal);
  const label = `ffmpeg frame ${index}`;
  try {
    const child = scope.spawn(tools.ffmpeg.path, args, { label, pipes: [1, 3], timeoutMs });
    const [rgb, y, exit] = await Promise.all([collect(child.pipe(1)), collect(child.pipe(3)), child.exited]);
    const failed = exitError(label, exit, timeoutMs);
    if (failed) throw failed.code === 'ABORTED' ? failed : new FidelityError('MEDIA_EXTRACT_FAILED', `Could not extract frame ${index}: ${failed.message}`, { cause: failed });
    if (rgb.length === 0 && y.length === 0) {
      throw new FidelityError('FRAME_NOT_FOUND', `The stream has no frame ${index}`);
    }
    if (rgb.length !== width * height * 3 || y.length !== width * height) {
      throw new FidelityError(
        'MEDIA_EXTRACT_FAILED',
        `Frame ${index} is not ${width}x${height}: got ${rgb.length} rgb24 bytes and ${y.length} Y bytes`,
      );
    }
    return { width, height, rgb, y };
  } finally {
    await scope.close();
  }
}

/**
 * The first `maxSamples` samples per channel of the first audio stream, as
 * 32-bit float at the stream's own rate and channel count (no resampling:
 * the caller passes the channel count the measurement saw, to de-interleave).
 * Returns fewer samples when the stream is shorter.
 */
export async function extractAudio(
  file: string,
  layout: { channels: number; maxSamples: number },
  options: ExtractOptions = {},
): Promise<Float32Array[]> {
  const { channels, maxSamples } = layout;
  if (!Number.isInteger(channels) || channels <= 0) throw invalidParameter('layout.channels', 'a positive integer', channels);
  if (!Number.isInteger(maxSamples) || maxSamples < 0) throw invalidParameter('layout.maxSamples', 'a non-negative integer', maxSamples);
  const tools = await resolveFfmpeg(options.ffmpeg);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // atrim counts samples, so the cut is exact whatever the container's timestamps say. The decoder's
  // C code, as the measuring decoder runs it (audio-decoder.ts): the same bits on every CPU.
  const args = [
    '-nostdin', '-hide_banner', '-loglevel', 'error', ...AUDIO_DECODER_OPTIONS, '-i', file,
    '-map', '0:a:0', '-af', `atrim=end_sample=${maxSamples}`, '-f', 'f32le', '-acodec', 'pcm_f32le', 'pipe:1',
  ];
  const scope = new ProcessScope(options.signal);
  const label = 'ffmpeg audio';
  try {
    const child = scope.spawn(tools.ffmpeg.path, args, { label, pipes: [1], timeoutMs });
    const [bytes, exit] = await Promise.all([collect(child.pipe(1)), child.exited]);
    const failed = exitError(label, exit, timeoutMs);
    if (failed) throw failed.code === 'ABORTED' ? failed : new FidelityError('MEDIA_EXTRACT_FAILED', `Could not extract audio: ${failed.message}`, { cause: failed });
    const frames = Math.min(maxSamples, Math.floor(bytes.length / (4 * channels)));
    const out: Float32Array[] = [];
    for (let c = 0; c < channels; c++) {
      const plane = new Float32Array(frames);
      for (let i = 0; i < frames; i++) plane[i] = bytes.readFloatLE((i * channels + c) * 4);
      out.push(plane);
    }
    return out;
  } finally {
    await scope.close();
  }
}
