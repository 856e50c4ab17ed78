#!/usr/bin/env node
// Per-kernel speed of the video metrics at 1344x768 (ms per frame, one core):
//   node bench/kernels.mjs [width] [height] [repeats]
// Needs the built library (npx tsc -b packages/fidelity). Synthetic frames:
// a smooth gradient with a texture, and a noisy copy of it.
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = (p) => import(path.join(root, 'packages/fidelity/dist/metrics', p));
const { kernels, Layout } = await dist('wasm.js');
const { GAUSSIAN_TAPS_BYTES, gaussianScratchBytes, writeGaussianTaps } = await dist('ssim-gaussian.js');
const { boxScratchBytes } = await dist('ssim-rgb7.js');
const { FfmpegSsimState } = await dist('ssim-ffmpeg.js');
const { createVideoAccumulator } = await dist('video.js');

const width = Number(process.argv[2] ?? 1344);
const height = Number(process.argv[3] ?? 768);
const repeats = Number(process.argv[4] ?? 20);
const cw = (width + 1) >> 1;
const ch = (height + 1) >> 1;

let seed = 12345;
const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
function plane(w, h, channels = 1) {
  const a = new Uint8Array(w * h * channels);
  const b = new Uint8Array(a.length);
  for (let i = 0; i < a.length; i++) {
    const x = (i / channels) % w;
    const y = Math.floor(i / channels / w);
    const v = 128 + 60 * Math.sin(x / 17) * Math.cos(y / 23) + 30 * rand();
    a[i] = Math.max(0, Math.min(255, Math.round(v)));
    b[i] = Math.max(0, Math.min(255, Math.round(v + 12 * (rand() - 0.5))));
  }
  return [a, b];
}
const [ya, yb] = plane(width, height);
const [ua, ub] = plane(cw, ch);
const [va, vb] = plane(cw, ch);
const [ra, rb] = plane(width, height, 3);
const frame = (y, u, v, rgb) => ({ width, height, chromaWidth: cw, chromaHeight: ch, y, u, v, rgb });
// Frames as the decoders deliver them: planes only (rgb24 is converted from them where a metric reads it).
const fa = frame(ya, ua, va, undefined);
const fb = frame(yb, ub, vb, undefined);

const k = kernels();
const layout = new Layout(k.base);
const at = {};
for (const [name, arr] of Object.entries({ ya, yb, ua, ub, va, vb, ra, rb })) {
  at[name] = layout.take(arr.length);
}
const taps = layout.take(GAUSSIAN_TAPS_BYTES);
const out = layout.take(16);
const temp = layout.take(4 * k.fn.ssim_ffmpeg_temp_ints(width));
const scratch = layout.take(Math.max(gaussianScratchBytes(width), boxScratchBytes(3 * width)));
k.reserve(layout.size - k.base);
for (const [name, arr] of Object.entries({ ya, yb, ua, ub, va, vb, ra, rb })) k.u8(at[name], arr.length).set(arr);
writeGaussianTaps(k, taps);
const state = new FfmpegSsimState(width);
const g = { width, height, chromaWidth: cw, chromaHeight: ch };

const cases = {
  'ssim (Gaussian, Y)': () => k.fn.ssim_gauss(at.ya, at.yb, width, height, taps, scratch),
  'ssim_ffmpeg (Y,U,V,All)': () => state.frameAt(k, { y: [at.ya, at.yb], u: [at.ua, at.ub], v: [at.va, at.vb] }, g, temp),
  'ssim_rgb7 (rgb24)': () => k.fn.ssim_box7(at.ra, at.rb, 3 * width, height, 3, scratch),
  'rgb24 from Y,U,V (one side)': () => k.fn.yuv_rgb24(at.ya, at.ua, at.va, width, height, cw, 1, 0, at.ra),
  'diff sums (Y,U,V,rgb24)': () => {
    k.fn.diff_stats(at.ya, at.yb, width * height, out);
    k.fn.diff_stats(at.ua, at.ub, cw * ch, out);
    k.fn.diff_stats(at.va, at.vb, cw * ch, out);
    k.fn.diff_stats(at.ra, at.rb, 3 * width * height, out);
  },
};

// Wall time and this process's CPU time: on a shared machine the CPU time is the steadier figure.
function time(fn) {
  fn();
  const wall = [];
  const cpu = [];
  for (let i = 0; i < repeats; i++) {
    const c = process.cpuUsage();
    const t = performance.now();
    fn();
    wall.push(performance.now() - t);
    const d = process.cpuUsage(c);
    cpu.push((d.user + d.system) / 1000);
  }
  const sorted = (xs) => xs.sort((x, y) => x - y);
  const median = (xs) => sorted(xs)[Math.floor(xs.length / 2)];
  return `${median(wall).toFixed(2).padStart(8)} ${median(cpu).toFixed(2).padStart(8)} ${sorted(cpu)[0].toFixed(2).padStart(8)}`;
}

console.log(`metric kernels at ${width}x${height}, ${repeats} runs, ms per frame (medians; and the fastest CPU time)`);
console.log(`${'kernel'.padEnd(28)} ${'wall'.padStart(8)} ${'cpu'.padStart(8)} ${'cpu min'.padStart(8)}`);
for (const [name, fn] of Object.entries(cases)) console.log(`${name.padEnd(28)} ${time(fn)}`);
const acc = createVideoAccumulator(g);
console.log(`${'addFrame (default set)'.padEnd(28)} ${time(() => acc.addFrame(fa, fb))}`);
const accAll = createVideoAccumulator(g, 'all');
console.log(`${'addFrame (all set)'.padEnd(28)} ${time(() => accAll.addFrame(fa, fb))}`);
