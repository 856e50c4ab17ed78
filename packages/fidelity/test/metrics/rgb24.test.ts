/**
 * Our rgb24 conversion (metrics/rgb24.ts, wasm/kernels.c `yuv_rgb24`) against a live oracle: the
 * resolved ffmpeg's default converter (`-pix_fmt rgb24`, swscale's unscaled yuv2rgb), which is what
 * PyAV's `to_ndarray("rgb24")`, and so InferenceX's evaluator, gets. Every (Y, U, V) triple, for
 * both matrices and both ranges, then odd widths, 4:2:2, and real clips decoded both ways.
 *
 * FFmpeg's reference here is its x86 SIMD code (docs/metrics.md, "RGB conversion"); its C code, on
 * other CPUs, differs by up to 3 levels. So the comparisons with ffmpeg run on x86-64 only, and say
 * so elsewhere; the golden test (golden.test.ts) checks our bytes against PyAV's on every CPU.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { formulaLayout, rgbConversionFor, yuvToRgb24 } from '../../src/metrics/rgb24.js';
import type { DecodedFrame } from '../../src/metrics/frame.js';
import { ClipFactory } from '../media/clips.js';
import { decodePlanes, ffmpeg, GOLDEN_DIR } from './oracle.js';

const run = promisify(execFile);
const X64 = process.arch === 'x64';
if (!X64) console.warn(`SKIPPED: the rgb24 comparisons with ffmpeg run on x86-64 only (this is ${process.arch}): FFmpeg's reference converter is its x86 SIMD code, and its C code here differs by up to 3 levels.`);
const onX64 = X64 ? it : it.skip;

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-rgb24-'));
const clips = new ClipFactory();
afterAll(() => {
  rmSync(tmp, { recursive: true, force: true });
  clips.remove();
});

type Matrix = 'bt601' | 'bt709';
type Range = 'limited' | 'full';

/** ffmpeg's own default conversion of raw planes, the input tagged with the matrix and range (the command line follows the tags). */
async function ffmpegRgb(planes: Uint8Array, pixFmt: string, w: number, h: number, matrix: Matrix, range: Range): Promise<Buffer> {
  const file = path.join(tmp, `in-${pixFmt}-${w}x${h}.yuv`);
  writeFileSync(file, planes);
  const tags = ['-colorspace', matrix === 'bt709' ? 'bt709' : 'smpte170m', '-color_range', range === 'full' ? 'pc' : 'tv'];
  const args = ['-nostdin', '-v', 'error', '-f', 'rawvideo', '-pix_fmt', pixFmt, '-s', `${w}x${h}`, ...tags, '-i', file, '-pix_fmt', 'rgb24', '-f', 'rawvideo', '-'];
  const { stdout } = await run(await ffmpeg(), args, { encoding: 'buffer', maxBuffer: 3 * w * h + (1 << 20) });
  return stdout;
}

function frameOf(planes: Uint8Array, w: number, h: number, cw: number, ch: number): Omit<DecodedFrame, 'rgb'> {
  return {
    width: w,
    height: h,
    chromaWidth: cw,
    chromaHeight: ch,
    y: planes.subarray(0, w * h),
    u: planes.subarray(w * h, w * h + cw * ch),
    v: planes.subarray(w * h + cw * ch, w * h + 2 * cw * ch),
  };
}

function describeDifference(ours: Uint8Array, theirs: Uint8Array): string {
  if (ours.length !== theirs.length) return `${ours.length} bytes against ${theirs.length}`;
  let count = 0;
  let first = -1;
  for (let i = 0; i < ours.length; i++) {
    if (ours[i] !== theirs[i]) {
      count++;
      if (first < 0) first = i;
    }
  }
  return count === 0 ? 'equal' : `${count} of ${ours.length} bytes differ, the first at ${first} (${ours[first]} against ${theirs[first]})`;
}

/**
 * Every (Y, U, V) triple in one 4096x4096 frame. 4:2:0: chroma sample i (2048x2048 of them) has
 * U = i & 255 shifted by 6, V = i >> 14, and its 2x2 block holds the Y values 4(i & 63) + 0..3,
 * so the 64 blocks of one (U, V) cover Y = 0..255. 4:2:2: chroma sample i (2048x4096) covers two
 * pixels side by side, Y = 2(i & 127) + 0..1, U = (i >> 7) & 255, V = i >> 15.
 */
function everyTriple(layout: '420' | '422'): { planes: Uint8Array; cw: number; ch: number } {
  const w = 4096;
  const h = 4096;
  const cw = 2048;
  const ch = layout === '420' ? 2048 : 4096;
  const planes = new Uint8Array(w * h + 2 * cw * ch);
  const u = planes.subarray(w * h, w * h + cw * ch);
  const v = planes.subarray(w * h + cw * ch);
  for (let cy = 0; cy < ch; cy++) {
    for (let cx = 0; cx < cw; cx++) {
      const i = cy * cw + cx;
      if (layout === '420') {
        const base = 4 * (i & 63);
        planes[2 * cy * w + 2 * cx] = base;
        planes[2 * cy * w + 2 * cx + 1] = base + 1;
        planes[(2 * cy + 1) * w + 2 * cx] = base + 2;
        planes[(2 * cy + 1) * w + 2 * cx + 1] = base + 3;
        u[i] = (i >> 6) & 255;
        v[i] = i >> 14;
      } else {
        planes[cy * w + 2 * cx] = 2 * (i & 127);
        planes[cy * w + 2 * cx + 1] = 2 * (i & 127) + 1;
        u[i] = (i >> 7) & 255;
        v[i] = i >> 15;
      }
    }
  }
  return { planes, cw, ch };
}

describe('rgb24: every (Y, U, V) triple against ffmpeg -pix_fmt rgb24', () => {
  const cases: { layout: '420' | '422'; pixFmt: string; matrix: Matrix; range: Range }[] = [
    { layout: '420', pixFmt: 'yuv420p', matrix: 'bt601', range: 'limited' },
    { layout: '420', pixFmt: 'yuv420p', matrix: 'bt709', range: 'limited' },
    { layout: '420', pixFmt: 'yuv420p', matrix: 'bt601', range: 'full' },
    { layout: '420', pixFmt: 'yuv420p', matrix: 'bt709', range: 'full' },
    { layout: '422', pixFmt: 'yuv422p', matrix: 'bt601', range: 'limited' },
    { layout: '422', pixFmt: 'yuv422p', matrix: 'bt601', range: 'full' },
  ];
  const triples = { '420': undefined as ReturnType<typeof everyTriple> | undefined, '422': undefined as ReturnType<typeof everyTriple> | undefined };
  for (const c of cases) {
    onX64(`${c.pixFmt}, ${c.matrix} ${c.range}: all 2^24 triples, 50,331,648 bytes, equal`, async () => {
      const t = (triples[c.layout] ??= everyTriple(c.layout));
      const [theirs, ours] = [await ffmpegRgb(t.planes, c.pixFmt, 4096, 4096, c.matrix, c.range), yuvToRgb24(frameOf(t.planes, 4096, 4096, t.cw, t.ch), c)];
      expect(ours.length).toBe(3 << 24);
      expect(describeDifference(ours, theirs)).toBe('equal');
    }, 180_000);
  }
});

describe('rgb24: shapes', () => {
  // Random pictures at widths around the kernel's 16-pixel groups and its scalar tail.
  let seed = 7;
  const random = (): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 24);
  for (const [pixFmt, vshift] of [['yuv420p', 1], ['yuv422p', 0]] as const) {
    onX64(`${pixFmt}: odd and tail widths give ffmpeg's bytes, both ranges`, async () => {
      for (const [w, h] of [[1, 2], [2, 2], [3, 4], [15, 2], [16, 4], [17, 2], [33, 6], [250, 8], [251, 6], [258, 4], [1342, 4]] as const) {
        const cw = (w + 1) >> 1;
        const ch = h >> vshift;
        const planes = Uint8Array.from({ length: w * h + 2 * cw * ch }, random);
        for (const range of ['limited', 'full'] as const) {
          const theirs = await ffmpegRgb(planes, pixFmt, w, h, 'bt601', range);
          expect(describeDifference(yuvToRgb24(frameOf(planes, w, h, cw, ch), { range }), theirs), `${pixFmt} ${w}x${h} ${range}`).toBe('equal');
        }
      }
    });
  }

  it('covers 4:2:0 at an even height and 4:2:2, and refuses the rest', () => {
    expect(formulaLayout({ width: 5, height: 4, chromaWidth: 3, chromaHeight: 2 })).toBe(1);
    expect(formulaLayout({ width: 5, height: 3, chromaWidth: 3, chromaHeight: 3 })).toBe(0);
    expect(formulaLayout({ width: 5, height: 3, chromaWidth: 3, chromaHeight: 2 })).toBeNull();
    expect(formulaLayout({ width: 4, height: 4, chromaWidth: 4, chromaHeight: 4 })).toBeNull();
    const odd = { width: 4, height: 3, chromaWidth: 2, chromaHeight: 2, y: new Uint8Array(12), u: new Uint8Array(4), v: new Uint8Array(4) };
    expect(() => yuvToRgb24(odd)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => yuvToRgb24({ ...odd, height: 4, y: new Uint8Array(15) })).toThrow(/frame\.y\.length/);
  });

  it('chooses the conversion as PyAV 10 and FFmpeg do: BT.601, full range for yuvj*, the formula where swscale uses it', () => {
    expect(rgbConversionFor('yuv420p', 768)).toEqual({ by: 'fidelity', matrix: 'bt601', range: 'limited' });
    expect(rgbConversionFor('yuvj420p', 768)).toEqual({ by: 'fidelity', matrix: 'bt601', range: 'full' });
    expect(rgbConversionFor('yuv422p', 767)).toEqual({ by: 'fidelity', matrix: 'bt601', range: 'limited' });
    expect(rgbConversionFor('yuvj422p', 10)).toEqual({ by: 'fidelity', matrix: 'bt601', range: 'full' });
    expect(rgbConversionFor('yuv420p', 767)).toEqual({ by: 'ffmpeg', matrix: 'bt601', range: 'limited' });
    expect(rgbConversionFor('yuv444p', 768)).toEqual({ by: 'ffmpeg', matrix: 'bt601', range: 'limited' });
    expect(rgbConversionFor('yuvj444p', 768)).toEqual({ by: 'ffmpeg', matrix: 'bt601', range: 'full' });
  });
});

describe('rgb24: real clips decoded both ways', () => {
  /** ffmpeg's default converter on the file, the matrix and range passed as PyAV takes them (BT.601; full for yuvj*). */
  async function ffmpegFileRgb(file: string, range: Range): Promise<Buffer> {
    const args = ['-nostdin', '-v', 'error', '-i', file, '-map', '0:v:0', '-vsync', 'passthrough', '-vf', `scale=in_color_matrix=bt601:in_range=${range === 'full' ? 'pc' : 'tv'}`, '-pix_fmt', 'rgb24', '-f', 'rawvideo', '-'];
    return (await run(await ffmpeg(), args, { encoding: 'buffer', maxBuffer: 1 << 28 })).stdout;
  }

  async function both(file: string, range: Range = 'limited', pixFmt = 'yuv420p'): Promise<string> {
    const frames = await decodePlanes(file, pixFmt);
    const ours = Buffer.concat(frames.map((f) => yuvToRgb24(f, { range })));
    return describeDifference(ours, await ffmpegFileRgb(file, range));
  }

  onX64('the committed runs and golden clips: every frame equal', async () => {
    const files = [
      ...['h200', 'b200', 'h100'].flatMap((site) => ['measurement-r000-c000', 'measurement-r000-c003', 'measurement-r000-c009', 'warmup-000'].map((s) => path.join(GOLDEN_DIR, '..', 'runs', site, 'media', `${s}.mp4`))),
      ...['noise-a', 'noise-b', 'tiny-1level-b', 'gain-offset-b'].map((n) => path.join(GOLDEN_DIR, 'media', `${n}.mp4`)),
    ];
    for (const file of files) expect(await both(file), file).toBe('equal');
  }, 180_000);

  onX64('a full-size 1344x768 clip, a yuvj420p (full range) clip and a yuv422p clip: every frame equal', async () => {
    const full = await clips.make({ width: 1344, height: 768, frames: 6, audio: null, crf: 30 });
    expect(await both(full)).toBe('equal');
    const jpeg = await clips.make({ width: 174, height: 98, frames: 6, audio: null, pixFmt: 'yuvj420p' });
    expect(await both(jpeg, 'full', 'yuvj420p')).toBe('equal');
    const y422 = await clips.make({ width: 174, height: 98, frames: 6, audio: null, pixFmt: 'yuv422p' });
    expect(await both(y422, 'limited', 'yuv422p')).toBe('equal');
  }, 180_000);
});
