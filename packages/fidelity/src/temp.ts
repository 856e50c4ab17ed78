/**
 * Temp folders the library owns: a run's media copied out of a zip or tar.gz,
 * each decoder process's input links (media/input-links.ts), the demo's runs.
 * Each is removed by its owner; any still present when the process exits (a
 * caller that forgot close(), an exception on the way out, a forced stop) is
 * removed by one exit hook.
 *
 * A process killed outright (SIGKILL, out of memory) runs no hook, so each
 * name carries its owner (`fidelity-<label>-<host tag>-<pid>-XXXXXX`) and the
 * first temp folder a later process makes in the same place sweeps those whose
 * owner has ended on this host.
 *
 * A temp folder that cannot be made or written (TMPDIR missing, a file, read
 * only, full) is TEMP_NOT_WRITABLE naming the folder and the OS error, never
 * an internal failure: {@link checkTempDir} finds it before any work.
 */
import { rmSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { FidelityError } from './errors.js';
import { ownerIsDeadHere, ownerTag } from './owner.js';

const live = new Set<string>();
const swept = new Set<string>();
let hooked = false;

const STALE = /^fidelity-[a-z]+(?:-[a-z]+)*-([0-9a-f]{8})-([0-9]+)-[A-Za-z0-9]{6}$/;

/**
 * Removes the `fidelity-*` temp folders under `base` left by processes of
 * this host that have ended. Returns the paths removed.
 */
export async function sweepStaleTempDirs(base: string = os.tmpdir()): Promise<string[]> {
  const removed: string[] = [];
  const names = await readdir(base).catch(() => [] as string[]);
  for (const name of names) {
    const m = STALE.exec(name);
    if (!m || !ownerIsDeadHere(m[1]!, m[2]!)) continue;
    const dir = path.join(base, name);
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    removed.push(dir);
  }
  return removed;
}

/** Errors of the file system that say the temp folder is unusable (as opposed to a bug of ours). */
const UNUSABLE = new Set(['ENOENT', 'ENOTDIR', 'EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT', 'EFBIG', 'EEXIST', 'ELOOP', 'ENAMETOOLONG', 'EMLINK', 'EIO']);

/**
 * A failure to make or write something under the temp folder `root` as TEMP_NOT_WRITABLE, naming
 * where the folder came from (TMPDIR or the caller's tempDir) and the OS error; other errors as they are.
 */
export function tempFailure(error: unknown, root: string, what: string, fromOption = false): unknown {
  const e = error as NodeJS.ErrnoException;
  if (error instanceof FidelityError || typeof e?.code !== 'string' || !UNUSABLE.has(e.code)) return error;
  const where = fromOption ? `the temp folder ${root} (the tempDir option)` : `the temp folder ${root} (TMPDIR${process.env.TMPDIR ? '' : ' unset: the system default'})`;
  return new FidelityError('TEMP_NOT_WRITABLE', `${where} cannot be used: ${what} failed (${e.code}${e.syscall ? ` on ${e.syscall}` : ''}); set TMPDIR to a writable folder with free space`, { cause: error });
}

function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.once('exit', () => {
    for (const d of live) rmSync(d, { recursive: true, force: true });
  });
}

/**
 * A new folder `fidelity-<label>-<host tag>-<pid>-XXXXXX` under `base`
 * (default the OS temp folder), removed at process exit if its owner has not
 * removed it (removeTempDir). The first call per `base` sweeps the stale ones.
 * `label` is lower-case letters and dashes.
 *
 * @throws FidelityError `TEMP_NOT_WRITABLE` when the folder cannot be made there.
 */
export async function makeTempDir(base: string | undefined, label: string): Promise<string> {
  const root = base ?? os.tmpdir();
  if (!swept.has(root)) {
    swept.add(root);
    await sweepStaleTempDirs(root);
  }
  let dir: string;
  try {
    dir = await mkdtemp(path.join(root, `fidelity-${label}-${ownerTag()}-`));
  } catch (error) {
    throw tempFailure(error, root, 'making a folder', base !== undefined);
  }
  live.add(dir);
  hookExit();
  return dir;
}

/**
 * Checks before any work that temp folders can be made and written under `base` (default the OS
 * temp folder, TMPDIR): makes one, writes a small file into it and removes it. It sweeps the stale
 * ones of ended processes too (the first time per folder).
 *
 * @throws FidelityError `TEMP_NOT_WRITABLE` naming the folder and the OS error.
 */
export async function checkTempDir(base?: string): Promise<void> {
  const dir = await makeTempDir(base, 'check');
  try {
    await writeFile(path.join(dir, 'probe'), new Uint8Array(512));
  } catch (error) {
    throw tempFailure(error, base ?? os.tmpdir(), 'writing a file', base !== undefined);
  } finally {
    await removeTempDir(dir).catch(() => undefined);
  }
}

/**
 * {@link checkTempDir} for a command: the OS temp folder (TMPDIR), where every decoder's input links
 * go, and `tempDir` too when one is given (a zip's or tar.gz's media are copied out there).
 *
 * @throws FidelityError `TEMP_NOT_WRITABLE` naming the folder and the OS error.
 */
export async function checkTempDirs(tempDir?: string): Promise<void> {
  await checkTempDir();
  if (tempDir !== undefined && path.resolve(tempDir) !== path.resolve(os.tmpdir())) await checkTempDir(tempDir);
}

/** Removes a folder made by makeTempDir, and forgets it for the exit hook. */
export async function removeTempDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  live.delete(dir);
}

/** {@link removeTempDir} at once (a process's scope closing); a folder that cannot be removed is left to the exit hook or a later sweep. */
export function removeTempDirSync(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true });
    live.delete(dir);
  } catch {
    // Kept in `live`: the exit hook or a later process's sweep removes it.
  }
}
