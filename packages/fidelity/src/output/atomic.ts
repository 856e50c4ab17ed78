/**
 * Writes a bundle so that `--out` is either the complete new bundle or
 * exactly what it was before: the bundle is built in a hidden folder next to
 * `--out` (same file system, so the final rename is atomic), synced, then
 * renamed into place.
 *
 * What happens to an existing `--out`:
 * - absent, or an empty folder: the new bundle takes its place;
 * - a previous output of the same kind, exactly as this tool seals one
 *   (isSealedBundle in out-guard.ts: SHA256SUMS lists every file, report.json
 *   or partial.json names the tool): replaced, because re-running a
 *   comparison or a shard into the same folder is the common case. A bundle
 *   and a shard's partial are different things: a finished bundle is never
 *   replaced by a partial, nor a partial by a bundle, without `force`;
 * - anything else that is not empty: refused (OUT_NOT_EMPTY) unless `force`;
 * - a file or a symbolic link: refused (OUT_NOT_DIRECTORY).
 * Replacing moves the old folder aside, renames the new one in, and only then
 * deletes the old one; if the second rename fails the old one is put back.
 * An environment error while writing (a full disk, a read-only folder) is
 * OUT_NOT_WRITABLE, with `--out` as it was.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { lstat, mkdir, readdir, rename, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { FidelityError } from '../errors.js';
import { fsyncPath } from './files.js';
import { ownerTag } from '../owner.js';
import { isInside, makeFolders, outputError, sealedKind, type SealedKind } from './out-guard.js';

export type OutState = 'absent' | 'empty' | SealedKind | 'other';

/** What a command writes to `--out`: a bundle (compare, merge) or a shard's partial (compare --shard). */
export type OutKind = SealedKind;

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
  return (await sealedKind(out)) ?? 'other';
}

const KIND_NAME: Record<OutKind, string> = { bundle: 'a bundle', partial: "a shard's partial" };

/**
 * Refuses up front what the commit would refuse at the end, so no work is
 * wasted: a non-empty folder that is not a previous output of `kind` (a
 * partial where a bundle goes, a bundle where a partial goes, anything else)
 * unless `force`.
 */
export async function checkOut(out: string, force: boolean, kind: OutKind = 'bundle'): Promise<OutState> {
  const state = await inspectOut(out);
  if (force) return state;
  if (state === 'other') {
    throw new FidelityError('OUT_NOT_EMPTY', `--out ${out} is a non-empty folder that is not a fidelity ${kind === 'bundle' ? 'bundle' : 'partial'}; choose another folder or pass --force to replace it`);
  }
  if ((state === 'bundle' || state === 'partial') && state !== kind) {
    const other = state === 'bundle' ? 'bundle, not a partial' : 'partial, not a bundle';
    throw new FidelityError('OUT_NOT_EMPTY', `${out} is a fidelity ${other}: writing ${KIND_NAME[kind]} there would delete it; choose another folder or pass --force to replace it`);
  }
  return state;
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
export async function commitAtomically<T>(out: string, force: boolean, build: (dir: string) => Promise<T>, kind: OutKind = 'bundle'): Promise<T> {
  const resolved = path.resolve(out);
  const parent = path.dirname(resolved);
  const tmp = sibling(resolved, 'tmp');
  // The output's own paths: its temp folder, `out`, the folders above it, and its siblings (the old one moved aside).
  const ours = (p: string): boolean => isInside(p, tmp) || isInside(parent, p) || path.basename(p).startsWith(`.${path.basename(resolved)}.fidelity-`) || p === resolved;
  let createdParent: string | undefined;
  try {
    createdParent = await makeFolders(parent);
  } catch (error) {
    throw outputError(error, out, ours) ?? error;
  }
  let committed = false;
  try {
    return await commitIn(tmp);
  } catch (error) {
    // A full disk or a read-only folder is the environment's refusal, said with its errno; `out` is as it was.
    throw outputError(error, out, ours) ?? error;
  } finally {
    if (!committed) {
      await rm(tmp, { recursive: true, force: true });
      if (createdParent) await rm(createdParent, { recursive: true, force: true });
    }
    removeAtExit.delete(tmp);
  }

  async function commitIn(tmp: string): Promise<T> {
    await mkdir(tmp);
    removeAtExit.add(tmp);
    const value = await build(tmp);
    await fsyncPath(tmp);
    const state = await checkOut(resolved, force, kind);
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
  }
}
