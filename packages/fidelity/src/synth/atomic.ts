/**
 * A run folder appears whole or not at all: it is filled in a hidden sibling
 * folder (same parent, so rename is atomic on one file system) and renamed
 * into place. Replacing an existing run swaps folders and removes the old one
 * afterwards, so a reader never sees a half-written run.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { FidelityError } from '../errors.js';

export async function exists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch {
    return false;
  }
}

/** A hidden folder next to `target`, removed by the caller (or by `publish`). */
export async function stagingDir(target: string): Promise<string> {
  const dir = path.join(path.dirname(target), `.${path.basename(target)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  await mkdir(dir, { recursive: true });
  return dir;
}

export async function publish(staging: string, target: string, overwrite: boolean): Promise<void> {
  if (!(await exists(target))) {
    await rename(staging, target);
    return;
  }
  if (!overwrite) {
    throw new FidelityError('OUTPUT_EXISTS', `${target} already exists; pass overwrite (--force) to replace it`);
  }
  const old = `${staging}.old`;
  await rename(target, old);
  try {
    await rename(staging, target);
  } catch (error) {
    // Put the previous run back rather than leave nothing.
    await rename(old, target).catch(() => undefined);
    throw error;
  }
  await rm(old, { recursive: true, force: true });
}
