/**
 * The built CLI (bin/fidelity.js, so build first) as a process, stopped from
 * outside: SIGINT / SIGTERM / SIGHUP exit 130 / 143 / 129 leaving no temp
 * files, no --out and no decoder behind; what a SIGKILLed run leaves is swept
 * by the next run; a wrapper decoder past --decode-timeout is killed with its
 * children; a stdout closed by its reader ends the command quietly.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pidsIn, stillRunningAfter, wrapperDecoder } from '../../fidelity/test/media/wrapper.js';
import { archivedRuns, fixtureBundle, runDir, smallRuns } from '../../../test/shared/fixtures.js';
import { copyShared } from '../../../test/shared/store.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BIN = path.join(ROOT, 'packages', 'cli', 'bin', 'fidelity.js');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-cli-signals-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/**
 * tar.gz runs: reading one copies its media into $TMPDIR/fidelity-run-*, the temp files a stop must
 * remove. The smallest comparison (smallRuns: two pairs, test/shared/fixtures.ts), packed once per
 * test run: a stop acts on whatever the command is doing, not on how many pairs it has, and the
 * tests that stop it while writing the bundle (or let it finish) measure every pair first. Two
 * pairs still keep the command measuring and writing for far longer than a stop takes to land.
 */
const archives: Record<string, string> = {};
/** The same runs as folders (the decoder time limit, the closed stdout). */
let folders: Record<string, string> = {};
beforeAll(async () => {
  const packed = await archivedRuns({ sites: ['H200', 'B200'], cases: 2 }, 'tar.gz');
  for (const site of ['H200', 'B200']) archives[site.toLowerCase()] = runDir(packed, site);
  const small = await smallRuns();
  folders = { h200: runDir(small, 'H200'), b200: runDir(small, 'B200') };
}, 300_000);

let n = 0;
interface Case {
  dir: string;
  tmpdir: string;
  out: string;
  tag: string;
}
function freshCase(): Case {
  const dir = path.join(tmp, `case-${n++}`);
  const tmpdir = path.join(dir, 'tmp');
  mkdirSync(tmpdir, { recursive: true });
  return { dir, tmpdir, out: path.join(dir, 'work', 'bundle'), tag: `fidelity-signal-test-${process.pid}-${n}` };
}

interface Running {
  child: ChildProcess;
  stderr: () => string;
  stdout: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function start(args: string[], c: Case, env: NodeJS.ProcessEnv = {}, ownGroup = false): Running {
  // The tag marks every process of this run (children inherit it), to find any left behind.
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, TMPDIR: c.tmpdir, FIDELITY_SIGNAL_TEST: c.tag, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: ownGroup,
  });
  let err = '';
  let out = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  return { child, stderr: () => err, stdout: () => out, exit };
}

/** Resolves as soon as `pattern` shows on stderr (on the chunk that completes it, not at a later poll), so a signal sent next lands in that stage. */
function waitFor(r: Running, pattern: RegExp, ms = 60_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (error?: Error) => {
      clearTimeout(timer);
      r.child.stderr!.off('data', check);
      r.child.off('close', exited);
      if (error) reject(error);
      else resolve();
    };
    // Listeners run in the order they were added: start()'s has already appended the chunk.
    const check = () => {
      if (pattern.test(r.stderr())) done();
    };
    const exited = (code: number | null) => done(new Error(`exited ${code} before ${pattern}:\n${r.stderr()}`));
    const timer = setTimeout(() => done(new Error(`never saw ${pattern} on stderr:\n${r.stderr()}`)), ms);
    r.child.stderr!.on('data', check);
    r.child.on('close', exited);
    check();
  });
}

/** Processes (other than ourselves) whose environment carries the tag: on Linux, from /proc. */
function tagged(tag: string): number[] {
  if (!existsSync('/proc/self/environ')) return [];
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`, 'latin1').includes(`FIDELITY_SIGNAL_TEST=${tag}\0`)) found.push(Number(name));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

const compareArgs = (c: Case, extra: string[] = []) => ['compare', archives.h200!, archives.b200!, '--out', c.out, '--progress', '--threads', '2', ...extra];

describe('stopped by a signal', () => {
  for (const [sig, code] of [
    ['SIGTERM', 143],
    ['SIGHUP', 129],
    ['SIGINT', 130],
  ] as const) {
    it(`${sig} while measuring: exit ${code}, children stopped, temp files removed, --out as it was`, async () => {
      const c = freshCase();
      const r = start(compareArgs(c), c);
      await waitFor(r, /measuring pairs/);
      r.child.kill(sig);
      const exit = await r.exit;
      expect({ code: exit.code, signal: exit.signal }).toEqual({ code, signal: null });
      expect(r.stderr()).toContain(`stopped by ${sig}`);
      expect(readdirSync(c.tmpdir)).toEqual([]);
      // --out was absent and stays absent; no temp bundle, lock or parent folder is left.
      expect(existsSync(path.join(c.dir, 'work'))).toBe(false);
      expect(await stillRunningAfter(tagged(c.tag), 3000)).toEqual([]);
    }, 120_000);
  }

  it('SIGTERM to the process and at once to its group (as `timeout` sends it) is one clean stop', async () => {
    const c = freshCase();
    const r = start(compareArgs(c), c, {}, true);
    await waitFor(r, /writing bundle/);
    r.child.kill('SIGTERM');
    process.kill(-r.child.pid!, 'SIGTERM');
    expect((await r.exit).code).toBe(143);
    expect(r.stderr()).toMatch(/error ABORTED: .*\nfidelity: stopped by SIGTERM\n$/);
    expect(existsSync(path.join(c.dir, 'work'))).toBe(false);
    expect(readdirSync(c.tmpdir)).toEqual([]);
  }, 120_000);

  it('SIGTERM while writing the bundle over a previous one leaves the previous bundle byte for byte', async () => {
    const c = freshCase();
    // The previous bundle: compare()'s of the same fixture runs, the run's shared copy (test/shared/fixtures.ts).
    mkdirSync(path.dirname(c.out), { recursive: true });
    copyShared((await fixtureBundle(['b200'])).dir, c.out);
    expect(spawnSync(process.execPath, [BIN, 'verify-bundle', c.out]).status).toBe(0);
    const before = readFileSync(path.join(c.out, 'SHA256SUMS'), 'utf8');
    const r = start(compareArgs(c), c);
    await waitFor(r, /writing bundle/);
    r.child.kill('SIGTERM');
    expect((await r.exit).code).toBe(143);
    expect(readFileSync(path.join(c.out, 'SHA256SUMS'), 'utf8')).toBe(before);
    expect(spawnSync(process.execPath, [BIN, 'verify-bundle', c.out]).status).toBe(0);
    expect(readdirSync(path.dirname(c.out))).toEqual(['bundle']);
    expect(readdirSync(c.tmpdir)).toEqual([]);
  }, 180_000);
});

describe('after a SIGKILL', () => {
  it('the next run removes what the killed one left, and takes over its lock', async () => {
    const c = freshCase();
    const killed = start(compareArgs(c), c);
    await waitFor(killed, /writing bundle/);
    killed.child.kill('SIGKILL');
    expect((await killed.exit).signal).toBe('SIGKILL');
    const work = path.dirname(c.out);
    const left = readdirSync(work);
    // The hard kill left its temp bundle and lock next to --out, and its archive copies in $TMPDIR.
    expect(left.some((f) => f.startsWith('.bundle.fidelity-tmp-'))).toBe(true);
    expect(left).toContain('.bundle.fidelity-lock');
    expect(readdirSync(c.tmpdir).some((f) => f.startsWith('fidelity-run-'))).toBe(true);
    const next = start(compareArgs(c), c);
    const exit = await next.exit;
    expect(exit.code, next.stderr()).toBe(0);
    expect(readdirSync(work)).toEqual(['bundle']);
    expect(readdirSync(c.tmpdir)).toEqual([]);
  }, 180_000);
});

describe('--decode-timeout', () => {
  it('kills a wrapper decoder and the processes it started once the limit passes; the pairs are DECODE_TIMEOUT', async () => {
    const c = freshCase();
    const { file, pids } = wrapperDecoder(c.dir, 'ffmpeg', 'sleep 300 &\necho $! >> "$PIDS"\nwait');
    const started = Date.now();
    const r = start(['compare', folders.h200!, folders.b200!, '--out', c.out, '--json', '--threads', '2', '--decode-timeout', '0.5'], c, {
      FIDELITY_FFMPEG: file,
    });
    const exit = await r.exit;
    expect(exit.code, r.stderr()).toBe(0);
    // Far below the 600 s default: the limit given was used.
    expect(Date.now() - started).toBeLessThan(90_000);
    const doc = JSON.parse(r.stdout()) as { comparisons: { pairs: { status: string; reasons: string[] }[] }[] };
    const measured = doc.comparisons[0]!.pairs.filter((p) => !p.reasons.some((x) => x.startsWith('INCOMPATIBLE') || x.startsWith('FAILED_')));
    expect(measured.length).toBeGreaterThan(0);
    for (const p of measured) expect(p.reasons).toContain('DECODE_TIMEOUT');
    expect(pidsIn(pids).length).toBeGreaterThan(0);
    expect(await stillRunningAfter(pidsIn(pids), 3000)).toEqual([]);
  }, 180_000);

  it('must be a positive number of seconds (exit 2, USAGE)', () => {
    const c = freshCase();
    for (const bad of ['abc', '0', '-1']) {
      const r = spawnSync(process.execPath, [BIN, 'compare', 'a', 'b', '--out', c.out, '--decode-timeout', bad, '--json'], { encoding: 'utf8' });
      expect(r.status).toBe(2);
      const doc = JSON.parse(r.stdout) as { errors: { code: string; message: string }[] };
      expect(doc.errors[0]!.code).toBe('USAGE');
      expect(doc.errors[0]!.message).toContain('--decode-timeout');
    }
  });
});

describe('a closed stdout', () => {
  it('ends `fidelity verify --json` quietly (as `| true` does), with exit 141', async () => {
    const c = freshCase();
    const r = start(['verify', folders.h200!, '--json'], c);
    // The reader goes away before the command writes anything.
    r.child.stdout!.destroy();
    const exit = await r.exit;
    expect(r.stderr()).toBe('');
    expect(exit.code).toBe(141);
  }, 60_000);
});

describe('calibrate, stopped by a signal', () => {
  /**
   * Two H200 runs (a run and its rerun) as tar.gz: ten same-hardware pairs to measure, media
   * unpacked in $TMPDIR. The run's shared tar.gz runs of calibrate's tests (test/shared/fixtures.ts),
   * their H200 and H200R, instead of generated again.
   */
  let runs: string[] = [];
  beforeAll(async () => {
    const tars = await archivedRuns({ sites: ['H200', 'B200', 'H200R'] }, 'tar.gz');
    runs = ['H200', 'H200R'].map((site) => runDir(tars, site));
    for (const run of runs) expect(run.endsWith('.tar.gz')).toBe(true);
  }, 300_000);

  for (const [sig, code] of [
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const) {
    it(`${sig} while measuring: exit ${code}, the measuring stops, no --out, no temp file, no child left`, async () => {
      const c = freshCase();
      const out = path.join(c.dir, 'work', 'calibration.json');
      const r = start(['calibrate', ...runs, '--out', out, '--policy-out', path.join(c.dir, 'work', 'policy.json'), '--progress', '--threads', '2'], c);
      await waitFor(r, /measuring same-hardware pairs/);
      r.child.kill(sig);
      const exit = await r.exit;
      expect({ code: exit.code, signal: exit.signal }).toEqual({ code, signal: null });
      // Stopped by the signal, not run to its end: the command says ABORTED and writes nothing.
      expect(r.stderr()).toMatch(new RegExp(`error ABORTED: .*\\nfidelity: stopped by ${sig}\\n$`));
      expect(existsSync(path.join(c.dir, 'work'))).toBe(false);
      expect(readdirSync(c.tmpdir)).toEqual([]);
      expect(await stillRunningAfter(tagged(c.tag), 3000)).toEqual([]);
    }, 120_000);
  }
});
