#!/usr/bin/env node
// measurePair against FFmpeg's own ssim+psnr filters on the same full-size
// pairs (1344x768, 24 fps, 192 frames, AAC stereo 32 kHz), alternating, in
// one run. A benchmark, run by hand or by CI's optional job; never a test.
//
//   node bench/measure.mjs [--pairs N] [--no-pool] [--rss] [--json FILE]
//
//   --pairs N   pairs to time (default 4)
//   --no-pool   skip the throughput figure (pool over all pairs vs FFmpeg two at a time)
//   --rss       also measure peak RSS of a child process measuring an 8 s pair and a 64 s pair
//   --json F    write every figure to F as JSON (default bench/out/measure-results.json)
//
// Needs the built library (npx tsc -b packages/fidelity). The pairs are made
// once with the fixture generator into bench/out/ (git-ignored) and reused.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs, promisify } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const lib = await import(pathToFileURL(path.join(root, 'packages/fidelity/dist/index.js')).href);
const { measurePair, createMeasurePool, generateRuns, resolveFfmpeg, MANIFEST_FILE } = lib;
const run = promisify(execFile);

const { values: args } = parseArgs({
  options: {
    pairs: { type: 'string', default: '4' },
    'no-pool': { type: 'boolean', default: false },
    rss: { type: 'boolean', default: false },
    json: { type: 'string', default: path.join(root, 'bench/out/measure-results.json') },
    'rss-child': { type: 'string' },
  },
  allowPositionals: true,
});

// Child mode for --rss: measure one pair, report this process's peak RSS.
if (args['rss-child']) {
  const [baseline, candidate] = JSON.parse(args['rss-child']);
  const started = performance.now();
  const outcome = await measurePair(baseline, candidate);
  process.stdout.write(`${JSON.stringify({ ok: outcome.ok, ms: performance.now() - started, maxRssKiB: process.resourceUsage().maxRSS })}\n`);
  process.exit(0);
}

const pairCount = Number(args.pairs);
if (!Number.isInteger(pairCount) || pairCount < 1) throw new Error(`--pairs must be a positive integer, not ${args.pairs}`);
const out = path.join(root, 'bench/out');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-bench-'));
const tools = await resolveFfmpeg();
const log = (line = '') => process.stderr.write(`${line}\n`);

/** Compatible full-size pairs (H200 baseline vs B200 candidate), generated once per clip length and reused. */
async function fixturePairs(count, seconds) {
  const dir = path.join(out, `full-${seconds}s`);
  const manifestFile = path.join(dir, MANIFEST_FILE);
  const pick = (manifest) => {
    const runDir = (site) => path.join(dir, manifest.runs.find((r) => r.site === site).folder);
    // Differing pairs first: a byte-identical copy is a pair too, but not the interesting one.
    const measurable = manifest.slots.filter((s) => s.site === 'B200' && s.expected !== 'invalid');
    return [...measurable.filter((s) => s.difference !== 'identical'), ...measurable.filter((s) => s.difference === 'identical')]
      .slice(0, count)
      .map((s) => ({ slot: s.slot_id, difference: s.difference, a: path.join(runDir('H200'), 'media', `${s.slot_id}.mp4`), b: path.join(runDir('B200'), 'media', `${s.slot_id}.mp4`) }));
  };
  let manifest = existsSync(manifestFile) ? JSON.parse(readFileSync(manifestFile, 'utf8')) : null;
  if (!manifest || pick(manifest).length < count) {
    log(`generating ${count}+ full-size ${seconds} s pairs into ${path.relative(root, dir)} (once)...`);
    const started = performance.now();
    // One spare case: the first six cases are all comparable, later ones include differences that make
    // a pair incompatible on purpose (then more cases are needed).
    await generateRuns({ outDir: dir, size: 'full', seconds, sites: ['H200', 'B200'], cases: Math.min(20, count <= 5 ? count + 1 : count + 6), overwrite: true });
    manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
    log(`  generated in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  const pairs = pick(manifest);
  if (pairs.length < count) throw new Error(`only ${pairs.length} compatible pairs in ${dir}`);
  return { pairs, frames: manifest.plan.frames };
}

/** FFmpeg's own measurement of the same pair: decode both, ssim and psnr filters, stats files. */
async function ffmpegPeer(a, b, tag) {
  const ssim = path.join(tmp, `ssim-${tag}.log`);
  const psnr = path.join(tmp, `psnr-${tag}.log`);
  const graph = `[0:v]split[a1][a2];[1:v]split[b1][b2];[a1][b1]ssim=stats_file=${ssim};[a2][b2]psnr=stats_file=${psnr}`;
  const started = performance.now();
  await run(tools.ffmpeg.path, ['-hide_banner', '-nostdin', '-v', 'error', '-i', a, '-i', b, '-lavfi', graph, '-f', 'null', '-']);
  return performance.now() - started;
}

async function ours(a, b) {
  const started = performance.now();
  const outcome = await measurePair(a, b);
  const ms = performance.now() - started;
  if (!outcome.ok) throw new Error(`measurePair failed: ${outcome.failure.code} ${outcome.failure.message}`);
  return ms;
}

const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmt = (ms) => `${(ms / 1000).toFixed(2)} s`;

async function limited(tasks, limit) {
  let next = 0;
  await Promise.all(Array.from({ length: limit }, async () => {
    while (next < tasks.length) await tasks[next++]();
  }));
}

/** The system Python (Debian's python3-skimage installs there), else whatever python3 is on PATH. */
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

/**
 * scikit-image's two SSIMs of metrics.md on a few frames (Y planes, rgb24), when that Python has it,
 * against this library's kernels on the same decoded frames: three rounds, alternating which goes
 * first, medians of the per-frame wall times (one core each: both are single-threaded here).
 */
async function skimagePerFrame(a, b, frames = 5, [w, h] = [1344, 768]) {
  const probe = await run(PYTHON, ['-c', 'import skimage, numpy; print(skimage.__version__)']).catch(() => null);
  if (!probe) return null;
  const decode = async (file, kind) => {
    const filter = kind === 'y' ? ['-vf', 'extractplanes=y'] : ['-pix_fmt', 'rgb24'];
    const { stdout } = await run(tools.ffmpeg.path, ['-v', 'error', '-i', file, '-frames:v', String(frames), ...filter, '-f', 'rawvideo', '-'], {
      encoding: 'buffer',
      maxBuffer: 1 << 30,
    });
    const target = path.join(tmp, `sk-${path.basename(file)}-${kind}`);
    writeFileSync(target, stdout);
    return target;
  };
  const files = [await decode(a, 'y'), await decode(b, 'y'), await decode(a, 'rgb'), await decode(b, 'rgb')];
  const script = `
import sys, time, numpy as np
from skimage.metrics import structural_similarity as ssim
w, h, n = ${w}, ${h}, ${frames}
ya, yb = (np.fromfile(f, np.uint8).reshape(n, h, w) for f in sys.argv[1:3])
ra, rb = (np.fromfile(f, np.uint8).reshape(n, h, w, 3) for f in sys.argv[3:5])
t = time.perf_counter()
for i in range(n):
    ssim(ya[i], yb[i], gaussian_weights=True, sigma=1.5, use_sample_covariance=False, data_range=255)
g = (time.perf_counter() - t) * 1000 / n
t = time.perf_counter()
for i in range(n):
    ssim(ra[i], rb[i], channel_axis=2, data_range=255)
r = (time.perf_counter() - t) * 1000 / n
print(g, r)
`;
  const python = async () => {
    const { stdout } = await run(PYTHON, ['-c', script, ...files], { env: { ...process.env, OMP_NUM_THREADS: '1', OPENBLAS_NUM_THREADS: '1' } });
    return stdout.trim().split(/\s+/).map(Number);
  };
  const [ya, yb, ra, rb] = files.map((f) => readFileSync(f));
  const plane = (buf, i, size) => buf.subarray(i * size, (i + 1) * size);
  const ourTimes = () => {
    let t = performance.now();
    for (let i = 0; i < frames; i++) lib.ssimGaussian(plane(ya, i, w * h), plane(yb, i, w * h), w, h);
    const g = (performance.now() - t) / frames;
    t = performance.now();
    for (let i = 0; i < frames; i++) lib.ssimRgb7(plane(ra, i, 3 * w * h), plane(rb, i, 3 * w * h), w, h);
    return [g, (performance.now() - t) / frames];
  };
  ourTimes(); // warm-up: the wasm compile
  const sk = [];
  const us = [];
  for (let round = 0; round < 3; round++) {
    if (round % 2 === 0) {
      sk.push(await python());
      us.push(ourTimes());
    } else {
      us.push(ourTimes());
      sk.push(await python());
    }
  }
  const med = (rows, k) => median(rows.map((r) => r[k]));
  const gaussian = med(sk, 0);
  const rgb7 = med(sk, 1);
  const ours = { ssim_gaussian_y_ms: med(us, 0), ssim_rgb7_ms: med(us, 1) };
  return {
    version: probe.stdout.trim(),
    frames,
    ssim_gaussian_y_ms: gaussian,
    ssim_rgb7_ms: rgb7,
    ms_per_frame: gaussian + rgb7,
    ours,
    gaussian_ratio: gaussian / ours.ssim_gaussian_y_ms,
    rgb7_ratio: rgb7 / ours.ssim_rgb7_ms,
  };
}

async function rssChild(a, b) {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--rss-child', JSON.stringify([a, b])], { stdio: ['ignore', 'pipe', 'inherit'] });
  let text = '';
  child.stdout.on('data', (c) => (text += c));
  await new Promise((resolve, reject) => child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`rss child exited ${code}`)))));
  return JSON.parse(text);
}

// ---------------------------------------------------------------------------
const machine = { cpus: os.availableParallelism?.() ?? os.cpus().length, cpu: os.cpus()[0]?.model ?? 'unknown', node: process.version, load: os.loadavg()[0] };
log(`machine: ${machine.cpus} cores (${machine.cpu}), ${machine.node}, load ${machine.load.toFixed(2)}`);
log(`decoder: ${tools.ffmpeg.version}`);
const { pairs, frames } = await fixturePairs(pairCount, 8);

// Warm-up, untimed: page cache, the wasm compile, the first worker of nothing.
log('warm-up...');
await ffmpegPeer(pairs[0].a, pairs[0].b, 'warm');
await ours(pairs[0].a, pairs[0].b);

const rows = [];
for (const [i, p] of pairs.entries()) {
  // Alternate which goes first, so drift in the machine's load hits both alike.
  let ff;
  let us;
  if (i % 2 === 0) {
    ff = await ffmpegPeer(p.a, p.b, i);
    us = await ours(p.a, p.b);
  } else {
    us = await ours(p.a, p.b);
    ff = await ffmpegPeer(p.a, p.b, i);
  }
  rows.push({ slot: p.slot, difference: p.difference, ffmpeg_ms: ff, measure_pair_ms: us, ratio: us / ff, ms_per_frame: us / frames, ffmpeg_ms_per_frame: ff / frames });
  log(`  ${p.slot.padEnd(22)} ${p.difference.padEnd(16)} ffmpeg ${fmt(ff)}  measurePair ${fmt(us)}  ratio ${(us / ff).toFixed(2)}  (${(us / frames).toFixed(1)} ms/frame)`);
}
const medianRatio = median(rows.map((r) => r.ratio));

let throughput = null;
if (!args['no-pool']) {
  log(`throughput: the pool (${machine.cpus >= 2 ? 2 : 1} threads) over ${pairs.length} pairs vs FFmpeg peers two at a time...`);
  const threads = Math.min(2, machine.cpus);
  let started = performance.now();
  await limited(pairs.map((p, i) => () => ffmpegPeer(p.a, p.b, `pool-${i}`)), threads);
  const ffAll = performance.now() - started;
  const pool = createMeasurePool({ threads });
  try {
    started = performance.now();
    const outcomes = await Promise.all(pairs.map((p) => pool.measure({ id: p.slot, baseline: p.a, candidate: p.b })));
    if (!outcomes.every((o) => o.ok)) throw new Error('a pooled pair failed');
  } finally {
    await pool.destroy();
  }
  const poolAll = performance.now() - started;
  throughput = { threads, ffmpeg_ms: ffAll, pool_ms: poolAll, ratio: poolAll / ffAll, pool_ms_per_frame: poolAll / (pairs.length * frames) };
  log(`  ffmpeg x${threads} ${fmt(ffAll)}  pool x${threads} ${fmt(poolAll)}  ratio ${(poolAll / ffAll).toFixed(2)}`);
}

const skimage = await skimagePerFrame(pairs[0].a, pairs[0].b);
log(
  skimage
    ? `scikit-image ${skimage.version}, per frame: Gaussian SSIM on Y ${skimage.ssim_gaussian_y_ms.toFixed(1)} ms + 7x7 SSIM on rgb24 ${skimage.ssim_rgb7_ms.toFixed(1)} ms = ${skimage.ms_per_frame.toFixed(1)} ms (two of measurePair's metrics, no decoding); ours ${skimage.ours.ssim_gaussian_y_ms.toFixed(1)} + ${skimage.ours.ssim_rgb7_ms.toFixed(1)} ms`
    : `scikit-image: not installed (${PYTHON} -c "import skimage" fails), skipped`,
);

let rss = null;
if (args.rss) {
  const long = await fixturePairs(1, 64);
  log('peak RSS of a child process measuring one pair...');
  const short = await rssChild(pairs[0].a, pairs[0].b);
  const longer = await rssChild(long.pairs[0].a, long.pairs[0].b);
  rss = { short_s: 8, long_s: 64, short_kib: short.maxRssKiB, long_kib: longer.maxRssKiB, difference: longer.maxRssKiB / short.maxRssKiB - 1, long_ms: longer.ms };
  log(`  8 s pair ${(short.maxRssKiB / 1024).toFixed(0)} MiB, 64 s pair ${(longer.maxRssKiB / 1024).toFixed(0)} MiB: ${(rss.difference * 100).toFixed(1)}% apart`);
}

rmSync(tmp, { recursive: true, force: true });
const result = { machine, decoder: tools.ffmpeg.version, frames, pairs: rows, median_ratio: medianRatio, median_ms_per_frame: median(rows.map((r) => r.ms_per_frame)), throughput, skimage, rss };
mkdirSync(path.dirname(args.json), { recursive: true });
writeFileSync(args.json, `${JSON.stringify(result, null, 2)}\n`);
process.stdout.write(
  [
    `median ratio measurePair / FFmpeg ssim+psnr: ${medianRatio.toFixed(2)} (bar 3.0, aim 1.5) over ${rows.length} pairs`,
    `median per frame: measurePair ${result.median_ms_per_frame.toFixed(1)} ms, FFmpeg ${median(rows.map((r) => r.ffmpeg_ms_per_frame)).toFixed(1)} ms`,
    throughput ? `throughput ratio (pool x${throughput.threads} / FFmpeg x${throughput.threads}): ${throughput.ratio.toFixed(2)}` : null,
    skimage ? `scikit-image (two SSIMs only, no decoding): ${skimage.ms_per_frame.toFixed(1)} ms per frame` : null,
    skimage ? `Gaussian SSIM kernel vs scikit-image per frame: ${skimage.gaussian_ratio.toFixed(1)}x faster (bar 12x); 7x7 SSIM: ${skimage.rgb7_ratio.toFixed(1)}x` : null,
    rss ? `peak RSS 8 s vs 64 s pair: ${(rss.difference * 100).toFixed(1)}% apart (bar 10%)` : null,
    `figures: ${path.relative(process.cwd(), args.json)}`,
  ]
    .filter(Boolean)
    .join('\n') + '\n',
);
