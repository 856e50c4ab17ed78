#!/usr/bin/env node
// Proof that a rebuilt kernel module gives the same bits as an earlier one:
// every kernel of OLD.wasm and NEW.wasm (default: the committed
// packages/fidelity/assets/metrics-kernels.wasm) on the same inputs, in one
// process, results compared bit for bit (float64 and float32 as raw bits, the
// FFmpeg SSIM line buffers after every plane, the rgb24 bytes). The FFT is
// checked against the JavaScript transform the audio metrics used before it
// moved into the module (below, unchanged), whichever module OLD is.
//
//   node bench/kernels-same.mjs OLD.wasm [NEW.wasm] [--quick] [--clips DIR...]
//
// Inputs: every size from 8x8 to 40x40 (all widths and heights, so every
// remainder of 4, 8 and 16 columns and of 4 rows is met), a set of larger
// and odd sizes up to 1344x768, each with several kinds of content (noise of
// every strength, identical planes, flat planes, 0/255 extremes, gradients,
// sparse differences) in sequences of frames sharing one FFmpeg line buffer;
// then the frames of real clips (the fixture and benchmark MP4s, decoded here
// with ffmpeg). Exits 1 at the first difference, with where it was.
// A benchmark-side proof, run by hand after rebuilding the kernels; never a
// test (OLD.wasm comes from git history: git show REV:packages/fidelity/assets/metrics-kernels.wasm).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: opts, positionals } = parseArgs({ allowPositionals: true, options: { quick: { type: 'boolean', default: false }, clips: { type: 'string', multiple: true } } });
const [oldPath, newPath = path.join(root, 'packages/fidelity/assets/metrics-kernels.wasm')] = positionals;
if (!oldPath) {
  console.error('usage: node bench/kernels-same.mjs OLD.wasm [NEW.wasm] [--quick] [--clips DIR...]');
  process.exit(2);
}
setFlagsFromString('--no-wasm-dynamic-tiering');

// ---------------------------------------------------------------------------
// The modules: each with its own memory, laid out once large enough for the biggest case.

const taps = (() => {
  const phi = [];
  for (let x = -5; x <= 5; x++) phi.push(Math.exp((-0.5 / 2.25) * x * x));
  const sum = phi.reduce((s, v) => s + v, 0);
  return phi.slice(5).map((v) => v / sum);
})();

function load(file, tag) {
  const ex = new WebAssembly.Instance(new WebAssembly.Module(readFileSync(file)), {}).exports;
  const base = (ex.heap_base() + 15) & ~15;
  let size = 0;
  const grow = (bytes) => {
    if (bytes <= size) return;
    const need = base + bytes - ex.memory.buffer.byteLength;
    if (need > 0) ex.memory.grow(Math.ceil(need / 65536));
    size = bytes;
  };
  return { ex, base, grow, name: `${tag} ${path.relative(process.cwd(), file)}` };
}
const OLD = load(oldPath, 'old');
const NEW = load(newPath, 'new');

/** Lays buffers out from the module's base; returns their offsets. */
function layout(m, sizes) {
  let end = m.base;
  const at = {};
  for (const [name, bytes] of Object.entries(sizes)) {
    at[name] = end;
    end = (end + bytes + 15) & ~15;
  }
  m.grow(end - m.base);
  return at;
}
const u8 = (m, at, n) => new Uint8Array(m.ex.memory.buffer, at, n);
const i32 = (m, at, n) => new Int32Array(m.ex.memory.buffer, at, n);
const f64 = (m, at, n) => new Float64Array(m.ex.memory.buffer, at, n);

let checks = 0;
const bits = new DataView(new ArrayBuffer(8));
const f64bits = (x) => {
  bits.setFloat64(0, x);
  return bits.getBigUint64(0);
};
function same(what, a, b) {
  checks++;
  if (typeof a === 'number' ? f64bits(a) === f64bits(b) : Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength)) === 0) return;
  console.error(`DIFFERENT: ${what}: ${OLD.name} ${typeof a === 'number' ? a : '(bytes)'} against ${NEW.name} ${typeof b === 'number' ? b : '(bytes)'}`);
  process.exit(1);
}

// ---------------------------------------------------------------------------
// Video kernels on one frame pair: Y plane w x h, chroma (w+1)/2 x (h+1)/2, an rgb24 pair.

/** Per module, per luma width: the FFmpeg line buffers carried from plane to plane, as FfmpegSsimState does. */
const ffTemp = new Map();

function videoCase(what, w, h, ya, yb, ua, ub, va, vb) {
  const cw = (w + 1) >> 1;
  const chh = (h + 1) >> 1;
  const results = [];
  for (const m of [OLD, NEW]) {
    const tempInts = m.ex.ssim_ffmpeg_temp_ints(w);
    const rgb = 3 * w * h;
    const at = layout(m, {
      ya: w * h, yb: w * h, ua: ua.length, ub: ub.length, va: va.length, vb: vb.length, ra: rgb, rb: rgb,
      taps: 64, out: 16, temp: 4 * tempInts,
      scratch: Math.max(m.ex.ssim_gauss_scratch_bytes(w), m.ex.ssim_box7_scratch_bytes(3 * w), m.ex.ssim_box7_scratch_bytes(w)),
    });
    for (const [k, arr] of Object.entries({ ya, yb, ua, ub, va, vb })) u8(m, at[k], arr.length).set(arr);
    f64(m, at.taps, 6).set(taps);
    const key = `${m.name}:${w}`;
    if (!ffTemp.has(key)) ffTemp.set(key, new Int32Array(tempInts));
    const temp = ffTemp.get(key);
    i32(m, at.temp, tempInts).set(temp);
    const r = {};
    if (w >= 8 && h >= 8) {
      r.ffY = m.ex.ssim_ffmpeg_plane(at.ya, at.yb, w, h, at.temp);
      r.ffTempY = i32(m, at.temp, tempInts).slice();
      if (cw >= 8 && chh >= 8) {
        r.ffU = m.ex.ssim_ffmpeg_plane(at.ua, at.ub, cw, chh, at.temp);
        r.ffV = m.ex.ssim_ffmpeg_plane(at.va, at.vb, cw, chh, at.temp);
      }
      r.ffTemp = i32(m, at.temp, tempInts).slice();
      temp.set(r.ffTemp);
    }
    if (w >= 11 && h >= 11) r.gauss = m.ex.ssim_gauss(at.ya, at.yb, w, h, at.taps, at.scratch);
    if (w >= 7 && h >= 7) r.box1 = m.ex.ssim_box7(at.ya, at.yb, w, h, 1, at.scratch);
    for (const [name, table, vshift] of [['rgb601l', 0, 1], ['rgb709f', 3, 1], ['rgb422', 0, 0]]) {
      if (vshift === 1 && h % 2) continue;
      const ch = vshift ? chh : h;
      if (ch * cw > ua.length) continue;
      const rc = m.ex.yuv_rgb24(at.ya, at.ua, at.va, w, h, cw, vshift, table, at.ra);
      const rd = m.ex.yuv_rgb24(at.yb, at.ub, at.vb, w, h, cw, vshift, table, at.rb);
      r[name] = rc + rd;
      r[`${name}Bytes`] = u8(m, at.ra, rgb).slice();
      if (name === 'rgb601l' && rc === 0 && w >= 7 && h >= 7) {
        r.box3 = m.ex.ssim_box7(at.ra, at.rb, 3 * w, h, 3, at.scratch);
        m.ex.diff_stats(at.ra, at.rb, rgb, at.out);
        r.diffRgb = f64(m, at.out, 2).slice();
      }
    }
    m.ex.diff_stats(at.ya, at.yb, w * h, at.out);
    r.diffY = f64(m, at.out, 2).slice();
    // Both sides' rgb24 and their differences in one pass (yuv_rgb24_pair), against the two conversions and diff_stats.
    for (const [name, table, vshift] of [['pair601l', 0, 1], ['pair709f', 3, 1], ['pair422', 0, 0]]) {
      if (vshift === 1 && h % 2) continue;
      if ((vshift ? chh : h) * cw > ua.length) continue;
      if ('yuv_rgb24_pair' in m.ex) {
        r[`${name}Rc`] = m.ex.yuv_rgb24_pair(at.ya, at.ua, at.va, at.yb, at.ub, at.vb, w, h, cw, vshift, table, 0, 0, at.out);
        r[`${name}Stats`] = f64(m, at.out, 2).slice();
        u8(m, at.ra, rgb).fill(7);
        r[`${name}Rc2`] = m.ex.yuv_rgb24_pair(at.ya, at.ua, at.va, at.yb, at.ub, at.vb, w, h, cw, vshift, table, at.ra, at.rb, at.out);
        r[`${name}Stats2`] = f64(m, at.out, 2).slice();
      } else {
        r[`${name}Rc`] = m.ex.yuv_rgb24(at.ya, at.ua, at.va, w, h, cw, vshift, table, at.ra) + m.ex.yuv_rgb24(at.yb, at.ub, at.vb, w, h, cw, vshift, table, at.rb);
        m.ex.diff_stats(at.ra, at.rb, rgb, at.out);
        r[`${name}Stats`] = f64(m, at.out, 2).slice();
        r[`${name}Rc2`] = r[`${name}Rc`];
        r[`${name}Stats2`] = r[`${name}Stats`];
      }
      r[`${name}A`] = u8(m, at.ra, rgb).slice();
      r[`${name}B`] = u8(m, at.rb, rgb).slice();
    }
    results.push(r);
  }
  const [o, n] = results;
  for (const key of Object.keys(o)) same(`${what} ${w}x${h} ${key}`, o[key], n[key]);
}

// Deterministic pseudo-random content.
let seed = 20240601;
const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
const clamp = (v) => (v < 0 ? 0 : v > 255 ? 255 : Math.round(v));

const KINDS = ['noise-1', 'noise-12', 'noise-80', 'unrelated', 'identical', 'flat', 'extremes', 'gradient', 'sparse', 'clipped'];
function planePair(kind, w, h) {
  const n = w * h;
  const a = new Uint8Array(n);
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const x = i % w;
    const y = (i / w) | 0;
    let v = 128 + 60 * Math.sin(x / 7 + rand()) * Math.cos(y / 9) + 40 * (rand() - 0.5);
    let u = v;
    switch (kind) {
      case 'noise-1': u = v + (rand() < 0.5 ? -1 : 1); break;
      case 'noise-12': u = v + 12 * (rand() - 0.5); break;
      case 'noise-80': u = v + 80 * (rand() - 0.5); break;
      case 'unrelated': u = 255 * rand(); break;
      case 'identical': break;
      case 'flat': v = 77; u = 78; break;
      case 'extremes': v = rand() < 0.5 ? 0 : 255; u = rand() < 0.5 ? 0 : 255; break;
      case 'gradient': v = (x * 255) / Math.max(1, w - 1); u = (y * 255) / Math.max(1, h - 1); break;
      case 'sparse': u = rand() < 0.01 ? 255 - v : v; break;
      case 'clipped': v = rand() < 0.3 ? 255 : 16; u = rand() < 0.3 ? 235 : 0; break;
    }
    a[i] = clamp(v);
    b[i] = clamp(u);
  }
  return [a, b];
}

function syntheticFrame(kind, w, h) {
  const [ya, yb] = planePair(kind, w, h);
  const cw = (w + 1) >> 1;
  // Chroma planes sized for 4:2:2 (h rows), so one frame serves 4:2:0 (the first half) and 4:2:2.
  const [ua, ub] = planePair(kind, cw, h);
  const [va, vb] = planePair(kind, cw, h);
  return [ya, yb, ua, ub, va, vb];
}

const started = Date.now();
const small = [];
for (let w = 8; w <= (opts.quick ? 24 : 40); w++) for (let h = 8; h <= (opts.quick ? 24 : 40); h++) small.push([w, h]);
const large = [[64, 64], [100, 37], [127, 129], [256, 144], [333, 211], [640, 360], [1344, 768], [1343, 767], [1346, 770], [1920, 1080]];
for (const [w, h] of small) {
  // One sequence per size: the line buffers carry over from kind to kind, as from frame to frame.
  for (const kind of KINDS) {
    const [ya, yb, ua, ub, va, vb] = syntheticFrame(kind, w, h);
    videoCase(kind, w, h, ya, yb, ua, ub, va, vb);
  }
}
console.log(`synthetic small sizes: ${small.length} sizes x ${KINDS.length} kinds, ${checks} results equal (${((Date.now() - started) / 1000).toFixed(0)} s)`);
for (const [w, h] of opts.quick ? large.slice(0, 7) : large) {
  for (const kind of KINDS) {
    const [ya, yb, ua, ub, va, vb] = syntheticFrame(kind, w, h);
    videoCase(kind, w, h, ya, yb, ua, ub, va, vb);
  }
}
console.log(`synthetic large sizes: ${checks} results equal so far (${((Date.now() - started) / 1000).toFixed(0)} s)`);

// ---------------------------------------------------------------------------
// Real frames: every MP4 under the clip folders, decoded to yuv420p here, consecutive frames in sequence.

function mp4s(dir) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(...mp4s(p));
    else if (name.endsWith('.mp4')) out.push(p);
  }
  return out.sort();
}
const clipDirs = opts.clips ?? [path.join(root, 'fixtures'), path.join(root, 'bench/out/sets-full-8s')];
const clips = clipDirs.flatMap(mp4s);
const byName = new Map();
for (const c of clips) {
  const key = path.basename(c).replace(/-[ab]\.mp4$/, '').replace(/\.mp4$/, '');
  if (!byName.has(key)) byName.set(key, []);
  byName.get(key).push(c);
}
let frames = 0;
for (const group of byName.values()) {
  // A pair where there is one (the same slot of two runs, or a fixture's -a / -b), else the clip against itself shifted by a frame.
  const [fa, fb = fa] = group;
  const probe = JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=width,height,pix_fmt', '-of', 'json', fa]).toString()).streams[0];
  if (!probe || probe.pix_fmt !== 'yuv420p') continue;
  const { width: w, height: h } = probe;
  const limit = opts.quick ? 6 : 48;
  const decode = (f) => execFileSync('ffmpeg', ['-v', 'error', '-i', f, '-map', '0:v:0', '-frames:v', String(limit + 1), '-f', 'rawvideo', '-pix_fmt', 'yuv420p', '-'], { maxBuffer: 1 << 30 });
  const A = decode(fa);
  const B = fb === fa ? A.subarray(((w * h * 3) >> 1) * 1) : decode(fb);
  const cw = (w + 1) >> 1;
  const chh = (h + 1) >> 1;
  const fs = w * h + 2 * cw * chh;
  const count = Math.min(limit, Math.floor(A.length / fs), Math.floor(B.length / fs));
  for (let i = 0; i < count; i++) {
    const pa = A.subarray(i * fs, (i + 1) * fs);
    const pb = B.subarray(i * fs, (i + 1) * fs);
    const planes = (p) => [p.subarray(0, w * h), p.subarray(w * h, w * h + cw * chh), p.subarray(w * h + cw * chh, fs)];
    const [ya, ua, va] = planes(pa);
    const [yb, ub, vb] = planes(pb);
    videoCase(path.basename(fa), w, h, ya, yb, ua, ub, va, vb);
    frames++;
  }
}
console.log(`real frames: ${frames} frame pairs from ${byName.size} clips, ${checks} results equal so far (${((Date.now() - started) / 1000).toFixed(0)} s)`);

// ---------------------------------------------------------------------------
// FFT: the JavaScript transform the audio metrics used before (metrics/fft.ts up to this release), as the reference.

function jsPlan(n) {
  const cos = new Float64Array(Math.max(n - 1, 1));
  const sin = new Float64Array(Math.max(n - 1, 1));
  for (let half = 1; half < n; half <<= 1) {
    for (let k = 0; k < half; k++) {
      const angle = (2 * Math.PI * k * (n / (2 * half))) / n;
      cos[half - 1 + k] = Math.cos(angle);
      sin[half - 1 + k] = Math.sin(angle);
    }
  }
  return { cos, sin };
}
function jsFft(re, im, inverse) {
  const n = re.length;
  const bits = Math.round(Math.log2(n));
  const { cos, sin } = jsPlan(n);
  for (let i = 0; i < n; i++) {
    let j = 0;
    for (let b = 0; b < bits; b++) j |= ((i >>> b) & 1) << (bits - 1 - b);
    if (j > i) {
      const tr = re[i]; re[i] = re[j]; re[j] = tr;
      const ti = im[i]; im[i] = im[j]; im[j] = ti;
    }
  }
  for (let a = 0; a + 1 < n; a += 2) {
    const xr = re[a + 1];
    const xi = im[a + 1];
    re[a + 1] = re[a] - xr;
    im[a + 1] = im[a] - xi;
    re[a] = re[a] + xr;
    im[a] = im[a] + xi;
  }
  const sign = inverse ? 1 : -1;
  for (let half = 2; half < n; half <<= 1) {
    const size = half << 1;
    const t0 = half - 1;
    for (let start = 0; start < n; start += size) {
      for (let k = 0; k < half; k++) {
        const wr = cos[t0 + k];
        const wi = sign * sin[t0 + k];
        const a = start + k;
        const b = a + half;
        const br = re[b];
        const bi = im[b];
        const xr = br * wr - bi * wi;
        const xi = br * wi + bi * wr;
        const ar = re[a];
        const ai = im[a];
        re[b] = ar - xr;
        im[b] = ai - xi;
        re[a] = ar + xr;
        im[a] = ai + xi;
      }
    }
  }
}
function jsCross(zr, zi, size) {
  const cr = new Float64Array(size);
  const ci = new Float64Array(size);
  for (let k = 0; k < size; k++) {
    const m = (size - k) & (size - 1);
    const xr = 0.5 * (zr[k] + zr[m]);
    const xi = 0.5 * (zi[k] - zi[m]);
    const yr = 0.5 * (zi[k] + zi[m]);
    const yi = 0.5 * (zr[m] - zr[k]);
    cr[k] = xr * yr + xi * yi;
    ci[k] = xr * yi - xi * yr;
  }
  return [cr, ci];
}

const fftModule = 'fft_f64' in NEW.ex ? NEW : null;
if (!fftModule) {
  console.log(`FFT: ${NEW.name} has none`);
} else {
  let transforms = 0;
  const signals = ['noise', 'sine', 'zeros', 'impulse', 'tiny', 'huge', 'audio-like', 'signed-zeros'];
  for (let bitsN = 0; bitsN <= 16; bitsN++) {
    const n = 1 << bitsN;
    const { cos, sin } = jsPlan(n);
    for (const kind of signals) {
      for (const inverse of [false, true]) {
        const re = new Float64Array(n);
        const im = new Float64Array(n);
        for (let i = 0; i < n; i++) {
          switch (kind) {
            case 'noise': re[i] = rand() - 0.5; im[i] = rand() - 0.5; break;
            case 'sine': re[i] = Math.sin(i * 0.37); im[i] = Math.cos(i * 1.3); break;
            case 'zeros': break;
            case 'impulse': re[i] = i === 1 ? 1 : 0; break;
            case 'tiny': re[i] = (rand() - 0.5) * 1e-300; im[i] = (rand() - 0.5) * 1e-310; break;
            case 'huge': re[i] = (rand() - 0.5) * 1e300; im[i] = -(rand() * 1e300); break;
            case 'audio-like': re[i] = Math.fround(0.3 * Math.sin(i / 11) + 0.01 * (rand() - 0.5)); im[i] = Math.fround(0.3 * Math.sin(i / 11 + 0.001)); break;
            case 'signed-zeros': re[i] = rand() < 0.5 ? -0 : 0; im[i] = rand() < 0.3 ? -0 : rand() < 0.5 ? 0 : rand(); break;
          }
        }
        const at = layout(fftModule, { re: 8 * n, im: 8 * n, cos: 8 * cos.length, sin: 8 * sin.length, cr: 8 * n, ci: 8 * n });
        f64(fftModule, at.re, n).set(re);
        f64(fftModule, at.im, n).set(im);
        f64(fftModule, at.cos, cos.length).set(cos);
        f64(fftModule, at.sin, sin.length).set(sin);
        fftModule.ex.fft_f64(at.re, at.im, n, at.cos, at.sin, inverse ? 1 : 0);
        const refRe = re.slice();
        const refIm = im.slice();
        jsFft(refRe, refIm, inverse);
        same(`fft n=${n} ${kind} inverse=${inverse} re`, refRe, f64(fftModule, at.re, n).slice());
        same(`fft n=${n} ${kind} inverse=${inverse} im`, refIm, f64(fftModule, at.im, n).slice());
        if (n >= 1) {
          fftModule.ex.fft_cross_spectrum(at.re, at.im, at.cr, at.ci, n);
          const [cr, ci] = jsCross(refRe, refIm, n);
          same(`cross n=${n} ${kind} re`, cr, f64(fftModule, at.cr, n).slice());
          same(`cross n=${n} ${kind} im`, ci, f64(fftModule, at.ci, n).slice());
        }
        transforms++;
      }
    }
  }
  console.log(`FFT: ${transforms} transforms (sizes 1 to 65536, forward and inverse) equal to the JavaScript transform`);
  if ('spectral_window' in fftModule.ex) {
    // Spectral cosine windows: the magnitudes as Math.hypot gave them from the JavaScript transform, the sums bin by bin.
    const N = 1024;
    const H = N / 2;
    const win = Float64Array.from({ length: N }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / N));
    const { cos, sin } = jsPlan(H);
    const rc = Float64Array.from({ length: H + 1 }, (_, k) => Math.cos((2 * Math.PI * k) / N));
    const rs = Float64Array.from({ length: H + 1 }, (_, k) => Math.sin((2 * Math.PI * k) / N));
    const mags = (x, fill) => {
      const zr = Float64Array.from({ length: H }, (_, t) => (2 * t < fill ? x[2 * t] * win[2 * t] : 0));
      const zi = Float64Array.from({ length: H }, (_, t) => (2 * t + 1 < fill ? x[2 * t + 1] * win[2 * t + 1] : 0));
      jsFft(zr, zi, false);
      const out = new Float64Array(H + 1);
      for (let k = 0; k <= H; k++) {
        const a = k % H;
        const b = (H - k) % H;
        const er = 0.5 * (zr[a] + zr[b]);
        const ei = 0.5 * (zi[a] - zi[b]);
        const or = 0.5 * (zi[a] + zi[b]);
        const oi = 0.5 * (zr[b] - zr[a]);
        const c = rc[k];
        const s = -rs[k];
        out[k] = Math.hypot(er + (or * c - oi * s), ei + (or * s + oi * c));
      }
      return out;
    };
    let windows = 0;
    for (let w = 0; w < (opts.quick ? 200 : 2000); w++) {
      const fill = w % 5 === 0 ? 1 + Math.floor(rand() * N) : N;
      const amp = [1, 1e-3, 1e-8, 0][w % 4];
      const a = Float64Array.from({ length: N }, () => Math.fround((rand() - 0.5) * amp));
      const b = Float64Array.from({ length: N }, (_, i) => Math.fround(a[i] + (w % 3 === 0 ? 0 : (rand() - 0.5) * amp * 0.01)));
      const acc = Float64Array.of(rand(), rand(), rand());
      const at = layout(fftModule, { a: 8 * N, b: 8 * N, win: 8 * N, cos: 8 * cos.length, sin: 8 * sin.length, rc: 8 * (H + 1), rs: 8 * (H + 1), scratch: 8 * (4 * H + 2), acc: 24 });
      for (const [k, arr] of Object.entries({ a, b, win, cos, sin, rc, rs, acc })) f64(fftModule, at[k], arr.length).set(arr);
      fftModule.ex.spectral_window(at.a, at.b, at.win, N, fill, at.cos, at.sin, at.rc, at.rs, at.scratch, at.acc);
      const ma = mags(a, fill);
      const mb = mags(b, fill);
      let [ab, aa, bb] = acc;
      for (let k = 0; k <= H; k++) {
        ab += ma[k] * mb[k];
        aa += ma[k] * ma[k];
        bb += mb[k] * mb[k];
      }
      same(`spectral window ${w} (fill ${fill})`, Float64Array.of(ab, aa, bb), f64(fftModule, at.acc, 3).slice());
      windows++;
    }
    console.log(`spectral cosine: ${windows} windows equal to the JavaScript magnitudes and sums`);
  }
}
console.log(`all ${checks} results bit-identical between ${OLD.name} and ${NEW.name} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
