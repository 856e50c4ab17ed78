#!/usr/bin/env node
// Prints where the suite's time goes, from vitest's JSON report: the files by time, then the
// slowest tests, then the totals. A file's time is its whole time (importing it, its tests and
// hooks; not the setup files, where a serial file waits for its turn) from the per-file report
// that vitest.config.ts writes beside the JSON one (test/shared/file-times.ts); without that
// report, the JSON's span from the file's first test's start to its last test's end, which leaves
// out importing and `beforeAll`.
//
//   FIDELITY_TEST_TIMES=test-times.json npm test
//   node scripts/test-times.mjs test-times.json [--top N] [--tests N]
//
// With `<report>.cpu.jsonl` beside it (test/shared/file-cpu.ts), each file's CPU too, children
// included (ffmpeg, the CLI, npm, Chromium), and the CPU of each shared entry built (test/shared/store.ts).
//
// Two reports (before and after a change): each file's time in both, and every test of the earlier
// report that this one lacks (by full name, so a test moved to another file still counts; exit 1).
//   node scripts/test-times.mjs after.json --against before.json
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const value = args[i + 1];
  args.splice(i, 2);
  return value;
};
const top = Number(flag('--top', '20'));
const topTests = Number(flag('--tests', '20'));
const against = flag('--against', null);
const file = args[0];
if (!file || args.length !== 1 || !Number.isInteger(top) || !Number.isInteger(topTests)) {
  process.stderr.write('usage: node scripts/test-times.mjs REPORT.json [--top N] [--tests N] [--against BEFORE.json]\n');
  process.exit(2);
}

/** One row per file: its name relative to the repository, its wall span, its tests. */
function load(reportFile) {
  const report = JSON.parse(readFileSync(reportFile, 'utf8'));
  const root = path.resolve(path.dirname(reportFile));
  // The same name rule as the reporter's (test/shared/file-times.ts besideReport).
  const beside = (suffix) => reportFile.replace(/(\.json)?$/, suffix);
  const filesReport = beside('.files.json');
  const wholeTimes = existsSync(filesReport)
    ? new Map(JSON.parse(readFileSync(filesReport, 'utf8')).files.map((f) => [relative(f.file, root), f.collect + f.run]))
    : null;
  const files = report.testResults.map((f) => {
    const name = relative(f.name, root);
    const tests = f.assertionResults.map((t) => ({ file: name, title: t.fullName ?? t.title, ms: t.duration ?? 0, status: t.status }));
    const whole = wholeTimes?.get(name);
    return { name, ms: whole ?? Math.max(0, (f.endTime ?? 0) - (f.startTime ?? 0)), tests, status: f.status };
  });
  const start = Math.min(...report.testResults.map((f) => f.startTime ?? Infinity));
  const end = Math.max(...report.testResults.map((f) => f.endTime ?? 0));
  const cpuFile = beside('.cpu.jsonl');
  const lines = existsSync(cpuFile) ? readFileSync(cpuFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
  const cpu = new Map(lines.filter((l) => l.file).map((l) => [relative(l.file, root), l.cpu_s]));
  const shared = new Map();
  for (const l of lines.filter((x) => x.shared)) shared.set(l.shared, (shared.get(l.shared) ?? 0) + l.cpu_s);
  for (const f of files) f.cpu = cpu.get(f.name);
  return { files, cpu: lines.length > 0, shared, whole: wholeTimes !== null, wall: end - start, counts: { total: report.numTotalTests, passed: report.numPassedTests, failed: report.numFailedTests, skipped: report.numPendingTests + (report.numTodoTests ?? 0) } };
}

/** The name as it stands in the repository, wherever the report was written. */
function relative(name, reportDir) {
  const at = name.search(/(?:^|\/)(?:packages|test)\//);
  return at >= 0 ? name.slice(at).replace(/^\//, '') : path.relative(reportDir, name);
}

const s = (ms) => `${(ms / 1000).toFixed(1)} s`;
const cpuS = (sec) => (sec === undefined ? '        ?' : `${sec.toFixed(1)} s`);
const now = load(file);
const sum = now.files.reduce((a, f) => a + f.ms, 0);

if (against) {
  const earlier = load(against);
  const before = new Map(earlier.files.map((f) => [f.name, f.ms]));
  process.stdout.write(`files by time, against ${against}\n`);
  for (const f of [...now.files].sort((a, b) => b.ms - a.ms).slice(0, top)) {
    const was = before.get(f.name);
    process.stdout.write(`${s(f.ms).padStart(9)}  ${was === undefined ? '      new' : s(was).padStart(9)}  ${f.name}\n`);
  }
  const gone = [...before.keys()].filter((n) => !now.files.some((f) => f.name === n));
  if (now.cpu && earlier.cpu) {
    const cpuBefore = new Map(earlier.files.map((f) => [f.name, f.cpu]));
    const total = (r) => r.files.reduce((a, f) => a + (f.cpu ?? 0), 0);
    process.stdout.write(`\nfiles by CPU (children included), against ${against}\n`);
    for (const f of [...now.files].sort((a, b) => (b.cpu ?? 0) - (a.cpu ?? 0)).slice(0, top)) {
      const was = cpuBefore.get(f.name);
      process.stdout.write(`${cpuS(f.cpu).padStart(9)}  ${was === undefined ? '      new' : cpuS(was).padStart(9)}  ${f.name}\n`);
    }
    process.stdout.write(`all files: ${cpuS(total(now))} of CPU, against ${cpuS(total(earlier))}\n`);
  }
  if (gone.length) process.stdout.write(`files in the earlier report only: ${gone.join(', ')}\n`);
  // A test is known by its full name (describe blocks and title), so one moved to another file still counts.
  const titles = new Set(now.files.flatMap((f) => f.tests.map((t) => t.title)));
  const lost = earlier.files.flatMap((f) => f.tests).filter((t) => !titles.has(t.title));
  process.stdout.write(`tests of the earlier report not in this one: ${lost.length}\n`);
  for (const t of lost) process.stdout.write(`  ${t.file} > ${t.title}\n`);
  if (lost.length) process.exitCode = 1;
} else {
  process.stdout.write(`files by time (the top ${top} of ${now.files.length})\n`);
  for (const f of [...now.files].sort((a, b) => b.ms - a.ms).slice(0, top)) {
    process.stdout.write(`${s(f.ms).padStart(9)}  ${((100 * f.ms) / sum).toFixed(1).padStart(5)}%  ${String(f.tests.length).padStart(3)} tests  ${f.name}\n`);
  }
  if (now.cpu) {
    const cpuSum = now.files.reduce((a, f) => a + (f.cpu ?? 0), 0);
    process.stdout.write(`\nfiles by CPU, children included (the top ${top}; ${cpuS(cpuSum)} in all)\n`);
    for (const f of [...now.files].sort((a, b) => (b.cpu ?? 0) - (a.cpu ?? 0)).slice(0, top)) {
      process.stdout.write(`${cpuS(f.cpu).padStart(9)}  ${((100 * (f.cpu ?? 0)) / cpuSum).toFixed(1).padStart(5)}%  ${f.name}\n`);
    }
    process.stdout.write(`shared entries, each charged to the file that built it:\n`);
    for (const [name, sec] of [...now.shared].sort((a, b) => b[1] - a[1])) process.stdout.write(`${cpuS(sec).padStart(9)}  ${name}\n`);
  }
  process.stdout.write(`\ntests by time (the top ${topTests})\n`);
  for (const t of now.files.flatMap((f) => f.tests).sort((a, b) => b.ms - a.ms).slice(0, topTests)) {
    process.stdout.write(`${s(t.ms).padStart(9)}  ${t.file} > ${t.title}\n`);
  }
}
const c = now.counts;
process.stdout.write(`\n${now.files.length} files, ${c.total} tests (${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped); files' time added up ${s(sum)}${now.whole ? ' (import and hooks included)' : ' (first test to last, without import and beforeAll)'}, wall from first start to last end ${s(now.wall)}\n`);
