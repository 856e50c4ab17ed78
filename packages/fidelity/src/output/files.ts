/**
 * Small file-system steps the bundle writer and checker share: durable
 * writes (data reaches the disk before the folder is renamed into place), a
 * hashing copy, and a sorted walk.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { lstat, mkdir, open, readdir } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { FidelityError } from '../errors.js';
import { byPath } from './seal.js';

export async function fsyncPath(p: string): Promise<void> {
  const handle = await open(p, 'r');
  try {
    await handle.sync();
  } catch (error) {
    // Some file systems refuse fsync on a directory handle; the data files were synced already.
    if ((error as NodeJS.ErrnoException).code !== 'EINVAL' && (error as NodeJS.ErrnoException).code !== 'EISDIR') throw error;
  } finally {
    await handle.close();
  }
}

export async function writeDurable(file: string, data: string | Uint8Array): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const handle = await open(file, 'wx');
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Copies `src` to `dest` and hashes the bytes as they pass, so the copy is
 * proven equal to the sealed digest, not just the source read a moment ago.
 */
export async function copyVerified(src: string, dest: string, expectedSha256: string, label: string): Promise<void> {
  await mkdir(path.dirname(dest), { recursive: true });
  const hash = createHash('sha256');
  const tap = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  await pipeline(createReadStream(src), tap, createWriteStream(dest, { flags: 'wx' }));
  const actual = hash.digest('hex');
  if (actual !== expectedSha256) {
    throw new FidelityError('MEDIA_CHANGED', `${label} changed since it was verified: sealed sha256 ${expectedSha256}, read ${actual}`);
  }
  await fsyncPath(dest);
}

export interface WalkEntry {
  /** Relative to the walked root, `/`-separated. */
  path: string;
  kind: 'file' | 'directory' | 'other';
}

/** Every entry under `root`, sorted by path; symbolic links are reported as `other`, never followed. */
export async function walk(root: string): Promise<WalkEntry[]> {
  const out: WalkEntry[] = [];
  async function visit(rel: string): Promise<void> {
    const names = (await readdir(path.join(root, rel))).sort(byPath);
    for (const name of names) {
      const childRel = rel ? `${rel}/${name}` : name;
      const st = await lstat(path.join(root, childRel));
      if (st.isDirectory()) {
        out.push({ path: childRel, kind: 'directory' });
        await visit(childRel);
      } else {
        out.push({ path: childRel, kind: st.isFile() ? 'file' : 'other' });
      }
    }
  }
  await visit('');
  return out.sort((a, b) => byPath(a.path, b.path));
}
