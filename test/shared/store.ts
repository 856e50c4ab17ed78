/**
 * Shared test data: folders that several test files need (generated runs, the reference
 * comparison of the committed fixtures, its shard partials), built once per test run by whichever
 * file asks first, and read by every other file instead of made again.
 *
 * - One folder per test run: the global setup (test/shared/global-setup.ts) makes it under
 *   os.tmpdir(), hands it to the workers (`inject`), and removes it after the run.
 * - Content-addressed: an entry's folder is named by a hash of its name, its inputs (options, the
 *   bytes of the committed fixtures it reads) and the library itself (the sources and the build of
 *   both packages) and the ffmpeg and ffprobe binaries, so two files asking for the same thing get
 *   one folder and different inputs never share one.
 * - Built under a lock: `mkdir` of `<key>.lock` is atomic, so one worker builds while the other
 *   waits; the entry counts as built only once `<key>.json` appears, by an atomic rename. A lock
 *   whose builder has died (its pid gone) is taken over; a builder that fails releases the lock
 *   and throws, so the next asker builds again (and fails alike, in its own test).
 * - Read-only to tests: `<key>.json` holds the SHA-256 of every file built; the global teardown
 *   hashes the folders again and fails the run if a test changed one. A test that must change
 *   shared data copies it first (`copyShared`).
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import { snapshot } from '../e2e/helpers.js';
import { cpuSeconds, recordCpu } from './cpu.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The test run's folder of shared data (test/shared/global-setup.ts). */
    fidelitySharedRoot: string;
  }
}

export const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** Every file under dir (relative path -> sha256), sorted by path: the e2e helpers' snapshot. */
export const digestTree = snapshot;

const hashOf = (value: unknown): string => createHash('sha256').update(JSON.stringify(value)).digest('hex');

let library: string | undefined;
/** The library as these tests run it: the sources and builds of both packages, and the decoder binaries they find. */
function libraryDigest(): string {
  if (library) return library;
  const trees = ['packages/fidelity/src', 'packages/fidelity/dist', 'packages/cli/src', 'packages/cli/dist'].map((t) => {
    const dir = path.join(REPO, t);
    return [t, existsSync(dir) ? hashOf(digestTree(dir)) : null];
  });
  const tools = ['ffmpeg', 'ffprobe'].map((name) => {
    const bin = (process.env.PATH ?? '').split(path.delimiter).map((d) => path.join(d, name)).find((p) => existsSync(p));
    if (!bin) return [name, null];
    const s = statSync(bin);
    return [name, bin, s.size, s.mtimeMs];
  });
  library = hashOf({ trees, tools });
  return library;
}

const fixtureDigests = new Map<string, string>();
/** The bytes of an input folder (a committed run), as part of a key. */
export function inputDigest(dir: string): string {
  let d = fixtureDigests.get(dir);
  if (!d) {
    d = hashOf(digestTree(dir));
    fixtureDigests.set(dir, d);
  }
  return d;
}

let fallback: string | undefined;
/** The run's shared folder; without the global setup (a config that lacks it), one of this worker's own. */
export function sharedRoot(): string {
  let root: string | undefined;
  try {
    root = inject('fidelitySharedRoot');
  } catch {
    root = undefined;
  }
  if (root) return root;
  if (!fallback) {
    fallback = mkdtempSync(path.join(os.tmpdir(), 'fidelity-shared-worker-'));
    const dir = fallback;
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return fallback;
}

/** What `<key>.json` holds once an entry is built. */
export interface EntryRecord<T> {
  name: string;
  files: Record<string, string>;
  meta: T;
}

export interface Shared<T> {
  /** The entry's folder: read it, never write under it. */
  dir: string;
  /** What the builder returned (JSON: paths in it point into `dir`). */
  meta: T;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The lock's holder is gone: its pid no longer runs, or it never wrote one within a minute. */
function stale(lock: string): boolean {
  try {
    const pid = Number(readFileSync(path.join(lock, 'pid'), 'utf8'));
    return Number.isInteger(pid) && pid > 0 && !alive(pid);
  } catch {
    try {
      return Date.now() - statSync(lock).mtimeMs > 60_000;
    } catch {
      return false;
    }
  }
}

const pending = new Map<string, Promise<Shared<unknown>>>();

/**
 * The shared entry `name` for `inputs`, built by `build(dir)` into an empty folder if no file of
 * this run has built it yet. `inputs` must name everything the build depends on besides the
 * library (options, input folders' digests: see `inputDigest`).
 */
export function shared<T>(name: string, inputs: unknown, build: (dir: string) => Promise<T>): Promise<Shared<T>> {
  const key = `${name}-${hashOf({ name, inputs, library: libraryDigest() }).slice(0, 16)}`;
  let p = pending.get(key) as Promise<Shared<T>> | undefined;
  if (!p) {
    p = obtain(sharedRoot(), key, name, build);
    pending.set(key, p);
    p.catch(() => pending.delete(key));
  }
  return p;
}

/**
 * Takes the run-wide lock `name` (a folder under the run's shared root: `mkdir` is atomic), waiting
 * while another live process holds it; a lock whose holder died is taken over. Returns its release.
 */
export async function takeLock(name: string, root = sharedRoot()): Promise<() => void> {
  const lock = path.join(root, `${name}.lock`);
  for (;;) {
    try {
      mkdirSync(lock);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      if (stale(lock)) rmSync(lock, { recursive: true, force: true });
      else await sleep(250);
      continue;
    }
    writeFileSync(path.join(lock, 'pid'), String(process.pid));
    return () => rmSync(lock, { recursive: true, force: true });
  }
}

async function obtain<T>(root: string, key: string, name: string, build: (dir: string) => Promise<T>): Promise<Shared<T>> {
  const dir = path.join(root, key);
  const record = path.join(root, `${key}.json`);
  for (;;) {
    if (existsSync(record)) return { dir, meta: (JSON.parse(readFileSync(record, 'utf8')) as EntryRecord<T>).meta };
    const release = await takeLock(key, root);
    try {
      // Built while we waited for the lock: another worker finished it.
      if (existsSync(record)) continue;
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir);
      const cpuBefore = cpuSeconds();
      const meta = await build(dir);
      recordCpu({ shared: name }, cpuBefore, cpuSeconds());
      const entry: EntryRecord<T> = { name, files: digestTree(dir), meta };
      writeFileSync(`${record}.tmp`, JSON.stringify(entry));
      renameSync(`${record}.tmp`, record);
      return { dir, meta };
    } finally {
      release();
    }
  }
}

/** A writable copy of (part of) a shared entry, for a test that must change it. */
export function copyShared(from: string, to: string): string {
  cpSync(from, to, { recursive: true });
  return to;
}

/** Entries of the run's folder whose files are no longer what was built: [entry, files changed]. */
export function changedEntries(root: string): [string, string[]][] {
  const changed: [string, string[]][] = [];
  for (const name of readdirSync(root).filter((n) => n.endsWith('.json')).sort()) {
    const key = name.slice(0, -'.json'.length);
    const entry = JSON.parse(readFileSync(path.join(root, name), 'utf8')) as EntryRecord<unknown>;
    const now = existsSync(path.join(root, key)) ? digestTree(path.join(root, key)) : {};
    const files = [...new Set([...Object.keys(entry.files), ...Object.keys(now)])].filter((f) => entry.files[f] !== now[f]).sort();
    if (files.length > 0) changed.push([key, files]);
  }
  return changed;
}
