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
import { yuvToRgb24 } from '../../src/metrics/rgb24.js';

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
  pyav: string;
  ffmpeg: string;
  ffmpeg_sha256: string;
  baseline: GoldenSide;
  candidate: GoldenSide;
  width: number;
  height: number;
  frames: number;
  ssim: GoldenSeries;
  ssim_rgb7: GoldenSeries;
  /** InferenceX's pooled figures over PyAV's rgb24 (numpy, exact integer sums). */
  rgb_pooled: { mae: number; psnr_db: number | null };
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

/**
 * Every frame of a yuv420p file: the planes as decoded, and rgb24 as the library converts it from
 * them (metrics/rgb24.ts, BT.601 limited). The goldens' rgb24 comes from elsewhere (PyAV), so tests
 * that compare with them check this conversion too.
 */
export async function decodeVideo(file: string): Promise<(DecodedFrame & { rgb: Uint8Array })[]> {
  return (await decodePlanes(file)).map((f) => ({ ...f, rgb: yuvToRgb24(f) }));
}

/** Every frame of a 4:2:0 (or, given, 4:2:2) file: the planes as decoded, no rgb24 (what the measuring code gets). */
export async function decodePlanes(file: string, pixFmt = 'yuv420p'): Promise<DecodedFrame[]> {
  const [width, height] = await videoSize(file);
  const chromaWidth = (width + 1) >> 1;
  const chromaHeight = pixFmt.endsWith('422p') ? height : (height + 1) >> 1;
  const yuv = await ffmpegStdout(['-i', file, '-map', '0:v:0', '-vsync', 'passthrough', '-f', 'rawvideo', '-pix_fmt', pixFmt, '-']);
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
    });
  }
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
async function filterStats(filter: 'ssim' | 'psnr', inputs: [string[], string[]], before: string[] = []): Promise<Record<string, string>[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fidelity-stats-'));
  try {
    const stats = path.join(dir, 'stats.log');
    await ffmpegStdout([...before, ...inputs[0], ...inputs[1], '-lavfi', `[0:v][1:v]${filter}=stats_file=${stats}`, '-f', 'null', '-']);
    return readFileSync(stats, 'utf8')
      .trim()
      .split('\n')
      .map((line) => Object.fromEntries(line.trim().split(/\s+/).filter((t) => t.includes(':')).map((t) => t.split(':') as [string, string])));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * How the resolved ffmpeg's ssim filter can serve as the oracle (docs/metrics.md, `ssim_ffmpeg`):
 *  - `floatSums`: libavfilter 7 and older (FFmpeg 4.x) sum the windows in float32 in the SSE4
 *    lane order that ssim_ffmpeg reproduces, so on x86-64 every printed digit matches; FFmpeg 5
 *    sums rows in double and may differ in the 6th decimal;
 *  - `brokenSimd`: FFmpeg 5.1's x86 SSE4 `ssim_end_line` subtracts the wrong over-read windows
 *    when a row has 4k+1 windows (a 24x24 plane: 5), so its SIMD output is not SSIM there; its own
 *    C code (`-cpuflags 0`) is then the oracle, and `cpuflags` says so.
 */
export interface SsimOracleMode {
  libavfilterMajor: number;
  floatSums: boolean;
  brokenSimd: { simd: number; c: number } | null;
  cpuflags: string[];
}

let modeOnce: Promise<SsimOracleMode> | undefined;

export function ssimOracleMode(): Promise<SsimOracleMode> {
  modeOnce ??= (async () => {
    const version = (await ffmpegStdout(['-version'])).toString();
    const libavfilterMajor = Number(/libavfilter\s+(\d+)\./.exec(version)?.[1] ?? Number.NaN);
    // An inverted checkerboard, 24x24: 6 blocks a side, 5 windows a row.
    const a = Uint8Array.from({ length: 24 * 24 }, (_, i) => (((i % 24) + Math.floor(i / 24)) % 2) * 255);
    const b = a.map((v) => 255 - v);
    const simd = Number((await ffmpegSsimGray(a, b, 24, 24, [])).Y);
    const c = Number((await ffmpegSsimGray(a, b, 24, 24, ['-cpuflags', '0'])).Y);
    const brokenSimd = Math.abs(simd - c) > 1e-4 ? { simd, c } : null;
    return { libavfilterMajor, floatSums: libavfilterMajor <= 7, brokenSimd, cpuflags: brokenSimd ? ['-cpuflags', '0'] : [] };
  })();
  return modeOnce;
}

/** FFmpeg's ssim filter on two files (main = baseline, reference = candidate), as the oracle ({@link ssimOracleMode}). */
export async function ffmpegSsimFiles(a: string, b: string): Promise<Record<string, string>[]> {
  return filterStats('ssim', [['-i', a], ['-i', b]], (await ssimOracleMode()).cpuflags);
}

export function ffmpegPsnrFiles(a: string, b: string): Promise<Record<string, string>[]> {
  return filterStats('psnr', [['-i', a], ['-i', b]]);
}

/** FFmpeg's ssim filter on one pair of raw gray8 planes; `before` defaults to the oracle's ({@link ssimOracleMode}). */
export async function ffmpegSsimGray(a: Uint8Array, b: Uint8Array, width: number, height: number, before?: string[]): Promise<Record<string, string>> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fidelity-raw-'));
  try {
    const fa = path.join(dir, 'a.gray');
    const fb = path.join(dir, 'b.gray');
    writeFileSync(fa, a);
    writeFileSync(fb, b);
    const raw = ['-f', 'rawvideo', '-pix_fmt', 'gray', '-s', `${width}x${height}`, '-i'];
    const [line] = await filterStats('ssim', [[...raw, fa], [...raw, fb]], before ?? (await ssimOracleMode()).cpuflags);
    return line!;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
