#!/usr/bin/env node
// What a bundle weighs beside its source MP4s, by kind of file. The bar
// (issue "bundle size"): a full-size bundle (20 pairs of 8 s 1344x768 clips
// per comparison) is at most the source MP4s plus 10%.
// A benchmark, run by hand; never a test.
//
//   node bench/bundle-size.mjs [--size full|small] [--runs DIR] [--out DIR] [--threads T] [--json FILE]
//   node bench/bundle-size.mjs --bundle DIR          (only weigh a bundle that exists)
//
//   --size     full: the formal campaign, `fidelity generate --full --sites H200,B200`
//              (20 cases, 8 s, 1344x768, 24 fps); small: the test-size runs, to prove the script works
//   --runs     a folder holding the generated runs (synth-manifest.json, h200/, b200/) instead of bench/out/
//   --out      where to write the bundle (default bench/out/bundle-size-<size>/bundle; replaced if it exists)
//   --threads  compare()'s threads (default 2)
//   --bundle   weigh DIR and stop: no generate, no compare (e.g. a bundle an older version wrote)
//
// Needs the built library (npx tsc -b packages/fidelity). The runs are made
// once into bench/out/ (git-ignored) and reused; the bundle is written to
// bench/out/bundle-size-<size>/bundle with SOURCE_DATE_EPOCH set, so two runs
// of the script on one machine give the same bytes.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    size: { type: 'string', default: 'full' },
    runs: { type: 'string' },
    threads: { type: 'string', default: '2' },
    bundle: { type: 'string' },
    out: { type: 'string' },
    json: { type: 'string' },
  },
});
if (!['full', 'small'].includes(args.size)) throw new Error(`--size is full or small, not ${args.size}`);
const threads = Number(args.threads);
if (!Number.isInteger(threads) || threads < 1) throw new Error(`--threads must be a positive integer, not ${args.threads}`);
const log = (line = '') => process.stderr.write(`${line}\n`);

const KINDS = ['mp4', 'webp', 'png', 'flac', 'wav', 'html', 'json', 'csv', 'other'];
const kindOf = (file) => {
  const ext = path.extname(file).slice(1).toLowerCase();
  return KINDS.includes(ext) && ext !== 'other' ? ext : 'other';
};

/** Every plain file under dir, with its bundle-relative path and size. */
function walk(dir, rel = '') {
  const out = [];
  for (const name of readdirSync(path.join(dir, rel)).sort()) {
    const r = rel ? `${rel}/${name}` : name;
    const st = statSync(path.join(dir, r));
    if (st.isDirectory()) out.push(...walk(dir, r));
    else if (st.isFile()) out.push({ path: r, bytes: st.size });
  }
  return out;
}

function weigh(dir) {
  const files = walk(dir);
  const byKind = Object.fromEntries(KINDS.map((k) => [k, { files: 0, bytes: 0 }]));
  for (const f of files) {
    const k = byKind[kindOf(f.path)];
    k.files++;
    k.bytes += f.bytes;
  }
  const total = files.reduce((n, f) => n + f.bytes, 0);
  const mp4 = byKind.mp4.bytes;
  const largest = files.filter((f) => kindOf(f.path) !== 'mp4').sort((a, b) => b.bytes - a.bytes || (a.path < b.path ? -1 : 1)).slice(0, 10);
  return { dir, files: files.length, total, mp4, extra: total - mp4, overhead_pct: mp4 > 0 ? ((total - mp4) / mp4) * 100 : null, by_kind: byKind, largest };
}

const kB = (n) => `${(n / 1000).toFixed(1)} kB`;
const MB = (n) => `${(n / 1e6).toFixed(2)} MB`;
function print(w) {
  const out = (line = '') => process.stdout.write(`${line}\n`);
  out(`bundle ${w.dir}: ${w.files} files, ${MB(w.total)}`);
  out(`${'kind'.padEnd(6)} ${'files'.padStart(5)} ${'bytes'.padStart(12)} ${'size'.padStart(11)}`);
  for (const k of KINDS) {
    const v = w.by_kind[k];
    out(`${k.padEnd(6)} ${String(v.files).padStart(5)} ${String(v.bytes).padStart(12)} ${(v.bytes >= 1e6 ? MB(v.bytes) : kB(v.bytes)).padStart(11)}`);
  }
  out(`besides the MP4s: ${MB(w.extra)}; overhead over the MP4s: ${w.overhead_pct === null ? 'n/a (no MP4)' : `${w.overhead_pct.toFixed(1)}%`} (bar: at most 10%)`);
  out('largest files besides the MP4s:');
  for (const f of w.largest) out(`  ${kB(f.bytes).padStart(10)}  ${f.path}`);
}

async function main() {
  if (args.bundle) {
    const w = weigh(path.resolve(args.bundle));
    print(w);
    if (args.json) writeFileSync(args.json, `${JSON.stringify(w, null, 2)}\n`);
    return;
  }
  const lib = await import(pathToFileURL(path.join(root, 'packages/fidelity/dist/index.js')).href);
  const { compare, generateRuns, MANIFEST_FILE } = lib;
  const work = path.join(root, 'bench/out', `bundle-size-${args.size}`);
  const runsDir = args.runs ? path.resolve(args.runs) : path.join(work, 'runs');
  const manifestFile = path.join(runsDir, MANIFEST_FILE);
  if (!existsSync(manifestFile)) {
    if (args.runs) throw new Error(`${runsDir} holds no ${MANIFEST_FILE}`);
    log(`generating the ${args.size} H200 and B200 runs into ${path.relative(root, runsDir)} (once)...`);
    const started = performance.now();
    // As `fidelity generate [--full] --sites H200,B200`: the size's own case count and clip length.
    await generateRuns({ outDir: runsDir, size: args.size, sites: ['H200', 'B200'], overwrite: true });
    log(`  generated in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
  const runDir = (site) => path.join(runsDir, manifest.runs.find((r) => r.site === site).folder);
  const out = args.out ? path.resolve(args.out) : path.join(work, 'bundle');
  mkdirSync(work, { recursive: true });
  // A fixed generation time: the bundle's bytes then depend on its inputs only.
  process.env.SOURCE_DATE_EPOCH ??= '1764460800';
  log(`machine: ${os.availableParallelism?.() ?? os.cpus().length} cores, load ${os.loadavg()[0].toFixed(2)}; comparing (${threads} threads) into ${out}...`);
  const started = performance.now();
  const result = await compare(runDir('H200'), [runDir('B200')], { out, threads, force: true });
  log(`  compared in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const w = weigh(out);
  const cmp = result.report?.comparisons?.[0]?.summary;
  if (cmp) log(`  pairs: planned ${cmp.planned}, valid ${cmp.valid_pairs}, passed ${cmp.passed}, failed ${cmp.failed}, invalid ${cmp.invalid}`);
  print(w);
  const json = args.json ?? path.join(work, 'results.json');
  writeFileSync(json, `${JSON.stringify({ size: args.size, runs: runsDir, ...w }, null, 2)}\n`);
  log(`results: ${path.relative(root, json)}`);
}

await main();
