/**
 * Small readers the synth tests share: walk a folder, hash a file, and ask the
 * resolved ffmpeg / ffprobe what is really inside an MP4.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { resolveFfmpeg } from '../../src/media/ffmpeg.js';

const run = promisify(execFile);

export async function walk(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(path.join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...(await walk(dir, rel)));
    else out.push(rel);
  }
  return out.sort();
}

export async function sha256(file: string): Promise<string> {
  return createHash('sha256').update(await readFile(file)).digest('hex');
}

export async function readJson<T = unknown>(file: string): Promise<T> {
  return JSON.parse(await readFile(file, 'utf8')) as T;
}

export interface StreamInfo {
  codec_type: string;
  codec_name: string;
  width?: number;
  height?: number;
  pix_fmt?: string;
  sample_rate?: string;
  channels?: number;
  nb_read_frames?: string;
}

export async function probeStreams(file: string): Promise<StreamInfo[]> {
  const { ffprobe } = await resolveFfmpeg();
  const { stdout } = await run(ffprobe.path, ['-v', 'error', '-count_frames', '-show_streams', '-of', 'json', file]);
  return (JSON.parse(stdout) as { streams: StreamInfo[] }).streams;
}

/** Interleaved float PCM of the first audio stream, split per channel. */
export async function decodeAudio(file: string, channels = 2): Promise<Float32Array[]> {
  const { ffmpeg } = await resolveFfmpeg();
  const { stdout } = await run(ffmpeg.path, ['-v', 'error', '-i', file, '-map', '0:a:0', '-f', 'f32le', '-acodec', 'pcm_f32le', '-'], {
    encoding: 'buffer',
    maxBuffer: 1 << 26,
  });
  const all = new Float32Array(stdout.buffer, stdout.byteOffset, stdout.byteLength / 4);
  const n = all.length / channels;
  return Array.from({ length: channels }, (_, c) => Float32Array.from({ length: n }, (_, i) => all[i * channels + c] as number));
}

/**
 * docs/metrics.md `video_psnr_db`: pooled over every rgb24 sample of every frame; null when identical. rgb24 from ffmpeg's
 * own default converter with PyAV's matrix and range (BT.601, limited), independent of the library's conversion.
 */
export async function pooledRgbPsnr(a: string, b: string): Promise<number | null> {
  const { ffmpeg } = await resolveFfmpeg();
  const rgb = async (f: string) =>
    (await run(ffmpeg.path, ['-v', 'error', '-i', f, '-vf', 'scale=in_color_matrix=bt601:in_range=tv', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], { encoding: 'buffer', maxBuffer: 1 << 26 })).stdout;
  const [x, y] = await Promise.all([rgb(a), rgb(b)]);
  if (x.length !== y.length) throw new Error('frame data of different length');
  let sum = 0;
  for (let i = 0; i < x.length; i++) {
    const d = (x[i] as number) - (y[i] as number);
    sum += d * d;
  }
  return sum === 0 ? null : -10 * Math.log10(sum / (x.length * 255 * 255));
}

/** Per-frame luma SSIM from FFmpeg's own `ssim` filter: an independent stand-in for the library's metric. */
export async function ffmpegSsimY(a: string, b: string): Promise<number[]> {
  const { ffmpeg } = await resolveFfmpeg();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'fidelity-synth-ssim-'));
  try {
    // The filter's option parser treats ':' and '\\' specially; a plain temp path has neither on Linux and macOS.
    const stats = path.join(dir, 'ssim.log');
    await run(ffmpeg.path, ['-hide_banner', '-nostdin', '-v', 'error', '-i', a, '-i', b, '-lavfi', `[0:v][1:v]ssim=stats_file=${stats}`, '-f', 'null', '-']);
    return (await readFile(stats, 'utf8'))
      .split('\n')
      .filter((l) => l.startsWith('n:'))
      .map((l) => Number(/\bY:([0-9.]+)/.exec(l)?.[1]));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export function rms(x: Float32Array): number {
  let s = 0;
  for (const v of x) s += v * v;
  return Math.sqrt(s / Math.max(1, x.length));
}

export function peak(x: Float32Array): number {
  let m = 0;
  for (const v of x) m = Math.max(m, Math.abs(v));
  return m;
}
