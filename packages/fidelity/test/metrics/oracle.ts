/**
 * What the metric tests compare against: the golden JSON of
 * fixtures/golden/make_golden.py (scikit-image, numpy, scipy) and FFmpeg's
 * own `ssim` and `psnr` filters, run live on the same files with the same
 * resolved binary. Also a tiny decoder (the real streaming one belongs to
 * media/): whole files to memory, fine for the small golden clips.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { resolveFfmpeg } from '../../src/media/ffmpeg.js';
import type { DecodedFrame } from '../../src/metrics/frame.js';

const run = promisify(execFile);
const MAX_BUFFER = 256 << 20;

export const GOLDEN_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../fixtures/golden');

export interface GoldenSeries {
  per_frame: number[];
  min: number;
  mean: number;
  p05: number;
  max: number;
  worst_frame: number;
  harmonic_mean: number;
}

export interface GoldenAudioChannel {
  samples: number;
  max_abs_diff: number;
  mae: number;
  rmse: number;
  snr_db: number | null;
  pearson: number;
  rms_ratio: number | null;
  spectral_cosine: number;
  newly_silent: boolean;
  identical: boolean;
  baseline_peak: number;
  candidate_peak: number;
  lag_estimate_samples: number;
}

/** One input of a golden pair: the file, and the SHA-256 of the exact pixels the values were computed from. */
export interface GoldenSide {
  path: string;
  sha256: string;
  decoded: { y_sha256: string; rgb24_sha256: string };
}

export interface GoldenPair {
  skimage: string;
  ffmpeg: string;
  ffmpeg_sha256: string;
  baseline: GoldenSide;
  candidate: GoldenSide;
  width: number;
  height: number;
  frames: number;
  ssim: GoldenSeries;
  ssim_rgb7: GoldenSeries;
  audio: { sample_rate: number; channels: GoldenAudioChannel[] } | null;
}

export interface GoldenPlaneCase {
  name: string;
  width: number;
  height: number;
  channels: 1 | 3;
  a: string;
  b: string;
  ssim?: number;
  ssim7?: number;
  ssim_rgb7?: number;
}

/** Every golden pair: the small clips of fixtures/golden/media and the compatible slots of fixtures/runs (H200 vs B200). */
export const PAIR_NAMES: string[] = readdirSync(GOLDEN_DIR)
  .filter((f) => f.startsWith('pair-') && f.endsWith('.json'))
  .map((f) => f.slice('pair-'.length, -'.json'.length))
  .sort();

export function goldenPair(name: string): GoldenPair & { baselineFile: string; candidateFile: string } {
  const pair = JSON.parse(readFileSync(path.join(GOLDEN_DIR, `pair-${name}.json`), 'utf8')) as GoldenPair;
  return { ...pair, baselineFile: path.join(GOLDEN_DIR, pair.baseline.path), candidateFile: path.join(GOLDEN_DIR, pair.candidate.path) };
}

export function goldenPlanes(): (GoldenPlaneCase & { aBytes: Uint8Array; bBytes: Uint8Array })[] {
  const data = JSON.parse(readFileSync(path.join(GOLDEN_DIR, 'planes.json'), 'utf8')) as { cases: GoldenPlaneCase[] };
  return data.cases.map((c) => ({ ...c, aBytes: new Uint8Array(Buffer.from(c.a, 'base64')), bBytes: new Uint8Array(Buffer.from(c.b, 'base64')) }));
}

export async function ffmpeg(): Promise<string> {
  return (await resolveFfmpeg()).ffmpeg.path;
}

async function ffmpegStdout(args: string[]): Promise<Buffer> {
  const { stdout } = await run(await ffmpeg(), ['-nostdin', '-hide_banner', '-v', 'error', ...args], { encoding: 'buffer', maxBuffer: MAX_BUFFER });
  return stdout;
}

async function videoSize(file: string): Promise<[number, number]> {
  const out = await run((await resolveFfmpeg()).ffprobe.path, ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=width,height', '-of', 'csv=p=0', file]);
  const [w, h] = out.stdout.trim().split(',').map(Number);
  return [w!, h!];
}

/** Every frame of a yuv420p file: planes as decoded, rgb24 as the library converts it (swscale with bitexact+accurate_rnd, docs/metrics.md). */
export async function decodeVideo(file: string): Promise<DecodedFrame[]> {
  const [width, height] = await videoSize(file);
  const chromaWidth = (width + 1) >> 1;
  const chromaHeight = (height + 1) >> 1;
  const yuv = await ffmpegStdout(['-i', file, '-map', '0:v:0', '-vsync', 'passthrough', '-f', 'rawvideo', '-pix_fmt', 'yuv420p', '-']);
  const rgb = await ffmpegStdout(['-i', file, '-filter_complex', '[0:v:0]scale=flags=bicubic+bitexact+accurate_rnd,format=rgb24[rgb]', '-map', '[rgb]', '-vsync', 'passthrough', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-']);
  const ySize = width * height;
  const cSize = chromaWidth * chromaHeight;
  const fSize = ySize + 2 * cSize;
  const frames: DecodedFrame[] = [];
  for (let i = 0; i * fSize < yuv.length; i++) {
    const f = new Uint8Array(yuv.buffer, yuv.byteOffset + i * fSize, fSize);
    frames.push({
      width,
      height,
      chromaWidth,
      chromaHeight,
      y: f.subarray(0, ySize),
      u: f.subarray(ySize, ySize + cSize),
      v: f.subarray(ySize + cSize),
      rgb: new Uint8Array(rgb.buffer, rgb.byteOffset + i * 3 * ySize, 3 * ySize),
    });
  }
  if (rgb.length !== frames.length * 3 * ySize) throw new Error(`rgb24 and yuv420p frame counts differ for ${file}`);
  return frames;
}

/** Planar float32 channels of the first audio stream. */
export async function decodeAudio(file: string, channels: number): Promise<Float32Array[]> {
  const pcm = await ffmpegStdout(['-i', file, '-map', '0:a:0', '-c:a', 'pcm_f32le', '-f', 'f32le', '-']);
  const all = new Float32Array(pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + pcm.length));
  const n = all.length / channels;
  return Array.from({ length: channels }, (_, c) => Float32Array.from({ length: n }, (_, i) => all[i * channels + c]!));
}

/** Runs `filter` (ssim or psnr) with stats_file on two inputs and returns its lines parsed as key -> value. */
async function filterStats(filter: 'ssim' | 'psnr', inputs: [string[], string[]]): Promise<Record<string, string>[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fidelity-stats-'));
  try {
    const stats = path.join(dir, 'stats.log');
    await ffmpegStdout([...inputs[0], ...inputs[1], '-lavfi', `[0:v][1:v]${filter}=stats_file=${stats}`, '-f', 'null', '-']);
    return readFileSync(stats, 'utf8')
      .trim()
      .split('\n')
      .map((line) => Object.fromEntries(line.trim().split(/\s+/).filter((t) => t.includes(':')).map((t) => t.split(':') as [string, string])));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** FFmpeg's ssim filter on two files (main = baseline, reference = candidate). */
export function ffmpegSsimFiles(a: string, b: string): Promise<Record<string, string>[]> {
  return filterStats('ssim', [['-i', a], ['-i', b]]);
}

export function ffmpegPsnrFiles(a: string, b: string): Promise<Record<string, string>[]> {
  return filterStats('psnr', [['-i', a], ['-i', b]]);
}

/** FFmpeg's ssim filter on one pair of raw gray8 planes. */
export async function ffmpegSsimGray(a: Uint8Array, b: Uint8Array, width: number, height: number): Promise<Record<string, string>> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fidelity-raw-'));
  try {
    const fa = path.join(dir, 'a.gray');
    const fb = path.join(dir, 'b.gray');
    writeFileSync(fa, a);
    writeFileSync(fb, b);
    const raw = ['-f', 'rawvideo', '-pix_fmt', 'gray', '-s', `${width}x${height}`, '-i'];
    const [line] = await filterStats('ssim', [[...raw, fa], [...raw, fb]]);
    return line!;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
