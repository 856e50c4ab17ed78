#!/usr/bin/env node
// Old against new metric kernels, in one process, on the same frames,
// alternating, one core: prints each kernel's median ms per frame and the
// ratio old/new (CPU time of this process), plus the largest difference
// between their results.
//   node bench/kernels-race.mjs OLD.wasm [width] [height] [rounds]
// OLD.wasm is an earlier build of packages/fidelity/assets/metrics-kernels.wasm,
// for instance: git show <commit>:packages/fidelity/assets/metrics-kernels.wasm > /tmp/old.wasm
// Either build's ABI is accepted (before and after the float32 Gaussian SSIM).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const [oldPath, w = '1344', h = '768', r = '9'] = process.argv.slice(2);
if (!oldPath) {
  console.error('usage: node bench/kernels-race.mjs OLD.wasm [width] [height] [rounds]');
  process.exit(2);
}
const width = Number(w);
const height = Number(h);
const rounds = Number(r);
setFlagsFromString('--no-wasm-dynamic-tiering');

const taps = (() => {
  const phi = [];
  for (let x = -5; x <= 5; x++) phi.push(Math.exp((-0.5 / 2.25) * x * x));
  const sum = phi.reduce((s, v) => s + v, 0);
  return phi.slice(5).map((v) => v / sum);
})();

let seed = 12345;
const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
function pair(channels, noise) {
  const a = new Uint8Array(width * height * channels);
  const b = new Uint8Array(a.length);
  for (let i = 0; i < a.length; i++) {
    const x = (i / channels) % width;
    const y = Math.floor(i / channels / width);
    const v = 128 + 60 * Math.sin(x / 17) * Math.cos(y / 23) + 30 * rand();
    a[i] = Math.max(0, Math.min(255, Math.round(v)));
    b[i] = Math.max(0, Math.min(255, Math.round(v + noise * (rand() - 0.5))));
  }
  return [a, b];
}
const [ya, yb] = pair(1, 12);
const [ra, rb] = pair(3, 12);

function load(file) {
  const ex = new WebAssembly.Instance(new WebAssembly.Module(readFileSync(file)), {}).exports;
  const align = (n) => (n + 15) & ~15;
  let end = align(ex.heap_base());
  const take = (n) => {
    const at = end;
    end = align(end + n);
    return at;
  };
  const at = { ya: take(ya.length), yb: take(yb.length), ra: take(ra.length), rb: take(rb.length), taps: take(64), consts: take(16) };
  const fresh = 'ssim_gauss_scratch_bytes' in ex;
  const nv = width - 10;
  const gaussScratch = fresh ? ex.ssim_gauss_scratch_bytes(width) : 8 * (4 * width + 4 * 12 * nv + 8 * nv + 8);
  const stride = (3 * width + 15) & ~7;
  const boxScratch = fresh ? ex.ssim_box7_scratch_bytes(3 * width) : 2 * 2 * stride + 2 * 4 * stride + 16;
  const scratch = take(Math.max(gaussScratch, boxScratch));
  const have = ex.memory.buffer.byteLength;
  if (end > have) ex.memory.grow(Math.ceil((end - have) / 65536));
  const mem = ex.memory.buffer;
  for (const [k, arr] of Object.entries({ ya, yb, ra, rb })) new Uint8Array(mem, at[k], arr.length).set(arr);
  new Float64Array(mem, at.taps, 6).set(taps);
  new Float64Array(mem, at.consts, 2).set([(0.01 * 255) ** 2, (0.03 * 255) ** 2]);
  const tempInts = 'ssim_ffmpeg_temp_ints' in ex ? ex.ssim_ffmpeg_temp_ints(width) : 0;
  const temp = take(4 * tempInts + 16);
  const cw = (width + 1) >> 1;
  const ch = (height + 1) >> 1;
  const chroma = { ua: take(cw * ch), ub: take(cw * ch), va: take(cw * ch), vb: take(cw * ch) };
  const rgbOut = take(3 * width * height);
  const have2 = ex.memory.buffer.byteLength;
  if (end > have2) ex.memory.grow(Math.ceil((end - have2) / 65536));
  for (const [key, src] of Object.entries({ ua: ya, ub: yb, va: yb, vb: ya })) new Uint8Array(ex.memory.buffer, chroma[key], cw * ch).set(src.subarray(0, cw * ch));
  for (const [key, arr] of Object.entries({ ya, yb })) new Uint8Array(ex.memory.buffer, at[key], arr.length).set(arr);
  const ffmpeg = tempInts
    ? () => {
        new Int32Array(ex.memory.buffer, temp, tempInts).fill(0);
        return ex.ssim_ffmpeg_plane(at.ya, at.yb, width, height, temp) + ex.ssim_ffmpeg_plane(chroma.ua, chroma.ub, cw, ch, temp) + ex.ssim_ffmpeg_plane(chroma.va, chroma.vb, cw, ch, temp);
      }
    : null;
  const rgb24 = 'yuv_rgb24' in ex ? () => ex.yuv_rgb24(at.ya, chroma.ua, chroma.va, width, height, cw, 1, 0, rgbOut) : null;
  return {
    ffmpeg,
    rgb24,
    gauss: fresh
      ? () => ex.ssim_gauss(at.ya, at.yb, width, height, at.taps, scratch)
      : () => ex.ssim_gauss(at.ya, at.yb, width, height, at.taps, at.consts, scratch),
    box7: () => ex.ssim_box7(at.ra, at.rb, 3 * width, height, 3, scratch) / (3 * (width - 6) * (height - 6)),
  };
}

const old = load(oldPath);
const cur = load(process.env.NEW_WASM ?? path.join(root, 'packages/fidelity/assets/metrics-kernels.wasm'));
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
console.log(`kernels at ${width}x${height}, ${rounds} alternating rounds, one core; ms per frame (median)`);
for (const name of ['gauss', 'box7', 'ffmpeg', 'rgb24']) {
  if (!old[name] || !cur[name]) continue;
  const o = [];
  const n = [];
  old[name]();
  cur[name]();
  for (let i = 0; i < rounds; i++) {
    for (const [fn, into] of i % 2 ? [[old[name], o], [cur[name], n]] : [[cur[name], n], [old[name], o]]) {
      // CPU time of this process: on a shared machine it is far steadier than wall time.
      const c = process.cpuUsage();
      fn();
      const d = process.cpuUsage(c);
      into.push((d.user + d.system) / 1000);
    }
  }
  const diff = Math.abs(old[name]() - cur[name]());
  console.log(`${name.padEnd(6)} old ${median(o).toFixed(2).padStart(7)}  new ${median(n).toFixed(2).padStart(7)}  old/new ${(median(o) / median(n)).toFixed(2)}  |old-new| ${diff.toExponential(2)}`);
}
