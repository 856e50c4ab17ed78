#!/usr/bin/env node
// Each metric set (docs/metrics.md, "Metric sets") raced against its peer on
// the same files, alternating which goes first, in one run, with the ratios:
//
//   measurePair --metrics ffmpeg          vs  ffmpeg -lavfi ssim+psnr (its own metrics; bar 1.3)
//   measurePair --metrics default / all   vs  ffmpeg -lavfi ssim+psnr (bars 3.0 / 3.5)
//   measurePair --metrics inferencex      vs  ffmpeg -lavfi ssim+psnr (bar 2.0)
//   compare() end to end, bundle included vs  the same FFmpeg peers over every measured pair
//
// and, for measurePair, the CPU time of both sides per pair (this process and its
// children, Linux only; their ratio is steadier than the wall ratio on a busy
// machine) and the floor it sets: our CPU spread perfectly over
// every core, against FFmpeg's wall time, the best ratio any scheduling could
// give; for compare(), how long the bundle step takes (media copies, stills,
// heat maps, difference audio, pages, seal: from its first progress event to the end).
// A benchmark, run by hand; never a test.
//
//   node bench/metric-sets.mjs [--size full|small] [--seconds S] [--pairs N] [--rounds R]
//                              [--sets ffmpeg,default,all,inferencex] [--threads T] [--no-compare] [--json FILE]
//
//   --size      full: 1344x768 24 fps clips (the bars' size); small: the test-size clips, to prove the script works
//   --seconds   clip length for --size full (default 8)
//   --pairs N   pairs per round for measurePair (default 2)
//   --rounds R  alternating rounds (default 3; the figures are medians over rounds and pairs)
//   --threads T compare()'s threads and the FFmpeg peers run at once (default 2)
//
// Needs the built library (npx tsc -b packages/fidelity). The runs are made
// once with the fixture generator into bench/out/ (git-ignored) and reused.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs, promisify } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const lib = await import(pathToFileURL(path.join(root, 'packages/fidelity/dist/index.js')).href);
const { measurePair, compare, generateRuns, resolveFfmpeg, resolveMetrics, MANIFEST_FILE } = lib;
const run = promisify(execFile);

const { values: args } = parseArgs({
  options: {
    size: { type: 'string', default: 'full' },
    seconds: { type: 'string', default: '8' },
    pairs: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '3' },
    sets: { type: 'string', default: 'ffmpeg,default,all,inferencex' },
    threads: { type: 'string', default: '2' },
    'no-compare': { type: 'boolean', default: false },
    json: { type: 'string', default: path.join(root, 'bench/out/metric-sets-results.json') },
  },
});
const positive = (name) => {
  const n = Number(args[name]);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer, not ${args[name]}`);
  return n;
};
const pairCount = positive('pairs');
const rounds = positive('rounds');
const threads = positive('threads');
const seconds = positive('seconds');
if (!['full', 'small'].includes(args.size)) throw new Error(`--size is full or small, not ${args.size}`);
const sets = args.sets.split(',').map((s) => s.trim());
for (const s of sets) resolveMetrics(s); // refuses an unknown set before any work

const log = (line = '') => process.stderr.write(`${line}\n`);
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-bench-sets-'));
const tools = await resolveFfmpeg();
const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmt = (ms) => `${(ms / 1000).toFixed(2)} s`;

/** Two runs (H200 baseline, B200 candidate) with at least `count` comparable pairs, generated once and reused. */
async function fixtureRuns(count) {
  const dir = path.join(root, 'bench/out', args.size === 'full' ? `sets-full-${seconds}s` : 'sets-small');
  const manifestFile = path.join(dir, MANIFEST_FILE);
  const pick = (manifest) => {
    const runDir = (site) => path.join(dir, manifest.runs.find((r) => r.site === site).folder);
    const measurable = manifest.slots.filter((s) => s.site === 'B200' && s.expected !== 'invalid');
    const pairs = [...measurable.filter((s) => s.difference !== 'identical'), ...measurable.filter((s) => s.difference === 'identical')]
      .slice(0, count)
      .map((s) => ({ slot: s.slot_id, difference: s.difference, a: path.join(runDir('H200'), 'media', `${s.slot_id}.mp4`), b: path.join(runDir('B200'), 'media', `${s.slot_id}.mp4`) }));
    return { pairs, baseline: runDir('H200'), candidate: runDir('B200'), all: measurable.map((s) => ({ a: path.join(runDir('H200'), 'media', `${s.slot_id}.mp4`), b: path.join(runDir('B200'), 'media', `${s.slot_id}.mp4`) })) };
  };
  let manifest = existsSync(manifestFile) ? JSON.parse(readFileSync(manifestFile, 'utf8')) : null;
  if (!manifest || pick(manifest).pairs.length < count) {
    log(`generating runs into ${path.relative(root, dir)} (once)...`);
    const options = { outDir: dir, size: args.size, sites: ['H200', 'B200'], cases: Math.min(20, count + 1), overwrite: true };
    await generateRuns(args.size === 'full' ? { ...options, seconds } : options);
    manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
  }
  const picked = pick(manifest);
  if (picked.pairs.length < count) throw new Error(`only ${picked.pairs.length} comparable pairs in ${dir}`);
  return picked;
}

/** FFmpeg's own SSIM and PSNR of a pair: decode both, the ssim and psnr filters, stats files. */
async function ffmpegPeer(a, b) {
  const tag = Math.random().toString(36).slice(2);
  const graph = `[0:v]split[a1][a2];[1:v]split[b1][b2];[a1][b1]ssim=stats_file=${path.join(tmp, `ssim-${tag}.log`)};[a2][b2]psnr=stats_file=${path.join(tmp, `psnr-${tag}.log`)}`;
  const started = performance.now();
  await run(tools.ffmpeg.path, ['-hide_banner', '-nostdin', '-v', 'error', '-i', a, '-i', b, '-lavfi', graph, '-f', 'null', '-']);
  return performance.now() - started;
}

/**
 * CPU time (ms) of this process (every thread) plus its finished children (ffmpeg, ffprobe), from
 * /proc/self/stat: utime, stime, cutime, cstime. Linux only (null elsewhere); a tick is 10 ms, so a
 * figure is good to about 2% for a pair of 8 s clips.
 */
function cpuMs() {
  if (process.platform !== 'linux') return null;
  const stat = readFileSync('/proc/self/stat', 'utf8');
  // Fields after the command name (which may contain spaces) start at state, field 3.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
  return ticks * 10;
}

/** Wall and CPU time of one task: CPU counts only children that have exited by its end. */
async function timed(task) {
  const cpu0 = cpuMs();
  const started = performance.now();
  await task();
  const wall = performance.now() - started;
  const cpu1 = cpuMs();
  return { wall, cpu: cpu0 === null ? null : cpu1 - cpu0 };
}

async function ours(a, b, metrics) {
  const outcome = await measurePair(a, b, { metrics });
  if (!outcome.ok) throw new Error(`measurePair failed: ${outcome.failure.code} ${outcome.failure.message}`);
}

async function limited(tasks, limit) {
  let next = 0;
  await Promise.all(Array.from({ length: limit }, async () => {
    while (next < tasks.length) await tasks[next++]();
  }));
}

/** Both orders across rounds: even rounds run the peer first, odd rounds ours. */
async function alternate(round, peer, mine) {
  if (round % 2 === 0) {
    const p = await peer();
    return [p, await mine()];
  }
  const m = await mine();
  return [await peer(), m];
}

// ---------------------------------------------------------------------------
const machine = { cpus: os.availableParallelism?.() ?? os.cpus().length, cpu: os.cpus()[0]?.model ?? 'unknown', node: process.version, load: os.loadavg()[0] };
log(`machine: ${machine.cpus} cores (${machine.cpu}), ${machine.node}, load ${machine.load.toFixed(2)}`);
log(`decoder: ${tools.ffmpeg.version}; clips: ${args.size}${args.size === 'full' ? `, ${seconds} s` : ''}; sets: ${sets.join(', ')}`);
const fixture = await fixtureRuns(pairCount);

log('warm-up (untimed)...');
await ffmpegPeer(fixture.pairs[0].a, fixture.pairs[0].b);
for (const s of sets) await ours(fixture.pairs[0].a, fixture.pairs[0].b, s);
const cores = machine.cpus;

// measurePair per set against FFmpeg on the same pair, the peer timed right next to each measurement.
const perSet = Object.fromEntries(sets.map((s) => [s, []]));
for (let round = 0; round < rounds; round++) {
  // The sets take turns in a rotated order, so none always runs on the warmest cache.
  const order = sets.map((_, i) => sets[(i + round) % sets.length]);
  for (const p of fixture.pairs) {
    for (const s of order) {
      const [ff, us] = await alternate(round, () => timed(() => ffmpegPeer(p.a, p.b)), () => timed(() => ours(p.a, p.b, s)));
      // The floor: our CPU spread perfectly over every core, against the peer's wall time. No scheduling beats it.
      const floor = us.cpu === null ? null : us.cpu / cores / ff.wall;
      const cpuRatio = us.cpu === null || !ff.cpu ? null : us.cpu / ff.cpu;
      perSet[s].push({ round, slot: p.slot, ffmpeg_ms: ff.wall, ms: us.wall, ratio: us.wall / ff.wall, ffmpeg_cpu_ms: ff.cpu, cpu_ms: us.cpu, cpu_ratio: cpuRatio, floor_ratio: floor });
      const cpu = us.cpu === null ? '' : `  CPU ${fmt(us.cpu)} vs ${fmt(ff.cpu)} (x${cpuRatio.toFixed(2)}), ${cores}-core floor ${floor.toFixed(2)}`;
      log(`  round ${round} ${p.slot.padEnd(22)} ${s.padEnd(10)} ffmpeg ${fmt(ff.wall)}  measurePair ${fmt(us.wall)}  ratio ${(us.wall / ff.wall).toFixed(2)}${cpu}`);
    }
  }
}
const medianOf = (rows, key) => (rows.every((r) => r[key] !== null) ? median(rows.map((r) => r[key])) : null);
const measureSummary = Object.fromEntries(
  sets.map((s) => [
    s,
    {
      median_ratio: median(perSet[s].map((r) => r.ratio)),
      median_ms: median(perSet[s].map((r) => r.ms)),
      median_cpu_ms: medianOf(perSet[s], 'cpu_ms'),
      median_ffmpeg_cpu_ms: medianOf(perSet[s], 'ffmpeg_cpu_ms'),
      median_cpu_ratio: medianOf(perSet[s], 'cpu_ratio'),
      median_floor_ratio: medianOf(perSet[s], 'floor_ratio'),
      runs: perSet[s],
    },
  ]),
);

// compare() end to end against the FFmpeg peers over the same measured pairs, `threads` at a time.
let compareSummary = null;
if (!args['no-compare']) {
  const rows = Object.fromEntries(sets.map((s) => [s, []]));
  const peerAll = async () => {
    const started = performance.now();
    await limited(fixture.all.map((p) => () => ffmpegPeer(p.a, p.b)), threads);
    return performance.now() - started;
  };
  for (let round = 0; round < rounds; round++) {
    const order = sets.map((_, i) => sets[(i + round) % sets.length]);
    for (const s of order) {
      let bundleStart = null;
      const out = path.join(tmp, `bundle-${s}-${round}`);
      const mine = async () => {
        const started = performance.now();
        await compare(fixture.baseline, [fixture.candidate], {
          out,
          threads,
          metrics: s,
          onProgress: (e) => {
            if (e.stage === 'bundle' && bundleStart === null) bundleStart = performance.now();
          },
        });
        const end = performance.now();
        return { total: end - started, bundle: bundleStart === null ? 0 : end - bundleStart };
      };
      const [ff, us] = await alternate(round, peerAll, mine);
      rmSync(out, { recursive: true, force: true });
      rows[s].push({ round, ffmpeg_ms: ff, compare_ms: us.total, bundle_ms: us.bundle, ratio: us.total / ff });
      log(`  round ${round} compare ${s.padEnd(10)} ffmpeg x${threads} ${fmt(ff)}  compare ${fmt(us.total)} (bundle step ${fmt(us.bundle)})  ratio ${(us.total / ff).toFixed(2)}`);
    }
  }
  compareSummary = Object.fromEntries(
    sets.map((s) => [s, { median_ratio: median(rows[s].map((r) => r.ratio)), median_compare_ms: median(rows[s].map((r) => r.compare_ms)), median_bundle_ms: median(rows[s].map((r) => r.bundle_ms)), runs: rows[s] }]),
  );
}

rmSync(tmp, { recursive: true, force: true });
const result = { machine, decoder: tools.ffmpeg.version, size: args.size, seconds: args.size === 'full' ? seconds : null, rounds, threads, pairs: fixture.pairs.length, compare_pairs: fixture.all.length, measure_pair: measureSummary, compare: compareSummary };
mkdirSync(path.dirname(args.json), { recursive: true });
writeFileSync(args.json, `${JSON.stringify(result, null, 2)}\n`);
const bars = { ffmpeg: 'bar 1.3', default: 'bar 3.0', all: 'bar 3.5', inferencex: 'bar 2.0' };
const lines = [`medians over ${rounds} alternating rounds x ${fixture.pairs.length} pairs (${args.size} clips), against FFmpeg ssim+psnr on the same files:`];
for (const s of sets) {
  const m = measureSummary[s];
  const cpu = m.median_cpu_ms === null ? '' : `; CPU ${fmt(m.median_cpu_ms)} per pair against FFmpeg's ${fmt(m.median_ffmpeg_cpu_ms)} (CPU ratio ${m.median_cpu_ratio.toFixed(2)}), so at best ${m.median_floor_ratio.toFixed(2)} on ${cores} cores`;
  lines.push(`  measurePair --metrics ${s.padEnd(10)} ratio ${m.median_ratio.toFixed(2)} (${bars[s] ?? 'no bar'})${cpu}`);
}
if (compareSummary) {
  lines.push(`compare() end to end, ${fixture.all.length} pairs, --threads ${threads}, against FFmpeg peers ${threads} at a time:`);
  for (const s of sets) {
    const c = compareSummary[s];
    lines.push(`  compare --metrics ${s.padEnd(10)} ratio ${c.median_ratio.toFixed(2)}  (compare ${fmt(c.median_compare_ms)}, of which the bundle step ${fmt(c.median_bundle_ms)})`);
  }
}
lines.push(`figures: ${path.relative(process.cwd(), args.json)}`);
process.stdout.write(`${lines.join('\n')}\n`);
