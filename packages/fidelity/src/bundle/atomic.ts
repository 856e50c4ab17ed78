/**
 * Writes a bundle so that `--out` is either the complete new bundle or
 * exactly what it was before: the bundle is built in a hidden folder next to
 * `--out` (same file system, so the final rename is atomic), synced, then
 * renamed into place.
 *
 * What happens to an existing `--out`:
 * - absent, or an empty folder: the new bundle takes its place;
 * - a previous bundle or shard partial, exactly as this tool seals one
 *   (isSealedBundle in out-guard.ts: SHA256SUMS lists every file, report.json
 *   or partial.json names the tool): replaced, because re-running a
 *   comparison or a shard into the same folder is the common case;
 * - anything else that is not empty: refused (OUT_NOT_EMPTY) unless `force`;
 * - a file or a symbolic link: refused (OUT_NOT_DIRECTORY).
 * Replacing moves the old folder aside, renames the new one in, and only then
 * deletes the old one; if the second rename fails the old one is put back.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { lstat, mkdir, readdir, rename, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { FidelityError } from '../errors.js';
import { fsyncPath } from './files.js';
import { ownerTag } from '../owner.js';
import { isSealedBundle } from './out-guard.js';

export type OutState = 'absent' | 'empty' | 'bundle' | 'other';

export async function inspectOut(out: string): Promise<OutState> {
  let st;
  try {
    st = await lstat(out);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ENOTDIR: a step above is a file; claimOut() then refuses the parent as not writable.
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'absent';
    if (code === 'EACCES' || code === 'EPERM') throw new FidelityError('OUT_NOT_WRITABLE', `--out ${out} cannot be reached (${code}); choose another --out`, { cause: error });
    throw error;
  }
  if (st.isSymbolicLink()) throw new FidelityError('OUT_NOT_DIRECTORY', `--out ${out} is a symbolic link; give the real folder`);
  if (!st.isDirectory()) throw new FidelityError('OUT_NOT_DIRECTORY', `--out ${out} exists and is not a folder`);
  const names = await readdir(out);
  if (names.length === 0) return 'empty';
  // A shard's partial (partial.json) is replaced like a bundle: a requeued shard writes its partial again.
  return (await isSealedBundle(out)) ? 'bundle' : 'other';
}

/** Refuses up front what the commit would refuse at the end, so no work is wasted. */
export async function checkOut(out: string, force: boolean): Promise<OutState> {
  const state = await inspectOut(out);
  if (state === 'other' && !force) {
    throw new FidelityError('OUT_NOT_EMPTY', `--out ${out} is a non-empty folder that is not a fidelity bundle; choose another folder or pass --force to replace it`);
  }
  return state;
}

function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * Input runs are read-only: refuse an --out that would write into one, or
 * whose replacement would delete one. Compares the paths as written; compare()
 * uses checkOutAgainstRealInputs (out-guard.ts), which follows symbolic links.
 */
export function checkOutAgainstInputs(out: string, inputs: readonly string[]): void {
  const o = path.resolve(out);
  for (const input of inputs) {
    const i = path.resolve(input);
    if (isInside(o, i)) throw new FidelityError('OUT_INSIDE_INPUT', `--out ${out} lies inside the input run ${input}; runs are read-only`);
    if (isInside(i, o)) throw new FidelityError('OUT_CONTAINS_INPUT', `--out ${out} contains the input run ${input}; writing the bundle there would replace it`);
  }
}

/** Temp bundles being built, removed by one exit hook if the process ends first (a forced stop of the CLI). */
const removeAtExit = new Set<string>();
process.once('exit', () => {
  for (const dir of removeAtExit) rmSync(dir, { recursive: true, force: true });
});

/** The owner (host tag and pid) is in the name, so the next run can sweep what a killed one left (out-guard.ts). */
function sibling(out: string, tag: string): string {
  return path.join(path.dirname(out), `.${path.basename(out)}.fidelity-${tag}-${ownerTag()}-${randomBytes(4).toString('hex')}`);
}

/**
 * Runs `build` on a fresh temp folder next to `out`, then puts the result in
 * place. On any failure every trace (temp folder, parents it created) is
 * removed and `out` is untouched.
 */
export async function commitAtomically<T>(out: string, force: boolean, build: (dir: string) => Promise<T>): Promise<T> {
  const resolved = path.resolve(out);
  const parent = path.dirname(resolved);
  const createdParent = await mkdir(parent, { recursive: true });
  const tmp = sibling(resolved, 'tmp');
  let committed = false;
  try {
    await mkdir(tmp);
    removeAtExit.add(tmp);
    const value = await build(tmp);
    await fsyncPath(tmp);
    const state = await checkOut(resolved, force);
    if (state === 'absent') {
      await rename(tmp, resolved);
    } else if (state === 'empty') {
      // POSIX rename replaces an empty folder in one step; elsewhere remove it first and restore it on failure.
      try {
        await rename(tmp, resolved);
      } catch {
        await rmdir(resolved);
        try {
          await rename(tmp, resolved);
        } catch (error) {
          await mkdir(resolved).catch(() => undefined);
          throw error;
        }
      }
    } else {
      const aside = sibling(resolved, 'old');
      await rename(resolved, aside);
      try {
        await rename(tmp, resolved);
      } catch (error) {
        await rename(aside, resolved);
        throw error;
      }
      committed = true;
      await rm(aside, { recursive: true, force: true });
    }
    committed = true;
    await fsyncPath(parent);
    return value;
  } finally {
    if (!committed) {
      await rm(tmp, { recursive: true, force: true });
      if (createdParent) await rm(createdParent, { recursive: true, force: true });
    }
    removeAtExit.delete(tmp);
  }
}
