/**
 * Everything decided about `--out` before any work starts (docs/report.md,
 * "What happens to an existing `--out`"):
 * - paths are compared as the file system sees them (real paths through every
 *   symbolic link), so no spelling of `--out` can write into an input run or
 *   replace a folder that holds one;
 * - only a sealed bundle of this tool is replaced without `force`
 *   (isSealedBundle);
 * - the folder that will hold `--out` must be writable, found out by really
 *   creating the lock file there, not after all the measuring;
 * - one comparison at a time per `--out`: a lock file next to it
 *   (`.<name>.fidelity-lock`) names the owner; a second one is refused
 *   (OUT_LOCKED) while the owner lives, and takes over a dead owner's lock;
 * - leftovers of a killed run next to `--out` (`.<name>.fidelity-tmp-*`,
 *   `.<name>.fidelity-old-*`) are swept once the lock is held.
 */
import { link, open, lstat, mkdir, readdir, readFile, rename, rm, rmdir, unlink } from 'node:fs/promises';
import { readFileSync, unlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FidelityError } from '../errors.js';
import { ownerIsDeadHere, ownerTag, pidAlive, HOST_TAG } from '../owner.js';
import { TOOL_NAME } from '../version.js';
import { readSideFile, SIDE_FILE_LIMITS } from '../side-file.js';
import { parseSeal, SEAL_FILE } from './seal.js';
import { inputIdentities, outputPathProblem, realPathOf, targetClash } from './targets.js';

/** Larger than any SHA256SUMS this tool writes by far; a bigger one is not ours. */
const MAX_SEAL_BYTES = SIDE_FILE_LIMITS.seal;
/** Stops the walk of a huge folder early: it is not a bundle this tool made. */
const MAX_BUNDLE_ENTRIES = 200_000;

// realPathOf lives in targets.ts (which the checks here use); exported from here too, where its callers look for it.
export { realPathOf };

export function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

async function realOut(out: string): Promise<string> {
  try {
    return await realPathOf(out);
  } catch (error) {
    throw notWritable(out, out, error);
  }
}

/**
 * Input runs are read-only: refuse an `out` that would write into one, or
 * whose replacement would delete one, comparing real paths.
 */
export async function checkOutAgainstRealInputs(out: string, inputs: readonly string[]): Promise<void> {
  const o = await realOut(out);
  for (const input of inputs) {
    // An input that cannot be resolved (no permission, a link loop) is refused by its verification, with its own code.
    const i = await realPathOf(input).catch(() => path.resolve(input));
    const inputReally = i === path.resolve(input) ? '' : ` (really ${i})`;
    const outReally = o === path.resolve(out) ? '' : ` (really ${o})`;
    if (isInside(o, i)) throw new FidelityError('OUT_INSIDE_INPUT', `--out ${out}${outReally} lies inside the input run ${input}${inputReally}; runs are read-only`);
    if (isInside(i, o)) throw new FidelityError('OUT_CONTAINS_INPUT', `--out ${out}${outReally} contains the input run ${input}${inputReally}; writing the bundle there would replace it`);
  }
}

/**
 * True only for a folder that is exactly a sealed bundle of this tool:
 * SHA256SUMS is well formed and lists every file under the folder (and no
 * file is missing), nothing is a link or special file, and report.json is
 * sealed and names this tool (`tool.name`) with a `schema_version`. Hashes are
 * not recomputed: a bundle whose bytes were edited is still a bundle this
 * tool wrote; a folder that also holds the user's own files is not.
 */
export async function isSealedBundle(dir: string): Promise<boolean> {
  return (await sealedKind(dir)) !== null;
}

/** What a sealed folder of this tool is (isSealedBundle): a bundle (report.json), a shard's partial (partial.json), or neither (null). */
export type SealedKind = 'bundle' | 'partial';

/** Which kind of sealed folder of this tool `dir` is, by the rules of isSealedBundle; null when it is not one. */
export async function sealedKind(dir: string): Promise<SealedKind | null> {
  try {
    const seal = await readSideFile(path.join(dir, SEAL_FILE), MAX_SEAL_BYTES);
    if (!seal.ok) return null;
    const { entries, problems } = parseSeal(seal.bytes.toString('utf8'));
    if (problems.length > 0) return null;
    const listed = new Set(entries.map((e) => e.path));
    // A bundle names the tool in report.json, a shard's partial in partial.json.
    const marker = listed.has('report.json') ? 'report.json' : listed.has('partial.json') ? 'partial.json' : null;
    if (marker === null) return null;
    let seen = 0;
    const found = new Set<string>();
    const visit = async (rel: string): Promise<boolean> => {
      for (const e of await readdir(path.join(dir, rel), { withFileTypes: true })) {
        if (++seen > MAX_BUNDLE_ENTRIES) return false;
        const r = rel ? `${rel}/${e.name}` : e.name;
        if (e.isDirectory()) {
          if (!(await visit(r))) return false;
        } else if (e.isFile()) {
          if (r === SEAL_FILE) continue;
          if (!listed.has(r)) return false;
          found.add(r);
        } else {
          return false;
        }
      }
      return true;
    };
    if (!(await visit('')) || found.size !== listed.size) return null;
    const report = JSON.parse(await readFile(path.join(dir, marker), 'utf8')) as { tool?: { name?: unknown }; schema_version?: unknown };
    if (report?.tool?.name !== TOOL_NAME || !Number.isInteger(report.schema_version)) return null;
    return marker === 'report.json' ? 'bundle' : 'partial';
  } catch {
    return null;
  }
}

/** Where a lock or temp name for `out` lives: `.<name>.fidelity-<tag>...` next to it. */
function siblingPrefix(out: string): string {
  return `.${path.basename(out)}.fidelity-`;
}

export function lockPath(out: string): string {
  return path.join(path.dirname(out), `${siblingPrefix(out)}lock`);
}

interface LockOwner {
  pid: number;
  host: string;
  hostname: string;
  token: string;
}

/** `why` is the errno name of `error`, or a word when there is no system error (a step that is a file). */
function notWritable(out: string, dir: string, error: unknown, why = (error as NodeJS.ErrnoException | undefined)?.code ?? 'unknown error'): FidelityError {
  return new FidelityError('OUT_NOT_WRITABLE', `--out ${out} cannot be written: ${dir} is not a writable folder (${why}); choose another --out`, { cause: error });
}

/** errno codes that only a write can give: whatever failed, it was the output. */
const WRITE_ONLY_ERRNOS = new Set(['ENOSPC', 'EDQUOT', 'EFBIG', 'EROFS']);
/** errno codes a write or a read can give: the output's only when the failing path is the output's. */
const ACCESS_ERRNOS = new Set(['EACCES', 'EPERM', 'EIO', 'ENOTDIR', 'EISDIR', 'EEXIST', 'ENAMETOOLONG', 'EMLINK', 'ENOENT']);

/**
 * An environment error while the output was written (a full disk or quota,
 * a file past the size limit, a read-only or vanished folder) as the
 * refusal it is, OUT_NOT_WRITABLE with the errno, never INTERNAL with a stack
 * trace. `ours` says which paths are the output's (its temp folder, the
 * output itself, the folders made for it): an access error on another path
 * (an input that cannot be read) is not the output's, and null is returned
 * for it, as for every error that is not an errno.
 */
export function outputError(error: unknown, out: string, ours: (file: string) => boolean): FidelityError | null {
  if (error instanceof FidelityError) return null;
  const e = error as NodeJS.ErrnoException | undefined;
  const code = e?.code;
  if (typeof code !== 'string') return null;
  const failing = typeof e!.path === 'string' ? path.resolve(e!.path) : null;
  if (!WRITE_ONLY_ERRNOS.has(code) && !(ACCESS_ERRNOS.has(code) && (failing === null || ours(failing)))) return null;
  const what = code === 'ENOSPC' || code === 'EDQUOT' ? 'the disk or quota is full' : code === 'EFBIG' ? 'a file exceeds the size this process may write' : code === 'EROFS' ? 'the file system is read-only' : 'the folder refused the write';
  return new FidelityError('OUT_NOT_WRITABLE', `${out} could not be written: ${what} (${code}${e!.syscall ? ` on ${e!.syscall}` : ''}); nothing was put in its place`, { cause: error });
}

/**
 * Creates `dir` and its missing parents one level at a time, returning the
 * first folder it created (as mkdir's recursive form does). Not mkdir's
 * recursive form itself: under a pseudo file system (/proc, /sys) that form
 * loops forever, where this fails with the errno.
 */
export async function makeFolders(dir: string): Promise<string | undefined> {
  const missing: string[] = [];
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    const info = await lstat(d).catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? null : Promise.reject(error)));
    // An existing step ends the walk; if it is a file, the first mkdir below fails with the system's own errno.
    if (info) break;
    missing.unshift(d);
    if (path.dirname(d) === d) break;
  }
  if (missing.length === 0 && !(await lstat(dir)).isDirectory()) await mkdir(dir);
  for (const d of missing) {
    try {
      await mkdir(d);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || !(await lstat(d).catch(() => null))?.isDirectory()) throw error;
    }
  }
  return missing[0];
}

/**
 * Creates the missing folders above `out`, returning the ones it made (top first) so they can be
 * removed on failure. Shards of one job array start at the same moment with --out folders side by
 * side under one missing parent: a folder another process made between our look and our mkdir is
 * theirs, used as it is and never removed by us.
 */
async function makeParents(out: string, dir: string): Promise<string[]> {
  const missing: string[] = [];
  for (let d = dir; ; d = path.dirname(d)) {
    const info = await lstat(d).catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? null : Promise.reject(notWritable(out, d, error))));
    if (info) {
      if (!info.isDirectory()) throw notWritable(out, d, undefined, 'it is a file');
      break;
    }
    missing.unshift(d);
    if (path.dirname(d) === d) break;
  }
  const made: string[] = [];
  for (const d of missing) {
    try {
      await mkdir(d);
      made.push(d);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST' && (await lstat(d).catch(() => null))?.isDirectory()) continue;
      await removeEmpty(made);
      throw notWritable(out, d, error);
    }
  }
  return made;
}

/** Removes the folders it made, deepest first, and only while they are empty. */
async function removeEmpty(made: readonly string[]): Promise<void> {
  for (const d of [...made].reverse()) {
    try {
      await rmdir(d);
    } catch {
      return;
    }
  }
}

async function takeLock(out: string, file: string): Promise<LockOwner> {
  const me: LockOwner = { pid: process.pid, host: HOST_TAG, hostname: os.hostname(), token: `${ownerTag()}-${Math.random().toString(16).slice(2)}` };
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await open(file, 'wx');
      try {
        holdUntilExit(file, me.token);
        await handle.writeFile(`${JSON.stringify(me)}\n`);
      } catch (error) {
        // Created but not written (a full disk): an empty lock would read as held by someone forever.
        held.delete(file);
        await handle.close();
        await unlink(file).catch(() => undefined);
        throw error;
      }
      await handle.close();
      return me;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw notWritable(out, path.dirname(file), error);
    }
    let text = '';
    let owner: Partial<LockOwner> = {};
    try {
      text = await readFile(file, 'utf8');
      owner = JSON.parse(text) as Partial<LockOwner>;
    } catch {
      // Unreadable or half-written: its owner may be writing it right now, so it counts as held.
    }
    const dead = owner.host === HOST_TAG && typeof owner.pid === 'number' && owner.pid !== process.pid && !pidAlive(owner.pid);
    if (!dead || attempt > 2) {
      const who = typeof owner.pid === 'number' ? `process ${owner.pid} on ${owner.hostname ?? 'an unknown host'}` : 'another process';
      throw new FidelityError(
        'OUT_LOCKED',
        `--out ${out} is being written by ${who} (lock file ${file}); wait for it to finish, or delete the lock file if that process is gone`,
      );
    }
    await removeStaleLock(file, text, me.token);
  }
}

/**
 * The owner was killed: its lock is stale. Two takers may both have read it;
 * a plain unlink by the slower one could delete the lock the faster one has
 * just made. So the lock is renamed away (atomic), and put back if what was
 * moved is no longer the stale one.
 */
async function removeStaleLock(file: string, staleText: string, token: string): Promise<void> {
  const aside = `${file}-stale-${token}`;
  try {
    await rename(file, aside);
  } catch {
    return;
  }
  const moved = await readFile(aside, 'utf8').catch(() => staleText);
  if (moved === staleText) {
    await unlink(aside).catch(() => undefined);
    return;
  }
  // A live lock was moved: link it back (never over a newer one), then drop the moved name.
  await link(aside, file).catch(() => undefined);
  await unlink(aside).catch(() => undefined);
}

/** Locks this process holds, released by one exit hook when the process ends without releasing them (a forced stop). */
const held = new Map<string, string>();
let exitHooked = false;

function holdUntilExit(file: string, token: string): void {
  held.set(file, token);
  if (exitHooked) return;
  exitHooked = true;
  process.once('exit', () => {
    for (const [f, t] of held) {
      try {
        if ((JSON.parse(readFileSync(f, 'utf8')) as Partial<LockOwner>).token === t) unlinkSync(f);
      } catch {
        // Already gone.
      }
    }
  });
}

async function releaseLock(file: string, me: LockOwner): Promise<void> {
  held.delete(file);
  try {
    const owner = JSON.parse(await readFile(file, 'utf8')) as Partial<LockOwner>;
    if (owner.token === me.token) await unlink(file);
  } catch {
    // Already gone: nothing to release.
  }
}

const STALE = /^(tmp|old)-([0-9a-f]{8})-([0-9]+)-[0-9a-f]+$/;

/**
 * Removes what a killed run left next to `out`. A finished temp bundle
 * (`tmp`) is dropped. A previous bundle moved aside (`old`) is put back when
 * `out` is missing (the run died between the two renames) and dropped
 * otherwise. Only names of this host whose pid has ended are touched.
 */
export async function sweepStaleSiblings(out: string): Promise<string[]> {
  const dir = path.dirname(out);
  const prefix = siblingPrefix(out);
  const swept: string[] = [];
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names.sort()) {
    if (!name.startsWith(prefix)) continue;
    const m = STALE.exec(name.slice(prefix.length));
    if (!m || !ownerIsDeadHere(m[2]!, m[3]!)) continue;
    const file = path.join(dir, name);
    try {
      if (m[1] === 'old' && !(await lstat(out).catch(() => null))) {
        await rename(file, out);
      } else {
        await rm(file, { recursive: true, force: true });
      }
      swept.push(file);
    } catch {
      // Best effort: a leftover that cannot be removed is no reason to refuse this run.
    }
  }
  return swept;
}

/** What claimOut() holds until the comparison ends. */
export interface OutClaim {
  /** `out` as the file system sees it (through symbolic links of its parents). */
  readonly realOut: string;
  /** Drops the lock, and the parent folders made for `out` if no bundle was put there. */
  release(): Promise<void>;
}

/**
 * Every check on `out` that can fail, done before any work: its name and
 * path limits (targets.ts), the real-path and identity checks against the
 * inputs, what `out` holds (inspect), whether its folder
 * is writable, and the lock. Leftovers of killed runs are swept under the lock.
 */
export async function claimOut(
  out: string,
  inputs: readonly string[],
  force: boolean,
  inspect: (out: string, force: boolean) => Promise<unknown>,
  option = '--out',
): Promise<OutClaim> {
  const tooLong = await outputPathProblem(out, 'folder');
  if (tooLong) throw new FidelityError('OUT_PATH_INVALID', `${option} ${out} ${tooLong}; choose a shorter path`);
  await checkOutAgainstRealInputs(out, inputs);
  // Paths miss hard links and bind mounts: the same check by device and inode, with the files beside each input.
  const clash = await targetClash(option, out, 'folder', await inputIdentities(inputs));
  if (clash) throw new FidelityError(clash.kind === 'inside' ? 'OUT_INSIDE_INPUT' : 'OUT_CONTAINS_INPUT', clash.message);
  await inspect(out, force);
  const real = await realOut(out);
  const made = await makeParents(out, path.dirname(real));
  const file = lockPath(real);
  let me: LockOwner;
  try {
    me = await takeLock(out, file);
  } catch (error) {
    await removeEmpty(made);
    throw error;
  }
  try {
    await sweepStaleSiblings(real);
  } catch (error) {
    await releaseLock(file, me);
    await removeEmpty(made);
    throw error;
  }
  return {
    realOut: real,
    async release() {
      await releaseLock(file, me);
      if (!(await lstat(real).catch(() => null))) await removeEmpty(made);
    },
  };
}
