#!/usr/bin/env node
// Where one clip's own analysis (docs/metrics.md, "Clip validity") spends its time per full-size
// frame, against the pair's own measuring of the same frames: createClipVideoAccumulator.addFrame
// (one side), the pair's video accumulator (both sides, per metric set, on the pair whose sides differ: c001) and the clip audio
// accumulator per second of audio. CPU time of this thread (process.cpuUsage), medians of rounds
// that alternate which build goes first, so a shared machine's load falls on both alike.
// A benchmark, run by hand; never a test.
//
//   node bench/clip-analysis.mjs [--frames N] [--rounds R] [--before D]
//
//   --before D   a copy of packages/fidelity/dist made before a change (inside packages/fidelity,
//                e.g. packages/fidelity/dist-before): its clip accumulator is raced against this one's
//
// Needs the built library and the full-size runs bench/phases.mjs generates (bench/out/phases-full-8s-2).
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    frames: { type: 'string', default: '48' },
    rounds: { type: 'string', default: '7' },
    before: { type: 'string' },
    runs: { type: 'string', default: path.join(root, 'bench/out/phases-full-8s-2') },
  },
});
const load = async (dist, file) => import(pathToFileURL(path.join(dist, file)).href);
const dist = path.join(root, 'packages/fidelity/dist');
const now = { clip: await load(dist, 'metrics/clip-video.js'), audio: await load(dist, 'metrics/clip-audio.js') };
const before = args.before ? { clip: await load(path.resolve(args.before), 'metrics/clip-video.js') } : null;
const { createVideoAccumulatorOn } = await load(dist, 'metrics/video.js');
const { kernels } = await load(dist, 'metrics/wasm.js');
const { resolveFfmpeg } = await load(dist, 'index.js');

const count = Number(args.frames);
const rounds = Number(args.rounds);
const files = ['h200', 'b200'].map((site) => path.join(args.runs, site, 'media/measurement-r000-c001.mp4'));
const tools = await resolveFfmpeg();
const ffprobe = (file) =>
  JSON.parse(execFileSync(tools.ffprobe.path, ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=width,height,pix_fmt', '-of', 'json', file], { encoding: 'utf8' })).streams[0];
const { width, height, pix_fmt: pixFmt } = ffprobe(files[0]);
if (pixFmt !== 'yuv420p') throw new Error(`expected yuv420p, got ${pixFmt}`);
const g = { width, height, chromaWidth: (width + 1) >> 1, chromaHeight: (height + 1) >> 1 };
const geometry = { ...g, yuvBytes: width * height + 2 * g.chromaWidth * g.chromaHeight };

/** The first `count` frames of a file as planes (ffmpeg's rawvideo, the decoders' own bytes). */
function decodeFrames(file) {
  const raw = execFileSync(tools.ffmpeg.path, ['-v', 'error', '-i', file, '-frames:v', String(count), '-f', 'rawvideo', '-pix_fmt', 'yuv420p', '-'], { maxBuffer: 1 << 30 });
  const ys = width * height;
  const cs = g.chromaWidth * g.chromaHeight;
  return Array.from({ length: raw.length / geometry.yuvBytes }, (_, i) => {
    const at = i * geometry.yuvBytes;
    return { ...g, y: raw.subarray(at, at + ys), u: raw.subarray(at + ys, at + ys + cs), v: raw.subarray(at + ys + cs, at + ys + 2 * cs) };
  });
}
/** The first `seconds` of a file's audio as float32 planes. */
function decodeAudio(file, seconds) {
  const raw = execFileSync(tools.ffmpeg.path, ['-v', 'error', '-i', file, '-t', String(seconds), '-f', 'f32le', '-acodec', 'pcm_f32le', '-ac', '2', '-ar', '32000', '-'], { maxBuffer: 1 << 30 });
  const all = new Float32Array(raw.buffer, raw.byteOffset, raw.length / 4);
  const n = all.length / 2;
  const planes = [new Float32Array(n), new Float32Array(n)];
  for (let i = 0; i < n; i++) {
    planes[0][i] = all[2 * i];
    planes[1][i] = all[2 * i + 1];
  }
  return planes;
}

const [fa, fb] = files.map(decodeFrames);
const frames = Math.min(fa.length, fb.length);
const rgb = { by: 'fidelity', matrix: 'bt601', range: 'limited' };
const cpuMs = (work) => {
  const t = process.cpuUsage();
  work();
  const d = process.cpuUsage(t);
  return (d.user + d.system) / 1000;
};
const clipRun = (lib) => () => {
  const clip = lib.clip.createClipVideoAccumulator(geometry, rgb);
  for (let i = 0; i < frames; i++) clip.addFrame(fa[i]);
  clip.finish({ timeBase: 1, frames: [] });
};
const pairRun = (set) => () => {
  const acc = createVideoAccumulatorOn(kernels(), geometry, set, { rgb });
  for (let i = 0; i < frames; i++) acc.addFrame(fa[i], fb[i]);
  acc.finish();
};
const audio = decodeAudio(files[0], 8);
const audioRun = () => {
  const clip = now.audio.createClipAudioAccumulator(32000, 2);
  // The decoders' chunk size does not change the sums' order per channel; 4096-sample chunks here.
  for (let at = 0; at < audio[0].length; at += 4096) clip.push(audio.map((p) => p.subarray(at, at + 4096)));
  clip.finish({ timeBase: 1 / 32000, frames: [] });
};

// The kernels alone on the same frames (planes already in wasm memory): where a frame's analysis goes.
const { leaseKernels } = await load(dist, 'metrics/wasm.js');
const ys = width * height;
const cs = g.chromaWidth * g.chromaHeight;
const { kernels: k, keptAt } = leaseKernels(2 * ys * 3 + 64 + geometry.yuvBytes + 64);
const [imgA, imgB] = [keptAt, keptAt + ys * 3];
const statsAt = keptAt + 2 * ys * 3;
const planesAt = statsAt + 64;
const kernelRun = (body) => () => {
  for (let i = 0; i < frames; i++) {
    const f = fa[i];
    body(f, i % 2 ? imgA : imgB, i % 2 ? imgB : imgA);
  }
};
const put = (f) => {
  k.u8(planesAt, ys).set(f.y);
  k.u8(planesAt + ys, cs).set(f.u);
  k.u8(planesAt + ys + cs, cs).set(f.v);
};
const kernelJobs = {
  'kernel: planes copied in': kernelRun(put),
  'kernel: yuv_rgb24 (conversion alone)': kernelRun((f, out) => k.fn.yuv_rgb24(planesAt, planesAt + ys, planesAt + ys + cs, width, height, g.chromaWidth, 1, 0, out)),
  'kernel: diff_stats (SAD + SSE, two images)': kernelRun((f, out, prev) => k.fn.diff_stats(prev, out, ys * 3, statsAt)),
  'kernel: clip_frame_rgb24 (max, min, SAD)': kernelRun((f, out, prev) => k.fn.clip_frame_rgb24(out, prev, ys * 3, statsAt)),
  'kernel: clip_frame_yuv (all in one pass)': kernelRun((f, out, prev) => k.fn.clip_frame_yuv(planesAt, planesAt + ys, planesAt + ys + cs, width, height, g.chromaWidth, 1, 0, out, prev, statsAt)),
  'kernel: yuv_rgb24_pair (the pair metrics, both sides)': kernelRun(() => k.fn.yuv_rgb24_pair(planesAt, planesAt + ys, planesAt + ys + cs, planesAt, planesAt + ys, planesAt + ys + cs, width, height, g.chromaWidth, 1, 0, 0, 0, statsAt)),
};

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const jobs = {
  ...(before ? { 'clip video, before (one side)': clipRun(before) } : {}),
  'clip video (one side)': clipRun(now),
  'pair video, ffmpeg set': pairRun('ffmpeg'),
  'pair video, default set': pairRun('default'),
  'clip audio, 8 s stereo 32 kHz (one side)': audioRun,
  ...kernelJobs,
};
const names = Object.keys(jobs);
const times = Object.fromEntries(names.map((n) => [n, []]));
for (const n of names) jobs[n](); // warm-up: the wasm compiled, the JIT settled
for (let r = 0; r < rounds; r++) {
  // Alternate the order every round.
  const order = r % 2 ? [...names].reverse() : names;
  for (const n of order) times[n].push(cpuMs(jobs[n]));
}
const cpu = os.cpus()[0]?.model ?? 'unknown';
console.log(`${frames} frames ${width}x${height}, ${rounds} rounds, ${os.cpus().length} x ${cpu}, load ${os.loadavg()[0].toFixed(2)}`);
const perFrame = Object.fromEntries(names.map((n) => [n, median(times[n]) / (n.startsWith('clip audio') ? 8 : frames)]));
for (const n of names) console.log(`${n.padEnd(44)} ${perFrame[n].toFixed(3)} ms CPU per ${n.startsWith('clip audio') ? 'second' : 'frame'} (median)`);
if (before) console.log(`clip video now / before: ${(perFrame['clip video (one side)'] / perFrame['clip video, before (one side)']).toFixed(3)}`);
for (const set of ['ffmpeg', 'default']) {
  console.log(`both clips / pair video, ${set} set: ${((2 * perFrame['clip video (one side)']) / perFrame[`pair video, ${set} set`]).toFixed(3)}` +
    (before ? ` (before: ${((2 * perFrame['clip video, before (one side)']) / perFrame[`pair video, ${set} set`]).toFixed(3)})` : ''));
}
