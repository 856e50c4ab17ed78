import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audioNormalizationGain } from '../../src/bundle/assets-keys.js';
import { makePairAssets } from '../../src/bundle/assets.js';
import { waveformRgb } from '../../src/bundle/waveform.js';
import { heatmapSize, rampColour, stillSize } from '../../src/bundle/assets-geometry.js';
import { blockSsim } from '../../src/bundle/heatmap.js';
import { differenceSamples } from '../../src/bundle/audio-diff.js';
import { extractFrame } from '../../src/media/frames.js';
import { resolveFfmpeg } from '../../src/media/ffmpeg.js';
import type { PairReport } from '../../src/schemas/report.js';
import { sampleReport } from '../pages/html-fixture.js';

const run = promisify(execFile);
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-assets-test-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const W = 64;
const H = 48;
const FRAMES = 10;
const RATE = 8000;
/** The candidate's top-left 32x24 is this much brighter than the baseline, on every frame. */
const BUMP = 40;
let ffmpeg = '';
const clip = (name: string): string => path.join(tmp, name);

/** Lossless H.264: frame n has luma 16 + 10n everywhere (plus the bump), so every Y value is known exactly. */
async function makeClip(file: string, options: { bump: number; gain: number; width?: number; frames?: number; audio?: boolean }): Promise<void> {
  const width = options.width ?? W;
  const lum = `16+10*N+if(lt(X\\,32)*lt(Y\\,24)\\,${options.bump}\\,0)`;
  const args = ['-y', '-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', `color=c=black:s=${width}x${H}:r=10:d=${(options.frames ?? FRAMES) / 10},geq=lum='${lum}':cb=128:cr=128`];
  if (options.audio !== false) {
    args.push('-f', 'lavfi', '-i', `aevalsrc=${options.gain}*0.5*sin(440*2*PI*t)|${options.gain}*0.3*sin(660*2*PI*t):s=${RATE}:d=1`);
  }
  args.push('-c:v', 'libx264', '-qp', '0', '-pix_fmt', 'yuv420p', '-bf', '2');
  if (options.audio !== false) args.push('-c:a', 'aac', '-b:a', '64k');
  args.push('-f', 'mp4', file);
  await run(ffmpeg, args);
}

beforeAll(async () => {
  ffmpeg = (await resolveFfmpeg()).ffmpeg.path;
  await makeClip(clip('base.mp4'), { bump: 0, gain: 1 });
  await makeClip(clip('cand.mp4'), { bump: BUMP, gain: 0.5 });
  await makeClip(clip('wide.mp4'), { bump: 0, gain: 1, width: 800, frames: 3, audio: false });
});

function pairFor(worst: number, media: { width: number; height: number; frames: number; audio: boolean }): PairReport {
  const report = sampleReport({
    width: media.width,
    height: media.height,
    frames: media.frames,
    audio: media.audio ? { sampleRate: RATE, channels: 2, samples: RATE } : null,
    baselineMedia: 'media/a.mp4',
    candidateMedia: 'media/b.mp4',
  });
  const pair = structuredClone(report.comparisons[0]!.pairs[1]!);
  pair.video!.ssim!.worst_frame = worst;
  return pair;
}

/** Y values, by an independent two-pass computation, for cross-checking blockSsim. */
function referenceBlockSsim(a: number[], b: number[]): number {
  const n = a.length;
  const ma = a.reduce((s, v) => s + v, 0) / n;
  const mb = b.reduce((s, v) => s + v, 0) / n;
  let va = 0, vb = 0, cov = 0;
  for (let i = 0; i < n; i++) {
    va += (a[i]! - ma) ** 2;
    vb += (b[i]! - mb) ** 2;
    cov += (a[i]! - ma) * (b[i]! - mb);
  }
  va /= n; vb /= n; cov /= n;
  const c1 = (0.01 * 255) ** 2;
  const c2 = (0.03 * 255) ** 2;
  return ((2 * ma * mb + c1) * (2 * cov + c2)) / ((ma * ma + mb * mb + c1) * (va + vb + c2));
}

/** Decoded rgb24 of a still (PNG or WebP). */
async function rawPng(file: string): Promise<{ data: Buffer; width: number; height: number }> {
  const { data, info } = await sharp(file).raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

describe('blockSsim', () => {
  it('matches a two-pass reference on noise and the closed form on flat blocks', () => {
    let seed = 7;
    const rnd = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % 256;
    const a = Uint8Array.from({ length: 16 * 8 }, rnd);
    const b = Uint8Array.from(a, (v, i) => (i % 3 === 0 ? 255 - v : v));
    const map = blockSsim(a, b, 16, 8);
    expect([map.cols, map.rows]).toEqual([2, 1]);
    for (let bx = 0; bx < 2; bx++) {
      const pick = (p: Uint8Array): number[] => Array.from({ length: 64 }, (_, k) => p[Math.floor(k / 8) * 16 + bx * 8 + (k % 8)]!);
      expect(map.values[bx]).toBeCloseTo(referenceBlockSsim(pick(a), pick(b)), 12);
    }
    const flat = blockSsim(new Uint8Array(64).fill(86), new Uint8Array(64).fill(126), 8, 8);
    const c1 = (0.01 * 255) ** 2;
    expect(flat.values[0]).toBeCloseTo((2 * 86 * 126 + c1) / (86 ** 2 + 126 ** 2 + c1), 12);
    expect(blockSsim(a, a, 16, 8).values.every((v) => v === 1)).toBe(true);
  });

  it('leaves out partial edge blocks', () => {
    expect(blockSsim(new Uint8Array(20 * 9), new Uint8Array(20 * 9), 20, 9)).toMatchObject({ cols: 2, rows: 1 });
  });
});

describe('extractFrame', () => {
  it('returns frame K in presentation order, with the Y plane untouched', async () => {
    const frame = await extractFrame(clip('base.mp4'), 7, { width: W, height: H });
    expect(frame.y.length).toBe(W * H);
    expect(new Set(frame.y)).toEqual(new Set([16 + 70]));
    // rgb24 as ffmpeg converts limited-range BT.601 grey: (Y - 16) * 255 / 219
    expect(Math.abs(frame.rgb[0]! - (70 * 255) / 219)).toBeLessThan(1.5);
    expect(frame.rgb.length).toBe(W * H * 3);
  });

  it('says so when the frame does not exist or the size is not what was measured', async () => {
    await expect(extractFrame(clip('base.mp4'), 50, { width: W, height: H })).rejects.toMatchObject({ code: 'FRAME_NOT_FOUND' });
    await expect(extractFrame(clip('base.mp4'), 1, { width: W + 2, height: H })).rejects.toMatchObject({ code: 'MEDIA_EXTRACT_FAILED' });
    await expect(extractFrame(clip('missing.mp4'), 1, { width: W, height: H })).rejects.toMatchObject({ code: 'MEDIA_EXTRACT_FAILED' });
  });
});

describe('waveformRgb', () => {
  it('draws each strip from min to max of its samples, the difference times the gain', () => {
    const n = 640 * 4;
    const silence = [new Float32Array(n)];
    const square = [Float32Array.from({ length: n }, (_, i) => (i % 4 < 2 ? 0.5 : -0.5))];
    const rgb = waveformRgb(silence, square, 1.5, 640, 60);
    expect(rgb.length).toBe(640 * 180 * 3);
    const px = (x: number, y: number): number[] => [...rgb.subarray((y * 640 + x) * 3, (y * 640 + x) * 3 + 3)];
    const painted = (y0: number, y1: number, x: number): number[] => {
      const ys: number[] = [];
      for (let y = y0; y < y1; y++) if (px(x, y).join() !== '255,255,255' && px(x, y).join() !== '208,215,222') ys.push(y);
      return ys;
    };
    // Baseline silence: one pixel at the middle line, in the baseline's colour.
    expect(painted(0, 60, 100)).toEqual([30]);
    // Candidate ±0.5 within every column: from half the strip's half-height above the middle to as far below (half = 29).
    const cand = painted(60, 120, 100);
    expect([cand[0], cand[cand.length - 1]]).toEqual([Math.round(90 - 0.5 * 29), Math.round(90 + 0.5 * 29)]);
    // Difference ±0.75 (0.5 × 1.5).
    const diff = painted(120, 180, 100);
    expect([diff[0], diff[diff.length - 1]]).toEqual([Math.round(150 - 0.75 * 29), Math.round(150 + 0.75 * 29)]);
    expect(diff.length).toBe(Math.round(150 + 0.75 * 29) - Math.round(150 - 0.75 * 29) + 1);
    expect(px(100, 150)).toEqual([207, 34, 46]);
  });
});

describe('makePairAssets', () => {
  /** Lossy WebP (quality 80, 4:2:0 chroma): flat areas far from an edge decode within a few levels. */
  const WEBP_TOLERANCE = 4;

  /** The FLAC's samples (decoded by ffmpeg) against an independent decode of both sides: (candidate - baseline) × gain, channel by channel. */
  async function expectDifferenceFlac(file: string, gain: number): Promise<void> {
    const decode = async (f: string): Promise<Float32Array> => {
      const { stdout } = await run(ffmpeg, ['-hide_banner', '-loglevel', 'error', '-i', f, '-map', '0:a:0', '-f', 'f32le', '-acodec', 'pcm_f32le', 'pipe:1'], { encoding: 'buffer', maxBuffer: 1 << 26 });
      return new Float32Array(stdout.buffer.slice(stdout.byteOffset, stdout.byteOffset + stdout.length - (stdout.length % 4)));
    };
    const [bi, ci] = await Promise.all([decode(clip('base.mp4')), decode(clip('cand.mp4'))]);
    const flac = readFileSync(file);
    expect(flac.toString('latin1', 0, 4)).toBe('fLaC');
    // STREAMINFO (RFC 9639 8.2): 20-bit rate, 3-bit channels - 1, 5-bit bits per sample - 1.
    const info = flac.subarray(8);
    expect([((info[12]! >> 1) & 7) + 1, (info[10]! << 12) | (info[11]! << 4) | (info[12]! >> 4), (((info[12]! & 1) << 4) | (info[13]! >> 4)) + 1]).toEqual([2, RATE, 16]);
    const { stdout: pcm } = await run(ffmpeg, ['-hide_banner', '-loglevel', 'error', '-err_detect', 'crccheck', '-i', file, '-f', 's16le', 'pipe:1'], { encoding: 'buffer', maxBuffer: 1 << 26 });
    const length = pcm.length / 4;
    const channels = [0, 1].map((ch) => Int16Array.from({ length }, (_, i) => pcm.readInt16LE((i * 2 + ch) * 2)));
    expect(length).toBeGreaterThan(RATE * 0.9);
    expect(length).toBeLessThanOrEqual(RATE);
    let energy = 0;
    for (let ch = 0; ch < 2; ch++) {
      for (let i = 0; i < length; i += 37) {
        const expected = Math.round(Math.max(-1, Math.min(1, (ci[i * 2 + ch]! - bi[i * 2 + ch]!) * gain)) * 32767);
        expect(Math.abs(channels[ch]![i]! - expected)).toBeLessThanOrEqual(Math.ceil(gain) + 1);
        energy += Math.abs(expected);
      }
    }
    expect(energy).toBeGreaterThan(0);
  }

  it('writes the worst frame of both sides and their difference as WebP, the heat map, and one normalised difference FLAC', async () => {
    const outDir = path.join(tmp, 'bundle');
    const prefix = 'pairs/0/measurement-r000-c001';
    const pair = pairFor(7, { width: W, height: H, frames: FRAMES, audio: true });
    const files = await makePairAssets({ pair, baselinePath: clip('base.mp4'), candidatePath: clip('cand.mp4'), outDir, prefix });
    expect(files).toEqual({
      baseline_worst_webp: `${prefix}/baseline-worst.webp`,
      candidate_worst_webp: `${prefix}/candidate-worst.webp`,
      ssim_heatmap_png: `${prefix}/ssim-heatmap.png`,
      abs_diff_webp: `${prefix}/abs-diff.webp`,
      audio_diff_normalized_flac: `${prefix}/audio-diff-normalized.flac`,
      audio_waveform_png: `${prefix}/audio-waveform.png`,
    });
    // Only the files named: the true-level FLAC is not written beside the normalised one.
    expect(readdirSync(path.join(outDir, ...prefix.split('/'))).sort()).toEqual(Object.values(files).map((f) => path.basename(f)).sort());
    // The report's peak difference is 0.0123 on every channel: brought to -1 dBFS.
    const gain = audioNormalizationGain(pair.audio)!;
    expect(20 * Math.log10(gain * 0.0123)).toBeCloseTo(-1, 9);
    const at = (rel: string): string => path.join(outDir, ...rel.split('/'));

    for (const key of ['baseline_worst_webp', 'candidate_worst_webp', 'abs_diff_webp']) {
      const meta = await sharp(at(files[key]!)).metadata();
      expect([key, meta.format, meta.width, meta.height]).toEqual([key, 'webp', W, H]);
    }
    const base = await rawPng(at(files.baseline_worst_webp!));
    const cand = await rawPng(at(files.candidate_worst_webp!));
    const grey = (img: { data: Buffer; width: number }, x: number, y: number, k = 0): number => img.data[(y * img.width + x) * 3 + k]!;
    expect(Math.abs(grey(base, 40, 40) - (70 * 255) / 219)).toBeLessThan(1.5 + WEBP_TOLERANCE);
    expect(Math.abs(grey(cand, 4, 4) - ((70 + BUMP) * 255) / 219)).toBeLessThan(1.5 + WEBP_TOLERANCE);
    expect(Math.abs(grey(cand, 40, 40) - grey(base, 40, 40))).toBeLessThanOrEqual(WEBP_TOLERANCE);
    // The absolute difference ×8 per channel, against the decoded frames themselves: white in the bump, black elsewhere.
    const [fb, fc] = await Promise.all([extractFrame(clip('base.mp4'), 7, { width: W, height: H }), extractFrame(clip('cand.mp4'), 7, { width: W, height: H })]);
    const diff = await rawPng(at(files.abs_diff_webp!));
    for (const [x, y] of [[4, 4], [40, 40], [W - 4, H - 4]] as const) {
      for (let k = 0; k < 3; k++) {
        const i = (y * W + x) * 3 + k;
        const expected = Math.min(255, Math.abs(fc.rgb[i]! - fb.rgb[i]!) * 8);
        expect(Math.abs(grey(diff, x, y, k) - expected), `${x},${y}`).toBeLessThanOrEqual(WEBP_TOLERANCE);
      }
    }
    expect(grey(diff, 4, 4)).toBeGreaterThan(250);
    expect(grey(diff, 40, 40)).toBeLessThan(WEBP_TOLERANCE);

    const heat = await rawPng(at(files.ssim_heatmap_png!));
    expect({ width: heat.width, height: heat.height }).toEqual(heatmapSize({ width: W, height: H }));
    const c1 = (0.01 * 255) ** 2;
    const a = 86;
    const b = 86 + BUMP;
    const bumped = rampColour((2 * a * b + c1) / (a * a + b * b + c1));
    const px = (x: number, y: number): number[] => [...heat.data.subarray((y * heat.width + x) * 3, (y * heat.width + x) * 3 + 3)];
    expect(px(2, 2)).toEqual(bumped);
    expect(px(heat.width - 2, heat.height - 2)).toEqual(rampColour(1));

    await expectDifferenceFlac(at(files.audio_diff_normalized_flac!), gain);
  });

  it('writes the true-level difference FLAC alone when the difference is already loud', async () => {
    const outDir = path.join(tmp, 'loud');
    const pair = pairFor(7, { width: W, height: H, frames: FRAMES, audio: true });
    for (const c of pair.audio!.channels) c.max_abs_diff = 0.6;
    expect(audioNormalizationGain(pair.audio)).toBeNull();
    const files = await makePairAssets({ pair, baselinePath: clip('base.mp4'), candidatePath: clip('cand.mp4'), outDir, prefix: 'p' });
    expect(Object.keys(files).filter((k) => k.startsWith('audio_diff'))).toEqual(['audio_diff_flac']);
    expect(existsSync(path.join(outDir, 'p', 'audio-diff-normalized.flac'))).toBe(false);
    await expectDifferenceFlac(path.join(outDir, ...files.audio_diff_flac!.split('/')), 1);
  });

  it('writes one still, named by both sides, and no difference pictures when every video frame is bit-identical', async () => {
    const outDir = path.join(tmp, 'identical');
    const pair = pairFor(3, { width: W, height: H, frames: FRAMES, audio: true });
    pair.video!.identical = true;
    pair.audio!.identical = true;
    for (const c of pair.audio!.channels) c.max_abs_diff = 0;
    const files = await makePairAssets({ pair, baselinePath: clip('base.mp4'), candidatePath: clip('base.mp4'), outDir, prefix: 'p/same' });
    expect(files).toEqual({ baseline_worst_webp: 'p/same/worst.webp', candidate_worst_webp: 'p/same/worst.webp' });
    expect(readdirSync(path.join(outDir, 'p', 'same'))).toEqual(['worst.webp']);
    const still = await rawPng(path.join(outDir, 'p', 'same', 'worst.webp'));
    expect([still.width, still.height]).toEqual([W, H]);
    expect(Math.abs(still.data[(20 * W + 20) * 3]! - (30 * 255) / 219)).toBeLessThan(1.5 + WEBP_TOLERANCE);
  });

  it('writes no difference audio when the audio of both sides is identical', async () => {
    const pair = pairFor(3, { width: W, height: H, frames: FRAMES, audio: true });
    pair.audio!.identical = true;
    for (const c of pair.audio!.channels) c.max_abs_diff = 0;
    const files = await makePairAssets({ pair, baselinePath: clip('base.mp4'), candidatePath: clip('cand.mp4'), outDir: path.join(tmp, 'same-audio'), prefix: 'p' });
    expect(Object.keys(files).sort()).toEqual(['abs_diff_webp', 'baseline_worst_webp', 'candidate_worst_webp', 'ssim_heatmap_png']);
    expect(audioNormalizationGain(pair.audio)).toBeNull();
  });

  it('makes byte-identical files from the same inputs', async () => {
    const make = (outDir: string): Promise<Record<string, string>> =>
      makePairAssets({ pair: pairFor(3, { width: W, height: H, frames: FRAMES, audio: true }), baselinePath: clip('base.mp4'), candidatePath: clip('cand.mp4'), outDir, prefix: 'p' });
    const one = await make(path.join(tmp, 'again-1'));
    const two = await make(path.join(tmp, 'again-2'));
    expect(two).toEqual(one);
    for (const rel of Object.values(one)) {
      expect(readFileSync(path.join(tmp, 'again-2', rel)).equals(readFileSync(path.join(tmp, 'again-1', rel))), rel).toBe(true);
    }
  });

  it('scales wide stills down to 640 px and skips the difference audio when there is no audio', async () => {
    const outDir = path.join(tmp, 'wide');
    const files = await makePairAssets({ pair: pairFor(2, { width: 800, height: H, frames: 3, audio: false }), baselinePath: clip('wide.mp4'), candidatePath: clip('wide.mp4'), outDir, prefix: 'p/wide' });
    expect(Object.keys(files).sort()).toEqual(['abs_diff_webp', 'baseline_worst_webp', 'candidate_worst_webp', 'ssim_heatmap_png']);
    const meta = await sharp(path.join(outDir, 'p', 'wide', 'baseline-worst.webp')).metadata();
    expect(meta.format).toBe('webp');
    expect({ width: meta.width, height: meta.height }).toEqual(stillSize({ width: 800, height: H }));
    expect(meta.width).toBe(640);
    const heat = await rawPng(path.join(outDir, 'p', 'wide', 'ssim-heatmap.png'));
    expect(heat.data.every((v, i) => v === rampColour(1)[i % 3])).toBe(true);
  });

  it('makes nothing for an invalid pair and refuses a prefix that leaves the bundle', async () => {
    const report = sampleReport({ width: W, height: H, frames: FRAMES, audio: null, baselineMedia: 'media/a.mp4', candidateMedia: 'media/b.mp4' });
    const invalid = report.comparisons[0]!.pairs[2]!;
    const outDir = path.join(tmp, 'invalid');
    expect(await makePairAssets({ pair: invalid, baselinePath: clip('base.mp4'), candidatePath: clip('cand.mp4'), outDir, prefix: 'pairs/x' })).toEqual({});
    expect(existsSync(outDir)).toBe(false);
    for (const prefix of ['../escape', '/abs', 'a/../b', 'a\\b', '']) {
      await expect(makePairAssets({ pair: invalid, baselinePath: 'x', candidatePath: 'y', outDir, prefix })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    }
  });
});

describe('differenceSamples', () => {
  it('subtracts baseline from candidate, clips at full scale and keeps the shorter length', () => {
    const out = differenceSamples([Float32Array.of(0.5, -0.9, 0), Float32Array.of(0, 0, 0)], [Float32Array.of(0.25, 0.9), Float32Array.of(1, -1)]);
    expect(out.map((c) => [...c])).toEqual([[Math.round(-0.25 * 32767), 32767], [32767, -32767]]);
  });
});
