/**
 * Temp folders the library owns. Each is removed by its owner's close(); any
 * still present when the process exits (a caller that forgot close(), an
 * exception on the way out, a forced stop) is removed by one exit hook.
 *
 * A process killed outright (SIGKILL, out of memory) runs no hook, so each
 * name carries its owner (`fidelity-<label>-<host tag>-<pid>-XXXXXX`) and the
 * first temp folder a later process makes in the same place sweeps those whose
 * owner has ended on this host.
 */
import { rmSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ownerIsDeadHere, ownerTag } from '../owner.js';

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

/**
 * A new folder `fidelity-<label>-<host tag>-<pid>-XXXXXX` under `base`
 * (default the OS temp folder), removed at process exit if its owner has not
 * removed it (removeTempDir). The first call per `base` sweeps the stale ones.
 * `label` is lower-case letters and dashes.
 */
export async function makeTempDir(base: string | undefined, label: string): Promise<string> {
  const root = base ?? os.tmpdir();
  if (!swept.has(root)) {
    swept.add(root);
    await sweepStaleTempDirs(root);
  }
  const dir = await mkdtemp(path.join(root, `fidelity-${label}-${ownerTag()}-`));
  live.add(dir);
  if (!hooked) {
    hooked = true;
    process.once('exit', () => {
      for (const d of live) rmSync(d, { recursive: true, force: true });
    });
  }
  return dir;
}

/** Removes a folder made by makeTempDir, and forgets it for the exit hook. */
export async function removeTempDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  live.delete(dir);
}
