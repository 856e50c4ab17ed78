/**
 * The clip video accumulator's one-pass kernels (wasm/kernels.c clip_frame_yuv, clip_frame_rgb24)
 * against the definitions computed the long way in this file: each frame converted on its own
 * (yuvToRgb24, itself checked against FFmpeg in rgb24.test.ts), its samples scanned for the largest
 * and smallest, and sum |a - b| against the previous image. Widths that are not a multiple of 16
 * reach the kernels' scalar ends; 4:2:0 and 4:2:2 both; frames near black and white and repeated
 * frames reach every count. The whole clips (decoded by ffmpeg) are checked against PyAV in
 * clip-validity.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { BLACK_MAX, createClipVideoAccumulator, FROZEN_MAE, WHITE_MIN } from '../../src/metrics/clip-video.js';
import type { DecoderFlags } from '../../src/metrics/clip-video.js';
import type { DecodedFrame, FrameGeometry } from '../../src/metrics/frame.js';
import { yuvToRgb24 } from '../../src/metrics/rgb24.js';
import type { RgbConversion } from '../../src/metrics/rgb24.js';

/** A small deterministic generator (the same frames on every run). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s >>> 24;
  };
}

type Kind = 'noise' | 'black' | 'white' | 'nearly-black';

function planes(g: FrameGeometry, kind: Kind, seed: number): DecodedFrame {
  const next = random(seed);
  const fill = (n: number, sample: () => number): Uint8Array => Uint8Array.from({ length: n }, sample);
  const luma = (): number => (kind === 'black' ? 16 : kind === 'white' ? 235 : kind === 'nearly-black' ? 16 + (next() & 3) : next());
  const chroma = (): number => (kind === 'noise' ? next() : 128);
  return { ...g, y: fill(g.width * g.height, luma), u: fill(g.chromaWidth * g.chromaHeight, chroma), v: fill(g.chromaWidth * g.chromaHeight, chroma) };
}

/** The figures the long way: every image converted, scanned and differenced in plain JavaScript. */
function expected(frames: readonly DecodedFrame[]): Record<string, number | null> {
  const images = frames.map((f) => yuvToRgb24(f));
  let black = 0;
  let white = 0;
  let duplicates = 0;
  let frozen = 0;
  let maeSum = 0;
  images.forEach((img, i) => {
    const isBlack = img.every((x) => x <= BLACK_MAX);
    if (isBlack) black++;
    else if (img.every((x) => x >= WHITE_MIN)) white++;
    if (i === 0) return;
    let sad = 0;
    const prev = images[i - 1]!;
    for (let j = 0; j < img.length; j++) sad += Math.abs(img[j]! - prev[j]!);
    if (sad === 0) duplicates++;
    const mae = sad / (img.length * 255);
    maeSum += mae;
    if (mae <= FROZEN_MAE) frozen++;
  });
  const pairs = images.length - 1;
  return {
    black_fraction: black / images.length,
    white_fraction: white / images.length,
    duplicate_fraction: duplicates / pairs,
    frozen_fraction: frozen / pairs,
    mean_adjacent_frame_mae: maeSum / pairs,
  };
}

function analyse(g: FrameGeometry, frames: readonly DecodedFrame[], rgb: RgbConversion): Record<string, number | null> {
  const clip = createClipVideoAccumulator(g, rgb);
  for (const f of frames) clip.addFrame(f);
  const v = clip.finish({ timeBase: 1 / 25, frames: frames.map((_, i) => ({ pts: i, duration: 1 })) }, NO_FLAGS);
  return {
    black_fraction: v.black_fraction,
    white_fraction: v.white_fraction,
    duplicate_fraction: v.duplicate_fraction,
    frozen_fraction: v.frozen_fraction,
    mean_adjacent_frame_mae: v.mean_adjacent_frame_mae,
  };
}

/** No decoder log here: the figures under test come from the frames alone. */
const NO_FLAGS: DecoderFlags = { corruptFrames: null, geometryStable: null };

const KINDS: Kind[] = ['noise', 'black', 'black', 'nearly-black', 'white', 'noise', 'noise', 'white'];

describe('clip video figures in one kernel pass', () => {
  const cases: [string, FrameGeometry][] = [
    ['4:2:0, 37x10 (scalar ends)', { width: 37, height: 10, chromaWidth: 19, chromaHeight: 5 }],
    ['4:2:2, 48x6', { width: 48, height: 6, chromaWidth: 24, chromaHeight: 6 }],
    ['4:2:0, 7x4 (no full group)', { width: 7, height: 4, chromaWidth: 4, chromaHeight: 2 }],
    ['4:2:0, 533x4 (sums widened inside a row, scalar end)', { width: 533, height: 4, chromaWidth: 267, chromaHeight: 2 }],
  ];
  for (const [name, g] of cases) {
    it(`planes converted by the formula: ${name}`, () => {
      // The 6th frame repeats the 5th's planes exactly (a duplicate that is not blank).
      const frames = KINDS.map((kind, i) => planes(g, kind, i === 6 ? 5 : i + 1));
      const want = expected(frames);
      expect(want['duplicate_fraction']).toBeGreaterThan(0);
      expect(want['black_fraction']).toBeGreaterThan(0);
      expect(want['white_fraction']).toBeGreaterThan(0);
      expect(analyse(g, frames, { by: 'fidelity', matrix: 'bt601', range: 'limited' })).toEqual(want);
    });
  }

  it('rgb24 carried by the frames (ffmpeg converted it), odd byte count', () => {
    const g: FrameGeometry = { width: 37, height: 11, chromaWidth: 19, chromaHeight: 6 };
    const even: FrameGeometry = { ...g, height: 12 };
    // Images made by the formula on an even-height copy, cut to 11 rows: any bytes do.
    const frames = KINDS.map((kind, i) => {
      const source = planes(even, kind, i === 6 ? 5 : i + 1);
      const rgb = yuvToRgb24(source).subarray(0, g.width * g.height * 3);
      return { ...planes(g, 'black', 0), rgb };
    });
    const images = frames.map((f) => f.rgb);
    const clip = createClipVideoAccumulator(g, { by: 'ffmpeg', matrix: 'bt601', range: 'limited' });
    for (const f of frames) clip.addFrame(f);
    const v = clip.finish({ timeBase: 1, frames: [] }, NO_FLAGS);
    let sadTotal = 0;
    let duplicates = 0;
    for (let i = 1; i < images.length; i++) {
      let sad = 0;
      for (let j = 0; j < images[i]!.length; j++) sad += Math.abs(images[i]![j]! - images[i - 1]![j]!);
      sadTotal += sad / (images[i]!.length * 255);
      if (sad === 0) duplicates++;
    }
    expect(v.black_fraction).toBe(images.filter((img) => img.every((x) => x <= BLACK_MAX)).length / images.length);
    expect(v.white_fraction).toBe(images.filter((img) => img.every((x) => x >= WHITE_MIN)).length / images.length);
    expect(v.white_fraction).toBeGreaterThan(0);
    expect(v.duplicate_fraction).toBe(duplicates / (images.length - 1));
    expect(v.mean_adjacent_frame_mae).toBe(sadTotal / (images.length - 1));
  });
});
