#!/usr/bin/env node
// Thread scaling of one pair: measurePair with 0, 1, 2, 4, ... video helper
// threads (MeasureOptions.videoThreads) against FFmpeg's ssim+psnr filters on
// the same files, each measurePair run right after its own FFmpeg run, so the
// ratio compares two runs that saw the same machine load.
//
//   node bench/scaling.mjs [--threads 0,1,2,4] [--repeats 3] [--json FILE] [A.mp4 B.mp4]
//
// Without files it takes the first differing full-size 8 s pair of
// bench/out/full-8s (the one bench/measure.mjs uses), generating it if missing.
// It imports only the measuring modules (no bundle, no sharp), so it also
// runs from a bare copy of dist/ with piscina and zod beside it; set
// FIDELITY_FFMPEG / FIDELITY_FFPROBE where the installer packages are absent.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs, promisify } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = (p) => import(pathToFileURL(path.join(root, 'packages/fidelity/dist', p)).href);
const { measurePair } = await dist('pool/measure-pair.js');
const { resolveFfmpeg } = await dist('media/ffmpeg.js');
const run = promisify(execFile);

const cores = os.availableParallelism?.() ?? os.cpus().length;
const ladder = [0, 1, 2, 4, 8, 16, 32].filter((n) => n <= cores);
const { values: args, positionals } = parseArgs({
  options: {
    threads: { type: 'string', default: ladder.join(',') },
    repeats: { type: 'string', default: '3' },
    json: { type: 'string', default: path.join(root, 'bench/out/scaling-results.json') },
  },
  allowPositionals: true,
});
const threadCounts = args.threads.split(',').map(Number);
if (!threadCounts.every((n) => Number.isInteger(n) && n >= 0)) throw new Error(`--threads: a comma-separated list of integers >= 0, not ${args.threads}`);
const repeats = Number(args.repeats);
if (!Number.isInteger(repeats) || repeats < 1) throw new Error(`--repeats must be a positive integer, not ${args.repeats}`);
const log = (line = '') => process.stderr.write(`${line}\n`);

/** The first differing full-size 8 s pair of bench/out/full-8s, generated there first when missing (as measure.mjs does). */
async function defaultPair() {
  const dir = path.join(root, 'bench/out/full-8s');
  const manifestFile = path.join(dir, 'synth-manifest.json');
  if (!existsSync(manifestFile)) {
    log(`generating full-size 8 s pairs into ${path.relative(root, dir)} (once)...`);
    const { generateRuns } = await dist('synth/index.js');
    await generateRuns({ outDir: dir, size: 'full', seconds: 8, sites: ['H200', 'B200'], cases: 5, overwrite: true });
  }
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
  const slot = manifest.slots.find((s) => s.site === 'B200' && s.expected !== 'invalid' && s.difference !== 'identical');
  const runDir = (site) => path.join(dir, manifest.runs.find((r) => r.site === site).folder);
  return [path.join(runDir('H200'), 'media', `${slot.slot_id}.mp4`), path.join(runDir('B200'), 'media', `${slot.slot_id}.mp4`)];
}
const [a, b] = positionals.length === 2 ? positionals : await defaultPair();

const tools = await resolveFfmpeg();
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-scaling-'));
async function ffmpegPeer() {
  const graph = `[0:v]split[a1][a2];[1:v]split[b1][b2];[a1][b1]ssim=stats_file=${path.join(tmp, 'ssim.log')};[a2][b2]psnr=stats_file=${path.join(tmp, 'psnr.log')}`;
  const started = performance.now();
  await run(tools.ffmpeg.path, ['-hide_banner', '-nostdin', '-v', 'error', '-i', a, '-i', b, '-lavfi', graph, '-f', 'null', '-']);
  return performance.now() - started;
}
let frames = 0;
let reference = null;
async function ours(videoThreads) {
  const started = performance.now();
  const outcome = await measurePair(a, b, { videoThreads });
  const ms = performance.now() - started;
  if (!outcome.ok) throw new Error(`measurePair failed: ${outcome.failure.code} ${outcome.failure.message}`);
  frames = outcome.measurement.video.frames;
  // Every thread count must give the same bytes; a benchmark that changed the answer would be worthless.
  const json = JSON.stringify(outcome);
  reference ??= json;
  if (json !== reference) throw new Error(`videoThreads ${videoThreads} changed the measurement`);
  return ms;
}
const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

log(`machine: ${cores} cores (${os.cpus()[0]?.model ?? 'unknown'}), ${process.version}, load ${os.loadavg()[0].toFixed(2)}`);
log(`pair: ${path.basename(a)}; decoder: ${tools.ffmpeg.version}`);
log('warm-up...');
await ffmpegPeer();
await ours(0);

const samples = new Map(threadCounts.map((n) => [n, []]));
for (let r = 0; r < repeats; r++) {
  for (const n of threadCounts) {
    const ff = await ffmpegPeer();
    const us = await ours(n);
    samples.get(n).push({ ffmpeg_ms: ff, measure_pair_ms: us, ratio: us / ff });
    log(`  repeat ${r + 1}  videoThreads ${String(n).padStart(2)}  ffmpeg ${(ff / 1000).toFixed(2)} s  measurePair ${(us / 1000).toFixed(2)} s  ratio ${(us / ff).toFixed(2)}`);
  }
}
rmSync(tmp, { recursive: true, force: true });

const rows = threadCounts.map((n) => {
  const s = samples.get(n);
  return {
    video_threads: n,
    median_ratio: median(s.map((x) => x.ratio)),
    median_ms_per_frame: median(s.map((x) => x.measure_pair_ms)) / frames,
    ffmpeg_median_ms_per_frame: median(s.map((x) => x.ffmpeg_ms)) / frames,
    samples: s,
  };
});
const result = { machine: { cpus: cores, cpu: os.cpus()[0]?.model ?? 'unknown', node: process.version }, decoder: tools.ffmpeg.version, pair: path.basename(a), frames, rows };
mkdirSync(path.dirname(args.json), { recursive: true });
writeFileSync(args.json, `${JSON.stringify(result, null, 2)}\n`);
process.stdout.write(
  `videoThreads  measurePair ms/frame  FFmpeg ms/frame  median ratio  (${cores} cores, ${frames} frames, ${repeats} repeats)\n` +
    rows
      .map((r) => `${String(r.video_threads).padStart(12)}  ${r.median_ms_per_frame.toFixed(1).padStart(20)}  ${r.ffmpeg_median_ms_per_frame.toFixed(1).padStart(15)}  ${r.median_ratio.toFixed(2).padStart(12)}`)
      .join('\n') +
    `\nfigures: ${path.relative(process.cwd(), args.json)}\n`,
);
