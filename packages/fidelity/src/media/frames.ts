/**
 * The few decoded pieces the report's visual aids need: one frame of a
 * stream and the first seconds of its audio as float PCM. compare() and a
 * shard take them from their measuring decode (pool/frame-capture.ts), in
 * every metric set, so they are decoded once; this file is the fallback that
 * decodes them again (a pair with nothing captured: past the captures'
 * memory budget, or a caller that kept nothing), and the one place that
 * turns a frame's planes into the still's rgb24, so both paths give the same
 * bytes.
 *
 * A frame is taken as the measuring decoder takes it (media/video-decoder.ts):
 * the native planes in the stream's own pixel format, no conversion, and, for
 * a stream whose rgb24 is ffmpeg's (metrics/rgb24.ts `rgbConversionFor`),
 * ffmpeg's rgb24 made with the decoder's own filter (`rgb24Filter`). The
 * audio is taken with the audio decoder's options and sample format.
 */
import type { Readable } from 'node:stream';
import { FidelityError, invalidParameter } from '../errors.js';
import type { DecodedFrame } from '../metrics/frame.js';
import { rgbConversionFor, yuvToRgb24 } from '../metrics/rgb24.js';
import { AUDIO_DECODER_OPTIONS } from './audio-decoder.js';
import { resolveFfmpeg } from './ffmpeg.js';
import type { ResolveOptions } from './ffmpeg.js';
import { planeGeometry } from './pixel-formats.js';
import { INPUT_OPTIONS } from './probe.js';
import { readMp4 } from './mp4-reader.js';
import { ProcessScope, exitError } from './process.js';
import { DECODER_THREADS, rgb24Filter } from './video-decoder.js';
import { checkBounded } from '../bounds.js';

export interface ExtractOptions {
  ffmpeg?: ResolveOptions;
  signal?: AbortSignal;
  /** Wall-clock limit per ffmpeg child. */
  timeoutMs?: number;
}

/**
 * One decoded frame of one side, as the measuring decoder delivered it: its
 * pixel format, the native planes (Y, U, V back to back) and, only where the
 * stream's rgb24 is ffmpeg's, that rgb24 (else null: the library converts).
 */
export interface FramePlanes {
  pixFmt: string;
  width: number;
  height: number;
  chromaWidth: number;
  chromaHeight: number;
  /** Y then U then V, tightly packed, exactly as decoded. */
  planes: Uint8Array;
  /** ffmpeg's rgb24 (width * height * 3 bytes) for a stream converted by ffmpeg; null otherwise. */
  rgb: Uint8Array | null;
}

/**
 * What compare's measuring decode kept for a pair's bundle files:
 * frame `index` of both sides, and the first
 * samples per channel of both sides' decoded audio. Either part is null when
 * nothing was kept; the bundle then extracts that part again.
 */
export interface PairCapture {
  frame: { index: number; baseline: FramePlanes; candidate: FramePlanes } | null;
  audio: { baseline: Float32Array[]; candidate: Float32Array[] } | null;
}

export interface ExtractedFrame {
  width: number;
  height: number;
  /** width * height * 3 bytes: the still's rgb24 ({@link stillRgb24} of `native`). */
  rgb: Uint8Array;
  /** width * height bytes: the decoded Y plane as it is (no range or colour conversion). */
  y: Uint8Array;
  /** The frame as the measuring decoder gives it. */
  native: FramePlanes;
}

/**
 * The still's rgb24 and Y plane of a frame as decoded: rgb24 by the metrics'
 * own conversion (metrics/rgb24.ts: BT.601, full range for `yuvj*`, the
 * exact integer formula) where it applies, else the rgb24 ffmpeg made with
 * the measuring decoder's filter. The same function for a captured frame and
 * an extracted one, so compare's and merge's stills are the same bytes.
 */
export function stillOf(frame: FramePlanes): ExtractedFrame {
  const { width, height, chromaWidth, chromaHeight } = frame;
  const ySize = width * height;
  const cSize = chromaWidth * chromaHeight;
  if (frame.planes.length !== ySize + 2 * cSize) {
    throw invalidParameter('frame.planes', `${ySize + 2 * cSize} bytes`, `${frame.planes.length} bytes`);
  }
  const y = frame.planes.subarray(0, ySize);
  const conversion = rgbConversionFor(frame.pixFmt, height);
  let rgb: Uint8Array;
  if (conversion.by === 'fidelity') {
    const planar: Omit<DecodedFrame, 'rgb'> = { width, height, chromaWidth, chromaHeight, y, u: frame.planes.subarray(ySize, ySize + cSize), v: frame.planes.subarray(ySize + cSize) };
    rgb = yuvToRgb24(planar, { matrix: conversion.matrix, range: conversion.range });
  } else {
    if (!frame.rgb || frame.rgb.length !== 3 * ySize) throw invalidParameter('frame.rgb', `ffmpeg's ${3 * ySize} rgb24 bytes for ${frame.pixFmt}`, frame.rgb ? `${frame.rgb.length} bytes` : 'none');
    rgb = frame.rgb;
  }
  return { width, height, rgb, y, native: frame };
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

/** What {@link recordOf} read: record `index` (null when the pipe ended before it), each record's size and the bytes read in all. */
interface PipeRecord {
  record: Uint8Array | null;
  size: number;
  total: number;
}

/**
 * Record `index` of a pipe of fixed-size records (`size` bytes each), holding only that one: the
 * records before it are counted and dropped as they pass. Settles as {@link collect} does.
 */
function recordOf(stream: Readable, size: number, index: number): Promise<PipeRecord> {
  return new Promise((resolve, reject) => {
    const start = index * size;
    const record = new Uint8Array(size);
    let total = 0;
    stream.on('data', (chunk: Buffer) => {
      // The part of this chunk that falls within [start, start + size), copied to its place.
      const from = Math.max(start - total, 0);
      const to = Math.min(start + size - total, chunk.length);
      if (from < to) record.set(chunk.subarray(from, to), total + from - start);
      total += chunk.length;
    });
    const done = (): void => resolve({ record: total >= start + size ? record : null, size, total });
    stream.on('error', reject);
    stream.on('end', done);
    stream.on('close', done);
  });
}

/**
 * The first video stream's pixel format, as ffprobe names it (the decoder's output format): from
 * the library's MP4 reader when it vouches for the file (mp4-reader.ts), else from ffprobe.
 */
async function pixelFormatOf(scope: ProcessScope, ffprobe: string, file: string, timeoutMs: number): Promise<string> {
  const own = await readMp4(file);
  const first = own.ok ? own.facts.streams.find((s) => s.codec_type === 'video') : undefined;
  // A cover picture first (a file without a video track) is left to ffprobe: the reader does not read its pixels.
  if (first?.pix_fmt && first.disposition['attached_pic'] !== 1) return first.pix_fmt;
  const label = 'ffprobe pixel format';
  const child = scope.spawn(ffprobe, ['-hide_banner', '-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=pix_fmt', '-of', 'csv=p=0', file], { label, pipes: [1], timeoutMs });
  const [out, exit] = await Promise.all([collect(child.pipe(1)), child.exited]);
  const failed = exitError(label, exit, timeoutMs);
  if (failed) throw failed;
  return out.toString('utf8').trim();
}

/**
 * Frame `index` (0-based, in decode order, as the metrics count frames) of
 * the first video stream, decoded again: its native planes (rawvideo in the
 * stream's own pixel format, as media/video-decoder.ts asks for them) and,
 * for a stream whose rgb24 is ffmpeg's, ffmpeg's rgb24 through the decoder's
 * own filter; the still's rgb24 then comes from {@link stillOf}, as for a
 * captured frame. The caller passes the size the measurement saw, so a
 * mismatch is caught instead of silently mis-striding the planes.
 *
 * The frame is counted as the measuring decode counts it: the first
 * `index + 1` records of the decoder's own outputs, the last one kept. Not a
 * `select=eq(n,index)` filter: ffmpeg rebuilds a filter graph when the frame
 * size changes mid-stream, and its frame counter starts again at 0, so the
 * frames after the change would be numbered anew (and a frame past it never
 * found). The decoder's outputs, like the measuring decoder's, keep the first
 * frame's size across such a change (ffmpeg scales to it), so the record is
 * the frame the metrics measured. The frames before it are decoded either way
 * (a select filter decodes them too); only their bytes cross the pipe.
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
  checkBounded('timeoutMs', options.timeoutMs);
  const tools = await resolveFfmpeg(options.ffmpeg);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const scope = new ProcessScope(options.signal);
  const label = `ffmpeg frame ${index}`;
  const failure = (error: FidelityError): FidelityError =>
    error.code === 'ABORTED' ? error : new FidelityError('MEDIA_EXTRACT_FAILED', `Could not extract frame ${index}: ${error.message}`, { cause: error });
  try {
    let pixFmt: string;
    try {
      pixFmt = await pixelFormatOf(scope, tools.ffprobe.path, file, timeoutMs);
    } catch (error) {
      throw error instanceof FidelityError ? failure(error) : error;
    }
    const geometry = planeGeometry(pixFmt, width, height);
    if (!geometry) throw new FidelityError('MEDIA_EXTRACT_FAILED', `Could not extract frame ${index}: ${pixFmt || 'its pixel format'} is not read without conversion`);
    const byFfmpeg = rgbConversionFor(pixFmt, height).by === 'ffmpeg';
    // The measuring decoder's input options, outputs and passthrough timing (video-decoder.ts): the
    // planes in the stream's own format (no conversion), ffmpeg's rgb24 only where the metrics use it,
    // both cut after frame `index`; no filter counts frames (see above).
    const graph = byFfmpeg ? ['-filter_complex', `[0:v:0]split=2[planes][torgb];[torgb]${rgb24Filter(pixFmt)}[rgb]`] : [];
    const out = (map: string, fmt: string, fd: number): string[] => ['-map', map, '-frames:v', String(index + 1), '-vsync', 'passthrough', '-f', 'rawvideo', '-pix_fmt', fmt, `pipe:${fd}`];
    const args = [...INPUT_OPTIONS, ...DECODER_THREADS, '-i', file, ...graph, ...out(byFfmpeg ? '[planes]' : '0:v:0', pixFmt, 1), ...(byFfmpeg ? out('[rgb]', 'rgb24', 3) : [])];
    const child = scope.spawn(tools.ffmpeg.path, args, { label, pipes: byFfmpeg ? [1, 3] : [1], timeoutMs });
    const [planes, rgb, exit] = await Promise.all([
      recordOf(child.pipe(1), geometry.yuvBytes, index),
      byFfmpeg ? recordOf(child.pipe(3), geometry.rgbBytes, index) : Promise.resolve(null),
      child.exited,
    ]);
    const failed = exitError(label, exit, timeoutMs);
    if (failed) throw failure(failed);
    const misfit = (r: PipeRecord): boolean => r.total % r.size !== 0;
    if (misfit(planes) || (rgb !== null && misfit(rgb))) {
      throw new FidelityError(
        'MEDIA_EXTRACT_FAILED',
        `Frame ${index} is not ${width}x${height} ${pixFmt}: got ${planes.total} plane bytes${rgb ? ` and ${rgb.total} rgb24 bytes` : ''} for ${index + 1} frames`,
      );
    }
    if (!planes.record || (rgb !== null && !rgb.record)) throw new FidelityError('FRAME_NOT_FOUND', `The stream has no frame ${index}`);
    const { chromaWidth, chromaHeight } = geometry;
    return stillOf({ pixFmt, width, height, chromaWidth, chromaHeight, planes: planes.record, rgb: rgb?.record ?? null });
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
  checkBounded('timeoutMs', options.timeoutMs);
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
