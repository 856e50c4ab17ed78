#!/usr/bin/env node
// Start-up: what a command costs before it does its own work (issue #42: "a command loads only
// what it uses"). Each case is a fresh node process, timed from spawn to exit:
//
//   node -e 1            node itself, the floor every command stands on
//   --version            the CLI's version: no library room at all
//   --help               the command list: the command table is data, no command module loads
//   verify <run>         a whole command: verify's module and the library rooms it uses
//                        (archive, schemas, media probes), never measuring, pages or octokit
//   import library       `await import('media-fidelity')`: what a library user pays at import
//
// Wall time and the child's CPU (user and system: /proc/self/stat cutime and cstime after each
// child is reaped, 10 ms ticks, Linux only; "-" elsewhere). Cases are run round-robin, so load
// from other work spreads over all of them; figures are medians. A benchmark, run by hand; never a
// test.
//
//   node bench/startup.mjs [--rounds N] [--before DIR] [--json FILE]
//
//   --rounds   runs of each case (default 7)
//   --before   also time the checkout in DIR (a copy of this repository built before a change, with
//              its node_modules), same rounds, alternating which goes first: before and after under
//              the same load
//
// Needs the built packages (npm run build).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '7' },
    before: { type: 'string' },
    json: { type: 'string' },
  },
});
const rounds = Number(args.rounds);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds takes a positive integer, not ${args.rounds}`);

/** The cases of one checkout: argv for node, run in that checkout. */
function cases(dir) {
  const bin = path.join(dir, 'packages/cli/bin/fidelity.js');
  const lib = path.join(dir, 'packages/fidelity/dist/index.js');
  if (!existsSync(path.join(dir, 'packages/cli/dist/main.js'))) throw new Error(`${dir}: not built (npm run build)`);
  return [
    { name: 'node -e 1', argv: ['-e', '1'] },
    { name: 'fidelity --version', argv: [bin, '--version'] },
    { name: 'fidelity --help', argv: [bin, '--help'] },
    { name: 'fidelity verify fixtures/runs/h200', argv: [bin, 'verify', path.join(dir, 'fixtures/runs/h200')] },
    { name: "import('media-fidelity')", argv: ['--input-type=module', '-e', `await import(${JSON.stringify(lib)})`] },
  ].map((c) => ({ ...c, dir }));
}

/** utime, stime of this process's reaped children in ms (/proc/self/stat fields 16 and 17), or null off Linux. */
function childCpu() {
  if (process.platform !== 'linux') return null;
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state); cutime is field 16, cstime field 17; ticks are 10 ms (USER_HZ 100).
  return { user: Number(fields[13]) * 10, sys: Number(fields[14]) * 10 };
}

function runOnce(c) {
  const cpu0 = childCpu();
  const t0 = performance.now();
  const r = spawnSync(process.execPath, c.argv, { cwd: c.dir, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const wall = performance.now() - t0;
  const cpu1 = childCpu();
  // verify exits 0 on a valid run; every case here should succeed, and a failure is not a timing.
  if (r.status !== 0) throw new Error(`${c.name} (${c.dir}) exited ${r.status}: ${r.stderr}`);
  return { wall, user: cpu1 ? cpu1.user - cpu0.user : null, sys: cpu1 ? cpu1.sys - cpu0.sys : null };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const builds = [{ label: 'this build', dir: root }, ...(args.before ? [{ label: 'before', dir: path.resolve(args.before) }] : [])];
const table = builds.map((b) => ({ ...b, cases: cases(b.dir).map((c) => ({ ...c, runs: [] })) }));
// One warm-up of each, unrecorded: the first run reads every file from disk.
for (const b of table) for (const c of b.cases) runOnce(c);
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? table : [...table].reverse();
  for (let i = 0; i < table[0].cases.length; i++) for (const b of order) b.cases[i].runs.push(runOnce(b.cases[i]));
}

const ms = (x) => (x === null ? '-' : `${Math.round(x)}`);
const results = [];
for (const b of table) {
  console.log(`${b.label} (${b.dir}); medians of ${rounds} runs, ms`);
  console.log(`  ${'case'.padEnd(36)}${'wall'.padStart(7)}${'user'.padStart(7)}${'sys'.padStart(7)}`);
  for (const c of b.cases) {
    const row = {
      build: b.label,
      case: c.name,
      wall: median(c.runs.map((x) => x.wall)),
      user: c.runs[0].user === null ? null : median(c.runs.map((x) => x.user)),
      sys: c.runs[0].sys === null ? null : median(c.runs.map((x) => x.sys)),
    };
    results.push(row);
    console.log(`  ${c.name.padEnd(36)}${ms(row.wall).padStart(7)}${ms(row.user).padStart(7)}${ms(row.sys).padStart(7)}`);
  }
}
if (args.json) writeFileSync(args.json, `${JSON.stringify({ rounds, results }, null, 2)}\n`);
