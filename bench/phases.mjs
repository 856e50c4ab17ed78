#!/usr/bin/env node
// compare() end to end, phase by phase, against FFmpeg's ssim+psnr on the same pairs and against
// the sum of its pairs' own measuring time (measurePair alone, one pair after another):
//
//   setup      claiming --out, resolving ffmpeg (call -> first verify event)
//   verify     verifying every archive and planning the pairs (-> first measure event)
//   measure    the pool: probe, the media check against the plan, decode, metrics, temporal offset
//              (-> the last pair's end); its ffprobe and ffmpeg children are listed apart below
//   assemble   pool teardown and judging into the report model (-> first bundle event)
//   media      the bundle's MP4 copies, hashed as they are written
//   sources    the runs' metadata files
//   pairs      frames CSV, stills, heat maps, difference audio and waveforms per pair
//   pages      report.json, its schema, both pages
//   seal       hashing every file into SHA256SUMS and the atomic rename
//
// Every phase has its wall time and its CPU time (this process with its worker threads, plus the
// children that exited during the phase: /proc/self/stat, Linux only; a child still running at a
// boundary counts where it ends). Every ffmpeg/ffprobe child compare starts is logged by a small
// wrapper that FIDELITY_FFMPEG points at (bash around the real binary: start, end, CPU via `times`,
// its arguments), so the runs per distinct input file are counted. The wrapper costs a bash start per
// child (a few ms); the FFmpeg peer runs the real binary.
// A benchmark, run by hand; never a test.
//
//   node bench/phases.mjs [--size full|small|short] [--seconds S] [--pairs 2[,20]] [--rounds R]
//                         [--sets ffmpeg,default,all,inferencex] [--threads T] [--json FILE]
//
//   --size      full: the generator's 1344x768 8 s clips (the full-size bars); small: test-size clips,
//               to prove the script runs; short: users' shape of clip (720x528, 84 frames at
//               24000/1001, H.264 with B-frames, AAC 48 kHz; bench/short-clips.mjs), 4 fixed pairs
//               (--pairs and --seconds do not apply), --sets default unless given, and the race below
//   --pairs     comma-separated pair counts (default 2; 20 is slow on a small machine, so it is asked for)
//   --rounds    alternating rounds per pair count and set (default 3; figures are medians)
//   --threads   compare()'s threads and the FFmpeg peers run at once (default 2)
//   --before D  also race the build in D (a copy of packages/fidelity/dist made before a change, kept
//               inside packages/fidelity so it finds the same node_modules) against this one, same
//               rounds, alternating which goes first: how each cut is checked against the build before it
//
// With --size short, every round of the first set also races, in the same alternating order, what a
// user or an evaluator would run on those 4 pairs, each a fresh process timed from spawn to exit
// (wall, and CPU with its children: this process's cutime/cstime grow by the child's tree when it
// is reaped, and this process idles meanwhile):
//   cli         `fidelity compare BASE CAND --out DIR` (default set, default threads)
//   cli-ix      `fidelity compare ... --metrics inferencex --threads 1`
//   inferencex  InferenceX's recipe, `python3 packages/fidelity/test/metrics/inferencex-recipe.py
//               --compare-media B C B C ...`: one process (it decodes with PyAV on one core)
//   version     `fidelity --version`, three times a round, and `node -e 0` three times (the floor)
//   decoding    each side's decoding alone, nothing measured: the ffmpeg runs fidelity's decoders make
//               (per pair both videos at -threads 1, then both audio streams at -cpuflags 0, to the null
//               muxer), one after another; and the recipe's PyAV decoding (rgb24 frames, audio arrays)
// and prints the ratios of the short-clip bars (docs/performance.md): cli and cli-ix wall and CPU over
// InferenceX's, cli-ix CPU / cli CPU, and the median --version wall; and what each side spends beyond its
// decoding (its CPU less its decoding's).
//
// Needs the built library (npx tsc -b packages/fidelity). Runs are generated once into bench/out/
// (git-ignored), one pair per plan case (warmups are not compared), and reused.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { shortRuns } from './short-clips.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const lib = await import(pathToFileURL(path.join(root, 'packages/fidelity/dist/index.js')).href);
// The environment fidelity gives its ffmpeg children (OpenBLAS on one thread), for the decoding floor below.
const { childEnv } = await import(pathToFileURL(path.join(root, 'packages/fidelity/dist/media/child-env.js')).href);
const { measurePair, compare, generateRuns, resolveFfmpeg, resolveMetrics, MANIFEST_FILE } = lib;
const run = promisify(execFile);

const { values: args } = parseArgs({
  options: {
    size: { type: 'string', default: 'full' },
    seconds: { type: 'string', default: '8' },
    pairs: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '3' },
    sets: { type: 'string' },
    threads: { type: 'string', default: '2' },
    json: { type: 'string', default: path.join(root, 'bench/out/phases-results.json') },
    before: { type: 'string' },
  },
});
const positive = (name, value = args[name]) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer, not ${value}`);
  return n;
};
const before = args.before ? await import(pathToFileURL(path.join(path.resolve(args.before), 'index.js')).href) : null;
const rounds = positive('rounds');
const threads = positive('threads');
const seconds = positive('seconds');
if (!['full', 'small', 'short'].includes(args.size)) throw new Error(`--size is full, small or short, not ${args.size}`);
const short = args.size === 'short';
// The short set has its 4 pairs and no other count; the key only names them in the results.
const pairCounts = short ? [4] : args.pairs.split(',').map((p) => positive('pairs', p.trim()));
const sets = (args.sets ?? (short ? 'default' : 'ffmpeg,default,all,inferencex')).split(',').map((s) => s.trim());
for (const s of sets) resolveMetrics(s); // refuses an unknown set before any work

const log = (line = '') => process.stderr.write(`${line}\n`);
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-bench-phases-'));
const tools = await resolveFfmpeg();
const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmt = (ms) => `${(ms / 1000).toFixed(2)} s`;

/** The wrapper pair: ffmpeg and ffprobe in one folder, each logging one line per run to `logFile`. */
function makeWrappers(logFile) {
  const dir = path.join(tmp, 'wrap');
  mkdirSync(dir, { recursive: true });
  for (const [name, real] of [['ffmpeg', tools.ffmpeg.path], ['ffprobe', tools.ffprobe.path]]) {
    const file = path.join(dir, name);
    // The shell's own /proc stat line after the binary exited: cutime and cstime are the binary's CPU
    // (read with a builtin: a forked subshell would start its own, empty, child accounting).
    // The decoders read their inputs through links named 0.mp4, 1.mp4 in a folder of their own
    // (media/input-links.ts), so each link is logged as its target, resolved after the stat read
    // (its readlink is not in the child's own CPU) and before the wrapper exits (the parent removes the links then).
    writeFileSync(
      file,
      `#!/bin/bash
s=$EPOCHREALTIME
${JSON.stringify(real)} "$@"
rc=$?
e=$EPOCHREALTIME
read -r stat < /proc/$$/stat
args=()
for a in "$@"; do if [[ -L $a ]]; then args+=("$(readlink -f -- "$a")"); else args+=("$a"); fi; done
{ printf '%s\\t%s\\t%s\\t%s\\t%s' ${name} "$s" "$e" "$rc" "\${stat##*) }"; for a in "\${args[@]}"; do printf '\\t%s' "$a"; done; printf '\\n'; } >> ${JSON.stringify(logFile)}
exit $rc
`,
    );
    chmodSync(file, 0o755);
  }
  return path.join(dir, 'ffmpeg');
}

/** /proc/<pid>/stat from the state field on -> cutime + cstime (fields 16 and 17, 10 ms ticks) in ms. */
const childCpu = (text) => {
  const fields = text.trim().split(' ');
  return (Number(fields[13]) + Number(fields[14])) * 10;
};
const sha256 = (file) => createHash('sha256').update(readFileSync(file)).digest('hex');
const contentKeys = new Map();
/** A media file's content: a bundle copy is named by its SHA-256; a run's file is hashed (once). */
function contentOf(file) {
  const named = /([0-9a-f]{64})\.mp4$/.exec(file);
  if (named) return named[1];
  if (!contentKeys.has(file)) contentKeys.set(file, existsSync(file) ? sha256(file) : file);
  return contentKeys.get(file);
}

function readChildren(logFile) {
  if (!existsSync(logFile)) return [];
  return readFileSync(logFile, 'utf8').split('\n').filter(Boolean).map((line) => {
    const [kind, s, e, rc, cpu, ...argv] = line.split('\t');
    // Wall clock of the child (bash's EPOCHREALTIME, epoch seconds) in performance.now()'s time base.
    const start = Number(s) * 1000 - performance.timeOrigin;
    const end = Number(e) * 1000 - performance.timeOrigin;
    const inputs = argv.filter((a) => /\.(mp4|m4v|mov)$/i.test(a));
    const version = argv.includes('-version');
    return { kind, start, end, wall: end - start, cpu: childCpu(cpu), rc: Number(rc), inputs, version };
  });
}

/** Two runs (H200 baseline, B200 candidate) of `count` plan cases (so `count` pairs), generated once and reused. */
async function fixtureRuns(count) {
  if (short) return shortRuns({ root, lib, ffmpeg: tools.ffmpeg.path, log });
  const dir = path.join(root, 'bench/out', args.size === 'full' ? `phases-full-${seconds}s-${count}` : `phases-small-${count}`);
  const manifestFile = path.join(dir, MANIFEST_FILE);
  const pick = (manifest) => {
    const runDir = (site) => path.join(dir, manifest.runs.find((r) => r.site === site).folder);
    const measurable = manifest.slots.filter((s) => s.site === 'B200' && s.expected !== 'invalid');
    const pairs = measurable.map((s) => ({ a: path.join(runDir('H200'), 'media', `${s.slot_id}.mp4`), b: path.join(runDir('B200'), 'media', `${s.slot_id}.mp4`) }));
    return { baseline: runDir('H200'), candidate: runDir('B200'), pairs, planned: manifest.slots.filter((s) => s.site === 'B200').length };
  };
  let manifest = existsSync(manifestFile) ? JSON.parse(readFileSync(manifestFile, 'utf8')) : null;
  if (!manifest) {
    log(`generating runs into ${path.relative(root, dir)} (once)...`);
    const options = { outDir: dir, size: args.size, sites: ['H200', 'B200'], cases: count, overwrite: true };
    await generateRuns(args.size === 'full' ? { ...options, seconds } : options);
    manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
  }
  return pick(manifest);
}

/** FFmpeg's own SSIM and PSNR of a pair: decode both, the ssim and psnr filters, stats files. */
async function ffmpegPeer(a, b) {
  const tag = Math.random().toString(36).slice(2);
  const graph = `[0:v]split[a1][a2];[1:v]split[b1][b2];[a1][b1]ssim=stats_file=${path.join(tmp, `ssim-${tag}.log`)};[a2][b2]psnr=stats_file=${path.join(tmp, `psnr-${tag}.log`)}`;
  await run(tools.ffmpeg.path, ['-hide_banner', '-nostdin', '-v', 'error', '-i', a, '-i', b, '-lavfi', graph, '-f', 'null', '-']);
}

/** CPU ms of this process (every thread) plus its exited children: /proc/self/stat utime, stime, cutime, cstime. */
function cpuMs() {
  if (process.platform !== 'linux') return 0;
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0) * 10;
}

async function timed(task) {
  const cpu0 = cpuMs();
  const t0 = performance.now();
  await task();
  return { wall: performance.now() - t0, cpu: cpuMs() - cpu0 };
}

async function limited(tasks, limit) {
  let next = 0;
  await Promise.all(Array.from({ length: limit }, async () => {
    while (next < tasks.length) await tasks[next++]();
  }));
}

const PHASES = ['setup', 'verify', 'measure', 'assemble', 'media', 'sources', 'pairs', 'pages', 'seal'];

/** compare() once, through the logging wrapper: per phase wall and CPU, and every child it started. */
async function comparePhases(fixture, metrics, compareFn = compare) {
  const logFile = path.join(tmp, `children-${Math.random().toString(36).slice(2)}.log`);
  const wrapper = makeWrappers(logFile);
  const out = path.join(tmp, `bundle-${metrics}`);
  const marks = []; // [phase, time, cpu] at the start of each phase
  const mark = (phase) => {
    if (marks.at(-1)?.[0] !== phase && !marks.some((m) => m[0] === phase)) marks.push([phase, performance.now(), cpuMs()]);
  };
  const saved = process.env.FIDELITY_FFMPEG;
  process.env.FIDELITY_FFMPEG = wrapper;
  const t0 = performance.now();
  mark('setup');
  try {
    await compareFn(fixture.baseline, [fixture.candidate], {
      out,
      threads,
      metrics,
      onProgress: (e) => {
        if (e.stage === 'verify') mark('verify');
        else if (e.stage === 'measure') {
          mark('measure');
          if (e.pairsDone === e.pairsTotal && e.pairsTotal > 0) mark('assemble');
        } else if (e.stage === 'bundle') mark(e.step);
      },
    });
  } finally {
    if (saved === undefined) delete process.env.FIDELITY_FFMPEG;
    else process.env.FIDELITY_FFMPEG = saved;
  }
  const end = [null, performance.now(), cpuMs()];
  rmSync(out, { recursive: true, force: true });
  const phases = {};
  for (const [i, [phase, t, c]] of marks.entries()) {
    const next = marks[i + 1] ?? end;
    phases[phase] = { wall_ms: next[1] - t, cpu_ms: next[2] - c, from: t, to: next[1] };
  }
  const children = readChildren(logFile).filter((c) => !c.version);
  const phaseOf = (child) => PHASES.find((p) => phases[p] && child.start >= phases[p].from && child.start < phases[p].to) ?? 'after';
  const byPhase = {};
  for (const c of children) {
    const key = `${phaseOf(c)} ${c.kind}`;
    byPhase[key] ??= { runs: 0, wall_ms: 0, cpu_ms: 0 };
    byPhase[key].runs++;
    byPhase[key].wall_ms += c.wall;
    byPhase[key].cpu_ms += c.cpu;
  }
  const perFile = {};
  for (const c of children) {
    for (const f of new Set(c.inputs.map(contentOf))) {
      perFile[f] ??= { ffprobe: 0, ffmpeg: 0 };
      perFile[f][c.kind]++;
    }
  }
  for (const p of Object.values(phases)) {
    delete p.from;
    delete p.to;
  }
  return { wall_ms: end[1] - t0, cpu_ms: end[2] - marks[0][2], phases, children: byPhase, runs_per_file: perFile, version_runs: readChildren(logFile).length - children.length };
}

// --- the race of --size short: the CLI as a user runs it against InferenceX's recipe -------------
const cli = path.join(root, 'packages/cli/bin/fidelity.js');
const recipe = path.join(root, 'packages/fidelity/test/metrics/inferencex-recipe.py');
/** A fresh process from spawn to exit: wall, and CPU of its whole tree (see timed). */
const spawnTimed = (file, argv) => timed(() => run(file, argv, { maxBuffer: 64 << 20 }));
function raceTasks(fixture) {
  const bundle = (tag) => {
    const out = path.join(tmp, `race-${tag}`);
    rmSync(out, { recursive: true, force: true }); // a fresh --out every time, as a first run has
    return out;
  };
  return [
    ['cli', () => spawnTimed(process.execPath, [cli, 'compare', fixture.baseline, fixture.candidate, '--out', bundle('cli')])],
    ['cli_ix', () => spawnTimed(process.execPath, [cli, 'compare', fixture.baseline, fixture.candidate, '--out', bundle('ix'), '--metrics', 'inferencex', '--threads', '1'])],
    ['inferencex', () => spawnTimed('/usr/bin/python3', [recipe, '--compare-media', ...fixture.pairs.flatMap((p) => [p.a, p.b])])],
    ['version', async () => {
      const runs = [];
      for (let i = 0; i < 3; i++) runs.push(await spawnTimed(process.execPath, [cli, '--version']));
      return runs;
    }],
    // The decoding floor of each side, nothing measured: what fidelity's decoders do (per pair one
    // ffmpeg for both videos at -threads 1 and one for both audio streams at -cpuflags 0, to the null
    // muxer, in the environment fidelity gives them), one process after another on one core; and the
    // recipe's own decoding in PyAV (every video frame to rgb24, every audio frame to an array), one
    // process. What compare spends beyond its floor is measuring and the bundle; what InferenceX
    // spends beyond its floor, its metrics.
    ['decode_ffmpeg', () => timed(async () => {
      for (const p of fixture.pairs) {
        await run(tools.ffmpeg.path, ['-nostdin', '-v', 'error', '-threads', '1', '-i', p.a, '-threads', '1', '-i', p.b, '-map', '0:v:0', '-f', 'null', '-', '-map', '1:v:0', '-f', 'null', '-'], { env: childEnv() });
        await run(tools.ffmpeg.path, ['-nostdin', '-v', 'error', '-cpuflags', '0', '-i', p.a, '-i', p.b, '-map', '0:a:0', '-f', 'null', '-', '-map', '1:a:0', '-f', 'null', '-'], { env: childEnv() });
      }
    })],
    ['decode_pyav', () => spawnTimed('/usr/bin/python3', ['-c', PYAV_DECODE, ...fixture.pairs.flatMap((p) => [p.a, p.b])])],
    // node's own start beside it: on a loaded machine --version cannot be faster than this floor.
    ['node', async () => {
      const runs = [];
      for (let i = 0; i < 3; i++) runs.push(await spawnTimed(process.execPath, ['-e', '0']));
      return runs;
    }],
  ];
}
/** The recipe's decoding alone (its clip() without keeping anything): PyAV, rgb24 frames and audio arrays. */
const PYAV_DECODE = `import sys, av
for path in sys.argv[1:]:
    with av.open(path) as c:
        for f in c.decode(c.streams.video[0]): f.to_ndarray(format="rgb24")
    with av.open(path) as c:
        for f in c.decode(c.streams.audio[0]): f.to_ndarray()
`;
/** One round's race and its ratios (the short-clip bars of docs/performance.md). */
const raceRow = (got) => ({
  cli: got.cli, cli_ix: got.cli_ix, inferencex: got.inferencex, version: got.version, node: got.node,
  decode_ffmpeg: got.decode_ffmpeg, decode_pyav: got.decode_pyav,
  cli_over_ix_wall: got.cli.wall / got.inferencex.wall,
  cli_over_ix_cpu: got.cli.cpu / got.inferencex.cpu,
  cli_ix_over_ix_wall: got.cli_ix.wall / got.inferencex.wall,
  cli_ix_over_ix_cpu: got.cli_ix.cpu / got.inferencex.cpu,
  ix_set_over_default_cpu: got.cli_ix.cpu / got.cli.cpu,
});
function raceMedians(rows) {
  const med = (f) => median(rows.map(f));
  const all = (k, f) => median(rows.flatMap((r) => r[k].map(f)));
  const out = { version_wall_ms: all('version', (v) => v.wall), version_cpu_ms: all('version', (v) => v.cpu), node_wall_ms: all('node', (v) => v.wall) };
  for (const k of ['cli', 'cli_ix', 'inferencex', 'decode_ffmpeg', 'decode_pyav']) out[k] = { wall_ms: med((r) => r[k].wall), cpu_ms: med((r) => r[k].cpu) };
  for (const k of ['cli_over_ix_wall', 'cli_over_ix_cpu', 'cli_ix_over_ix_wall', 'cli_ix_over_ix_cpu', 'ix_set_over_default_cpu']) out[k] = med((r) => r[k]);
  return out;
}
const raceLines = (r) => [
  `    fidelity compare (default set, default threads)       ${fmt(r.cli.wall_ms)} wall, ${fmt(r.cli.cpu_ms)} CPU`,
  `    fidelity compare --metrics inferencex --threads 1     ${fmt(r.cli_ix.wall_ms)} wall, ${fmt(r.cli_ix.cpu_ms)} CPU`,
  `    InferenceX's recipe, compare_media over the 4 pairs   ${fmt(r.inferencex.wall_ms)} wall, ${fmt(r.inferencex.cpu_ms)} CPU`,
  `    compare / InferenceX, wall x${r.cli_over_ix_wall.toFixed(2)} (bar 1.0); CPU x${r.cli_over_ix_cpu.toFixed(2)} (bar 1.6)`,
  `    compare --metrics inferencex / InferenceX, wall x${r.cli_ix_over_ix_wall.toFixed(2)} (bar 0.8); CPU x${r.cli_ix_over_ix_cpu.toFixed(2)} (bar 1.25); inferencex set CPU / default set CPU x${r.ix_set_over_default_cpu.toFixed(2)}`,
  `    decoding alone: fidelity's ffmpeg runs ${fmt(r.decode_ffmpeg.wall_ms)} wall, ${fmt(r.decode_ffmpeg.cpu_ms)} CPU; the recipe's PyAV ${fmt(r.decode_pyav.wall_ms)} wall, ${fmt(r.decode_pyav.cpu_ms)} CPU`,
  `    beyond decoding: compare ${fmt(r.cli.cpu_ms - r.decode_ffmpeg.cpu_ms)} CPU, InferenceX ${fmt(r.inferencex.cpu_ms - r.decode_pyav.cpu_ms)} CPU`,
  `    fidelity --version ${(r.version_wall_ms / 1000).toFixed(3)} s wall (median; bar 0.3 s), ${fmt(r.version_cpu_ms)} CPU; node -e 0 ${(r.node_wall_ms / 1000).toFixed(3)} s wall`,
];

// ---------------------------------------------------------------------------
const machine = { cpus: os.availableParallelism?.() ?? os.cpus().length, cpu: os.cpus()[0]?.model ?? 'unknown', node: process.version, load: os.loadavg()[0] };
log(`machine: ${machine.cpus} cores (${machine.cpu}), ${machine.node}, load ${machine.load.toFixed(2)}`);
log(`decoder: ${tools.ffmpeg.version}; clips: ${args.size}${args.size === 'full' ? `, ${seconds} s` : ''}; sets: ${sets.join(', ')}; pairs: ${pairCounts.join(', ')}`);

const results = {};
for (const n of pairCounts) {
  const fixture = await fixtureRuns(n);
  log(`${n} plan cases: ${fixture.pairs.length} comparable pairs of ${fixture.planned}`);
  results[n] = {};
  for (const s of sets) {
    const rows = [];
    for (let round = 0; round < rounds; round++) {
      const peer = () => timed(() => limited(fixture.pairs.map((p) => () => ffmpegPeer(p.a, p.b)), threads));
      const pairsAlone = () => timed(async () => {
        for (const p of fixture.pairs) {
          const outcome = await measurePair(p.a, p.b, { metrics: s });
          if (!outcome.ok) throw new Error(`measurePair failed: ${outcome.failure.code}`);
        }
      });
      const mine = () => comparePhases(fixture, s);
      const old = () => (before ? comparePhases(fixture, s, before.compare) : Promise.resolve(null));
      // With --size short, the first set's rounds also race the CLI and InferenceX's recipe.
      const racing = short && s === sets[0] ? raceTasks(fixture) : [];
      // Both orders across rounds: even rounds run the peer first (and the build before this one first).
      const tasks = [['ffmpeg', peer], ['alone', pairsAlone], ['before', old], ['compare', mine], ...racing];
      const got = {};
      for (const [name, task] of round % 2 === 0 ? tasks : tasks.toReversed()) got[name] = await task();
      const { ffmpeg: ff, alone, before: was, compare: us } = got;
      const race = racing.length ? raceRow(got) : null;
      if (race) log(`    race: cli ${fmt(race.cli.wall)} (CPU ${fmt(race.cli.cpu)})  cli-ix ${fmt(race.cli_ix.wall)} (CPU ${fmt(race.cli_ix.cpu)})  inferencex ${fmt(race.inferencex.wall)} (CPU ${fmt(race.inferencex.cpu)})  --version ${race.version.map((v) => fmt(v.wall)).join(', ')}  node -e 0 ${race.node.map((v) => fmt(v.wall)).join(', ')}`);
      rows.push({ round, ffmpeg: ff, pairs_alone: alone, compare: us, before: was, race, ratio: us.wall_ms / ff.wall, cpu_ratio: us.cpu_ms / ff.cpu, over_pairs: us.wall_ms / alone.wall, over_pairs_cpu: us.cpu_ms / alone.cpu, over_before: was ? us.wall_ms / was.wall_ms : null, over_before_cpu: was ? us.cpu_ms / was.cpu_ms : null });
      log(`  ${n} pairs ${s.padEnd(10)} round ${round}: ffmpeg ${fmt(ff.wall)} (CPU ${fmt(ff.cpu)})  compare ${fmt(us.wall_ms)} (CPU ${fmt(us.cpu_ms)})  pairs alone ${fmt(alone.wall)} (CPU ${fmt(alone.cpu)})${was ? `  build before ${fmt(was.wall_ms)} (CPU ${fmt(was.cpu_ms)})` : ''}`);
      if (was) for (const p of PHASES) if (was.phases[p]) log(`      before ${p.padEnd(9)} ${fmt(was.phases[p].wall_ms)} wall  ${fmt(was.phases[p].cpu_ms)} CPU`);
      for (const p of PHASES) {
        const ph = us.phases[p];
        if (ph) log(`      ${p.padEnd(9)} ${fmt(ph.wall_ms)} wall  ${fmt(ph.cpu_ms)} CPU`);
      }
      for (const [k, c] of Object.entries(us.children).sort()) log(`      child ${k.padEnd(18)} ${String(c.runs).padStart(3)} runs  ${fmt(c.wall_ms)} wall  ${fmt(c.cpu_ms)} CPU`);
      const counts = Object.values(us.runs_per_file);
      const maxOf = (k) => Math.max(0, ...counts.map((c) => c[k]));
      log(`      ${counts.length} distinct files (by content); per file at most ${maxOf('ffprobe')} ffprobe and ${maxOf('ffmpeg')} ffmpeg runs (plus ${us.version_runs} -version runs)`);
    }
    const med = (f) => median(rows.map(f));
    const phaseMedians = Object.fromEntries(PHASES.filter((p) => rows[0].compare.phases[p]).map((p) => [p, { wall_ms: med((r) => r.compare.phases[p]?.wall_ms ?? 0), cpu_ms: med((r) => r.compare.phases[p]?.cpu_ms ?? 0) }]));
    results[n][s] = {
      median_ratio: med((r) => r.ratio),
      median_cpu_ratio: med((r) => r.cpu_ratio),
      median_over_pairs: med((r) => r.over_pairs),
      median_over_pairs_cpu: med((r) => r.over_pairs_cpu),
      median_compare_ms: med((r) => r.compare.wall_ms),
      median_compare_cpu_ms: med((r) => r.compare.cpu_ms),
      median_ffmpeg_ms: med((r) => r.ffmpeg.wall),
      median_over_before: before ? med((r) => r.over_before) : null,
      median_over_before_cpu: before ? med((r) => r.over_before_cpu) : null,
      median_ffmpeg_cpu_ms: med((r) => r.ffmpeg.cpu),
      median_pairs_alone_ms: med((r) => r.pairs_alone.wall),
      median_pairs_alone_cpu_ms: med((r) => r.pairs_alone.cpu),
      phases: phaseMedians,
      race: rows[0].race ? raceMedians(rows.map((r) => r.race)) : null,
      runs: rows,
    };
  }
}

rmSync(tmp, { recursive: true, force: true });
const result = { machine, load_after: os.loadavg()[0], decoder: tools.ffmpeg.version, size: args.size, seconds: args.size === 'full' ? seconds : null, rounds, threads, results };
mkdirSync(path.dirname(args.json), { recursive: true });
writeFileSync(args.json, `${JSON.stringify(result, null, 2)}\n`);
const lines = [`medians over ${rounds} alternating rounds (${args.size} clips, --threads ${threads}), load ${machine.load.toFixed(1)} -> ${os.loadavg()[0].toFixed(1)}:`];
for (const n of pairCounts) {
  for (const s of sets) {
    const r = results[n][s];
    lines.push(
      `  ${n} pairs --metrics ${s.padEnd(10)} end to end x${r.median_ratio.toFixed(2)} FFmpeg (CPU x${r.median_cpu_ratio.toFixed(2)}); x${r.median_over_pairs.toFixed(2)} the sum of its pairs measured alone (CPU x${r.median_over_pairs_cpu.toFixed(2)})`,
    );
    if (before) lines.push(`    against the build before (${args.before}): wall x${r.median_over_before.toFixed(2)}, CPU x${r.median_over_before_cpu.toFixed(2)}`);
    lines.push(`    ${Object.entries(r.phases).map(([p, v]) => `${p} ${fmt(v.wall_ms)}/${fmt(v.cpu_ms)}`).join(', ')} (wall/CPU)`);
    if (r.race) lines.push(...raceLines(r.race));
  }
}
lines.push(`figures: ${path.relative(process.cwd(), args.json)}`);
process.stdout.write(`${lines.join('\n')}\n`);
