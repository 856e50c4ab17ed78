#!/usr/bin/env node
// What the temporal offset diagnosis (docs/metrics.md, "Temporal offset") and verify's media
// check against the plan (docs/media.md, "Media against the plan") cost on full-size runs:
//
//  - the diagnosis: its whole work for one pair (the Y-plane copies it keeps and its 40 FFmpeg
//    SSIMs on Y), run on the pair's own decoded Y planes, against the CPU time of measurePair of
//    the same pair (this process and its ffmpeg children), alternating, so the ratio is taken on
//    the same machine at the same time; and, for the record, how far its offset-0 values (fresh
//    line buffers) are from the `ssim_ffmpeg` Y series (buffers carried from frame to frame);
//  - verify: verifyRun alone, then checkRunMedia (one ffprobe per ok slot), on a folder and a zip.
//
// A benchmark, run by hand; never a test. Medians over --rounds.
//
//   node bench/temporal-offset.mjs [--seconds S] [--rounds R] [--cases N] [--race OLD/dist/index.js]
//
// --race: also measurePair of an earlier build (its dist/index.js, e.g. main built in a folder of
// its own, without the diagnosis) against this one on the same pair, alternating, no helper
// threads, in the `ffmpeg` set (the cheapest, where the diagnosis weighs most) and the `default`
// set: the whole added cost per pair, in CPU and wall.
//
// Needs the built library (npx tsc -b packages/fidelity). The runs are made once into
// bench/out/temporal-offset/ (git-ignored) and reused.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs, promisify } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const lib = await import(pathToFileURL(path.join(root, 'packages/fidelity/dist/index.js')).href);
const { measurePair, generateRuns, resolveFfmpeg, verifyRun, checkRunMedia } = lib;
const { createTemporalOffsetSearch, ssimAgainst, carryTolerance } = await import(pathToFileURL(path.join(root, 'packages/fidelity/dist/metrics/temporal-offset.js')).href);
const run = promisify(execFile);

const { values: args } = parseArgs({ options: { seconds: { type: 'string', default: '8' }, rounds: { type: 'string', default: '5' }, cases: { type: 'string', default: '3' }, race: { type: 'string' } } });
const seconds = Number(args.seconds);
const rounds = Number(args.rounds);
const cases = Number(args.cases);

function cpuMs() {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0) * 10;
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
async function timed(task) {
  const c0 = cpuMs();
  const t0 = performance.now();
  const value = await task();
  return { wall: performance.now() - t0, cpu: cpuMs() - c0, value };
}

const out = path.join(root, 'bench', 'out', 'temporal-offset', `s${seconds}-c${cases}`);
if (!existsSync(path.join(out, 'b200'))) {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  process.stderr.write(`making full-size runs (${cases} cases, ${seconds} s) in ${out} ...\n`);
  await generateRuns({ outDir: out, size: 'full', seconds, cases, sites: ['H200', 'B200'] });
}
// c001 (spoken-greeting-s29) carries light noise on B200: a pair that differs, so the diagnosis runs.
const slot = 'measurement-r000-c001';
const [a, b] = ['h200', 'b200'].map((s) => path.join(out, s, 'media', `${slot}.mp4`));

const { ffmpeg } = await resolveFfmpeg();
// The Y planes as the decoder gives them (yuv420p, limited range): `-pix_fmt gray` would stretch them to full range.
const yuv = async (file) => (await run(ffmpeg.path, ['-v', 'error', '-i', file, '-map', '0:v', '-f', 'rawvideo', '-pix_fmt', 'yuv420p', 'pipe:1'], { encoding: 'buffer', maxBuffer: 2 ** 31 })).stdout;
const [fa, fb] = await Promise.all([yuv(a), yuv(b)]);
const probe = await measurePair(a, b, { videoThreads: 0, metrics: 'all' });
if (!probe.ok) throw new Error(probe.failure.message);
const { width, height, frames } = probe.measurement.video;
const plane = width * height;
const frameBytes = plane + 2 * ((width + 1) >> 1) * ((height + 1) >> 1);
if (fa.length !== frameBytes * frames || fb.length !== frameBytes * frames) throw new Error('decoded frames do not match the frame count');
const yOf = (buf, i) => buf.subarray(i * frameBytes, i * frameBytes + plane);

function diagnosis() {
  const s = createTemporalOffsetSearch(width, height, frames);
  for (let i = 0; i < frames; i++) s.add(i, yOf(fa, i), yOf(fb, i));
  return s.finish();
}

const rows = { diagnosis: [], pair: [] };
for (let r = 0; r < rounds; r++) {
  // Alternating which goes first.
  for (const what of r % 2 === 0 ? ['pair', 'diagnosis'] : ['diagnosis', 'pair']) {
    rows[what].push(await timed(async () => (what === 'pair' ? measurePair(a, b, { videoThreads: 0, metrics: 'ffmpeg' }) : diagnosis())));
  }
}
const result = diagnosis();
const pairCpu = median(rows.pair.map((x) => x.cpu));
const pairWall = median(rows.pair.map((x) => x.wall));
console.log(`pair ${slot}: ${width}x${height}, ${frames} frames; diagnosis frames ${result.frames}, sampled ${result.searched.sampled_frames.length}, means ${result.searched.ssim_means.map((x) => x.toFixed(4)).join(' ')}`);
console.log(`measurePair (ffmpeg set, no helper threads): CPU ${pairCpu} ms, wall ${pairWall.toFixed(0)} ms (medians of ${rounds})`);
const dCpu = median(rows.diagnosis.map((x) => x.cpu));
const dWall = median(rows.diagnosis.map((x) => x.wall));
console.log(`diagnosis alone (40 SSIMs and the plane copies): CPU ${dCpu} ms, wall ${dWall.toFixed(1)} ms = ${((100 * dCpu) / pairCpu).toFixed(1)}% of the pair's CPU in the ffmpeg set`);
// Offset 0's SSIM (fresh line buffers) of every frame against the metric's Y (carried): how far the carry moves it.
const series = probe.measurement.video.ssim_ffmpeg.y.per_frame;
const gaps = series.map((y, i) => Math.abs(ssimAgainst([yOf(fa, i)], yOf(fb, i), width, height)[0] - y));
console.log(
  `fresh line buffers against video.ssim_ffmpeg.y (carried), every frame: largest difference ${Math.max(...gaps).toExponential(2)}, equal bits on ${gaps.filter((g) => g === 0).length} of ${gaps.length} frames; merge's tolerance ${carryTolerance(height).toExponential(2)}`,
);

if (args.race) {
  const old = await import(pathToFileURL(path.resolve(args.race)).href);
  for (const metrics of ['ffmpeg', 'default']) {
    const race = { old: [], now: [] };
    for (let r = 0; r < rounds; r++) {
      for (const which of r % 2 === 0 ? ['old', 'now'] : ['now', 'old']) {
        const fn = which === 'old' ? old.measurePair : measurePair;
        race[which].push(await timed(() => fn(a, b, { videoThreads: 0, metrics })));
      }
    }
    const [oc, nc] = [median(race.old.map((x) => x.cpu)), median(race.now.map((x) => x.cpu))];
    const [ow, nw] = [median(race.old.map((x) => x.wall)), median(race.now.map((x) => x.wall))];
    console.log(`race, ${metrics} set, measurePair before -> now (medians of ${rounds}, alternating): CPU ${oc} -> ${nc} ms (+${nc - oc} ms, ${(nc / oc).toFixed(3)}x), wall ${ow.toFixed(0)} -> ${nw.toFixed(0)} ms (${(nw / ow).toFixed(3)}x)`);
  }
}

// verify: the archive alone, then its media against the plan.
for (const form of ['dir', 'zip']) {
  let source = path.join(out, 'h200');
  if (form === 'zip') {
    source = path.join(out, 'h200.zip');
    if (!existsSync(source)) await run('sh', ['-c', `cd "${path.join(out, 'h200')}" && zip -q -r -0 "${source}" .`]);
  }
  const v = [];
  const m = [];
  let slots = 0;
  for (let r = 0; r < rounds; r++) {
    const verified = await timed(() => verifyRun(source));
    if (!verified.value.ok) throw new Error(`${source} is not valid`);
    const media = await timed(() => checkRunMedia(verified.value.run, { concurrency: 2 }));
    slots = media.value.slots.length;
    await verified.value.run.close();
    v.push(verified);
    m.push(media);
  }
  console.log(
    `verify ${form} (${slots} ok slots): verifyRun wall ${median(v.map((x) => x.wall)).toFixed(0)} ms; checkRunMedia wall ${median(m.map((x) => x.wall)).toFixed(0)} ms, CPU ${median(m.map((x) => x.cpu))} ms (${(median(m.map((x) => x.wall)) / slots).toFixed(0)} ms wall per slot)`,
  );
}
