import { constants } from 'node:fs';
import { lstat, open, readdir } from 'node:fs/promises';
import path from 'node:path';
import { stampOf, type FileStamp } from './file-stamp.js';
import type { ArchiveReader, RawEntry, ReaderOptions } from './source.js';

/**
 * A run folder. Links are reported, never followed: the walk uses lstat and
 * files are opened with O_NOFOLLOW, so a link swapped in after the walk is
 * refused by the kernel rather than read.
 */
export async function openDirectory(root: string, options: ReaderOptions): Promise<ArchiveReader> {
  const entries: RawEntry[] = [];
  let files = 0;
  let count = 0;

  async function walk(rel: string): Promise<void> {
    const children = await readdir(path.join(root, rel), { withFileTypes: true });
    // Byte order of names, so the walk (and every message) is the same on every machine.
    children.sort((a, b) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name)));
    for (const child of children) {
      if (files > options.stopAfterFiles || count > options.stopAfterEntries) return;
      count += 1;
      const name = rel ? `${rel}/${child.name}` : child.name;
      const info = await lstat(path.join(root, name));
      if (info.isSymbolicLink()) entries.push({ name, type: 'symlink', size: 0, detail: 'symbolic link' });
      else if (info.isDirectory()) {
        entries.push({ name, type: 'directory', size: 0 });
        await walk(name);
      } else if (info.isFile() && info.nlink > 1) {
        // A second name for the same bytes: a change made through the other name changes the run after it was sealed.
        entries.push({ name, type: 'hardlink', size: 0, detail: `hard link (${info.nlink} names for one file)` });
      } else if (info.isFile()) {
        files += 1;
        entries.push({ name, type: 'file', size: info.size });
      } else entries.push({ name, type: 'special', size: 0, detail: 'device, FIFO or socket' });
    }
  }
  await walk('');
  const stamps = new Map<string, FileStamp>();

  return {
    kind: 'directory',
    listing: () => entries,
    async scan(visit) {
      for (const entry of entries) {
        await visit(entry, entry.type === 'file' ? () => readNoFollow(path.join(root, entry.name), (s) => stamps.set(entry.name, s)) : null);
      }
    },
    stamps,
    close: async () => {},
  };
}

/**
 * The bytes of `file`, never through a link. `onStamp` gets the file's stamp taken before its first
 * byte is read: a change made while or after it is read moves its ctime past that stamp.
 */
export async function* readNoFollow(file: string, onStamp?: (stamp: FileStamp) => void): AsyncIterable<Uint8Array> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const info = await handle.stat({ bigint: true });
    if (!info.isFile()) throw new Error('not a regular file');
    onStamp?.(stampOf(info));
    yield* handle.createReadStream({ autoClose: false, highWaterMark: 1024 * 1024 });
  } finally {
    await handle.close();
  }
}
