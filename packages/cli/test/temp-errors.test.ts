/**
 * A temp folder that cannot be made or written (TMPDIR missing, a file, read-only, full) is refused
 * before any run is verified with exit 2 TEMP_NOT_WRITABLE naming TMPDIR and the OS error, as an
 * unwritable --out is refused with OUT_NOT_WRITABLE: never exit 1 INTERNAL with a stack. The same
 * when a zip's media are copied out into a TMPDIR that fills up. The built CLI runs (build first).
 *
 * A full disk is made without privileges as output-errors.test.ts makes it: `ulimit -f` with SIGXFSZ
 * ignored, so a write past the limit fails with EFBIG where ENOSPC would.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BIN = path.join(ROOT, 'packages', 'cli', 'bin', 'fidelity.js');
const RUNS = path.join(ROOT, 'fixtures', 'runs');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-cli-temp-'));
afterAll(() => {
  chmodSync(path.join(tmp, 'read-only'), 0o755);
  rmSync(tmp, { recursive: true, force: true });
});

interface Result {
  status: number | null;
  doc: { ok: boolean; errors?: { code: string; message: string }[] };
  stderr: string;
}

/** The CLI with TMPDIR set, every file it writes limited to `kib` KiB when given. */
function cli(tmpdir: string, args: string[], kib?: number): Result {
  const limit = kib === undefined ? '' : `trap '' XFSZ; ulimit -f ${kib}; `;
  const r = spawnSync('bash', ['-c', `${limit}exec "$0" "$@"`, process.execPath, BIN, ...args, '--json'], { encoding: 'utf8', timeout: 120_000, env: { ...process.env, TMPDIR: tmpdir } });
  let doc = { ok: false } as Result['doc'];
  try {
    doc = JSON.parse(r.stdout);
  } catch {
    // Not JSON: the assertions below say what came instead.
  }
  return { status: r.status, doc, stderr: r.stderr };
}

function expectRefused(r: Result, tmpdir: string, errno: RegExp): void {
  expect(r.status, r.stderr).toBe(2);
  expect(r.doc.errors?.map((e) => e.code)).toEqual(['TEMP_NOT_WRITABLE']);
  const message = r.doc.errors![0]!.message;
  expect(message).toContain(`${tmpdir} (TMPDIR)`);
  expect(message).toMatch(errno);
  expect(message).not.toMatch(/\n\s+at /);
}

const compare = (out: string): string[] => ['compare', path.join(RUNS, 'h200'), path.join(RUNS, 'b200'), '--out', out, '--threads', '2'];

describe('an unusable TMPDIR', () => {
  const missing = path.join(tmp, 'missing');
  const file = path.join(tmp, 'a-file');
  writeFileSync(file, 'not a folder');
  const readOnly = path.join(tmp, 'read-only');
  mkdirSync(readOnly);
  chmodSync(readOnly, 0o555);
  // root writes into a 0555 folder all the same: there, a folder the kernel refuses to create anything in (/sys) stands for it.
  const rootUser = process.getuid?.() === 0;
  const unwritable = rootUser ? '/sys' : readOnly;

  it('compare: nonexistent, a file, read-only: exit 2 TEMP_NOT_WRITABLE with the error, nothing written', () => {
    const cases: [string, RegExp][] = [
      [missing, /ENOENT/],
      [file, /ENOTDIR/],
      [unwritable, rootUser ? /EPERM|EACCES|EROFS/ : /EACCES/],
    ];
    for (const [dir, errno] of cases) {
      const out = path.join(tmp, `out-${path.basename(dir)}`);
      expectRefused(cli(dir, compare(out)), dir, errno);
      expect(spawnSync('test', ['-e', out]).status, out).toBe(1);
    }
  }, 120_000);

  it('the read-only case is real: a non-root user cannot write into the 0555 folder, root is given /sys instead', () => {
    if (rootUser) expect(unwritable).toBe('/sys');
    else expect(() => writeFileSync(path.join(readOnly, 'x'), 'x')).toThrow(/EACCES/);
  });

  it('compare: a full TMPDIR (no byte can be written) is TEMP_NOT_WRITABLE with EFBIG', () => {
    const full = path.join(tmp, 'full');
    mkdirSync(full);
    expectRefused(cli(full, compare(path.join(tmp, 'out-full')), 0), full, /EFBIG/);
  }, 120_000);

  it('verify --clips: nonexistent, a file: exit 2 TEMP_NOT_WRITABLE before the run is verified', () => {
    for (const [dir, errno] of [[missing, /ENOENT/], [file, /ENOTDIR/]] as const) {
      expectRefused(cli(dir, ['verify', path.join(RUNS, 'h200'), '--clips']), dir, errno);
    }
  }, 120_000);

  it('compare of a zip whose media fill TMPDIR while copied out: exit 2 TEMP_NOT_WRITABLE with EFBIG, no temp folder left', () => {
    const zipDir = path.join(tmp, 'zip');
    mkdirSync(zipDir);
    cpSync(path.join(RUNS, 'h200'), path.join(zipDir, 'h200'), { recursive: true });
    const zip = path.join(zipDir, 'h200.zip');
    expect(spawnSync('zip', ['-qr', '-X', zip, '.'], { cwd: path.join(zipDir, 'h200') }).status).toBe(0);
    const small = path.join(tmp, 'small');
    mkdirSync(small);
    // 12 KiB: the up-front check passes, the first clip over 12 KiB (19 KB) cannot be copied out.
    const r = cli(small, ['compare', zip, path.join(RUNS, 'b200'), '--out', path.join(tmp, 'out-zip'), '--threads', '1'], 12);
    expectRefused(r, small, /EFBIG/);
    expect(spawnSync('ls', ['-A', small], { encoding: 'utf8' }).stdout).toBe('');
  }, 120_000);
});
