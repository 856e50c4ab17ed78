/**
 * A writing command whose output cannot be written (the disk is full, the
 * folder is read-only or is not a folder) refuses with exit 2 and a reason
 * code, leaves --out as it was and nothing beside it: never INTERNAL with a
 * stack trace, never a hang.
 *
 * A full disk is made honestly without privileges: the command runs under
 * `ulimit -f` (RLIMIT_FSIZE) with SIGXFSZ ignored, so a write past the limit
 * fails with EFBIG exactly where ENOSPC would. The built CLI runs (build first).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { generatedRuns, runDir } from '../../../test/shared/fixtures.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BIN = path.join(ROOT, 'packages', 'cli', 'bin', 'fidelity.js');
const RUNS = path.join(ROOT, 'fixtures', 'runs');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-cli-output-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;

/** The CLI with every file it writes limited to `kib` KiB (a full disk, as far as the command can tell). */
function limited(kib: number, args: string[]): { status: number | null; doc: { ok: boolean; errors?: { code: string; message: string }[] }; stderr: string } {
  const r = spawnSync('bash', ['-c', `trap '' XFSZ; ulimit -f ${kib}; exec "$0" "$@"`, process.execPath, BIN, ...args, '--json'], { encoding: 'utf8', timeout: 120_000 });
  let doc = { ok: false } as { ok: boolean; errors?: { code: string; message: string }[] };
  try {
    doc = JSON.parse(r.stdout);
  } catch {
    // Not JSON: the assertions below say what came instead.
  }
  return { status: r.status, doc, stderr: r.stderr };
}

function freshDir(): string {
  const d = path.join(tmp, `case-${n++}`);
  mkdirSync(d);
  return d;
}

describe('a full disk', () => {
  it('compare: exit 2 OUT_NOT_WRITABLE, no bundle, no temp folder or lock left', () => {
    const dir = freshDir();
    const out = path.join(dir, 'bundle');
    const r = limited(16, ['compare', path.join(RUNS, 'h200'), path.join(RUNS, 'b200'), '--out', out, '--threads', '2']);
    expect(r.status, r.stderr).toBe(2);
    expect(r.doc.errors?.map((e) => e.code)).toEqual(['OUT_NOT_WRITABLE']);
    expect(r.doc.errors?.[0]?.message).toMatch(/EFBIG/);
    expect(readdirSync(dir)).toEqual([]);
  }, 120_000);

  it('compare --shard: exit 2 OUT_NOT_WRITABLE, no partial left', () => {
    const dir = freshDir();
    const r = limited(4, ['compare', path.join(RUNS, 'h200'), path.join(RUNS, 'b200'), '--shard', '0/1', '--partial', path.join(dir, 'p0'), '--threads', '2']);
    expect(r.status, r.stderr).toBe(2);
    expect(r.doc.errors?.map((e) => e.code)).toEqual(['OUT_NOT_WRITABLE']);
    expect(readdirSync(dir)).toEqual([]);
  }, 120_000);
});

describe('an output folder that cannot be made', () => {
  it('generate --out under /proc: exit 2 OUTPUT_UNWRITABLE at once, not a loop that never ends', () => {
    const r = spawnSync(process.execPath, [BIN, 'generate', '--out', `/proc/fidelity-generate-${process.pid}`, '--json'], { encoding: 'utf8', timeout: 30_000 });
    expect(r.signal, 'still running after 30 s').toBe(null);
    expect(r.status).toBe(2);
    expect((JSON.parse(r.stdout) as { errors: { code: string }[] }).errors[0]!.code).toBe('OUTPUT_UNWRITABLE');
    expect(existsSync(`/proc/fidelity-generate-${process.pid}`)).toBe(false);
  }, 60_000);
});

describe('a read-only folder', () => {
  it('calibrate --out under /proc: OUT_NOT_WRITABLE before any run is measured', async () => {
    // Two runs of one hardware class, generated once per test run and shared (test/shared/fixtures.ts): read only.
    const runs = await generatedRuns({ sites: ['H200', 'B200', 'H200R'] });
    const r = spawnSync(process.execPath, [BIN, 'calibrate', runDir(runs, 'H200'), runDir(runs, 'H200R'), '--out', `/proc/fidelity-${process.pid}.json`, '--json', '--progress'], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status, r.stderr).toBe(2);
    expect((JSON.parse(r.stdout) as { errors: { code: string }[] }).errors[0]!.code).toBe('OUT_NOT_WRITABLE');
    expect(r.stderr).not.toMatch(/measuring/);
  }, 120_000);

  it('an immutable folder (chattr +i, which binds root too): compare and calibrate refuse with OUT_NOT_WRITABLE', () => {
    const dir = freshDir();
    const locked = path.join(dir, 'locked');
    mkdirSync(locked);
    if (spawnSync('chattr', ['+i', locked]).status !== 0) {
      console.warn('skipped: chattr +i is not available here (no e2fsprogs, or a file system without the immutable flag); /proc and a file in place of a folder are tested instead');
      return;
    }
    try {
      const compare = spawnSync(process.execPath, [BIN, 'compare', path.join(RUNS, 'h200'), path.join(RUNS, 'b200'), '--out', path.join(locked, 'bundle'), '--json'], { encoding: 'utf8' });
      expect(compare.status).toBe(2);
      expect((JSON.parse(compare.stdout) as { errors: { code: string }[] }).errors[0]!.code).toBe('OUT_NOT_WRITABLE');
      const calibrate = spawnSync(process.execPath, [BIN, 'calibrate', path.join(RUNS, 'h200'), path.join(RUNS, 'b200'), '--out', path.join(locked, 'c.json'), '--json'], { encoding: 'utf8' });
      expect(calibrate.status).toBe(2);
      expect((JSON.parse(calibrate.stdout) as { errors: { code: string }[] }).errors[0]!.code).toBe('OUT_NOT_WRITABLE');
      expect(readdirSync(locked)).toEqual([]);
    } finally {
      spawnSync('chattr', ['-i', locked]);
    }
  }, 120_000);
});
