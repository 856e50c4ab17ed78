/**
 * Writes a finished run folder as one `.zip` (the shape of a CI artifact
 * download: the files at the zip's root) or `.tar.gz`, with its digest file
 * `<archive>.sha256` beside it (what a CI service reports as the artifact
 * digest, docs/run-archive.md "The artifact digest"). Entries are sorted and
 * carry one fixed time and mode, so the same run gives the same bytes.
 */
import { createWriteStream } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { sha256File } from '../hash.js';
import { listFiles } from './seal.js';

/** How `generateRuns` writes each run: a folder, a `.zip` or a `.tar.gz`. */
export type RunFormat = 'dir' | 'zip' | 'tar.gz';

/** The file name suffix of each archive format ('' for a folder). */
export const RUN_FORMAT_SUFFIX: Record<RunFormat, string> = { dir: '', zip: '.zip', 'tar.gz': '.tar.gz' };

// Any fixed time works; 2000-01-01 is inside both formats' ranges. Zip stores a DOS time made from
// local date fields (so the local midnight gives the same fields in every time zone, and the
// extended Unix timestamp is left out); tar stores Unix seconds.
const ZIP_TIME = new Date(2000, 0, 1);
const TAR_TIME = new Date(Date.UTC(2000, 0, 1));

async function writeZip(dir: string, files: string[], out: string): Promise<void> {
  // The packers load when an archive is written (generate --format zip|tar.gz), not with the library.
  const { default: yazl } = await import('yazl');
  const zip = new yazl.ZipFile();
  for (const f of files) zip.addFile(path.join(dir, f), f, { mtime: ZIP_TIME, forceDosTimestamp: true, mode: 0o100644, compress: !f.endsWith('.mp4') });
  zip.end();
  await pipeline(zip.outputStream, createWriteStream(out));
}

async function writeTarGz(dir: string, files: string[], out: string): Promise<void> {
  const { pack: tarPack } = await import('tar-stream');
  const tar = tarPack();
  const feed = (async () => {
    for (const f of files) {
      const body = await readFile(path.join(dir, f));
      await new Promise<void>((resolve, reject) => {
        tar.entry({ name: f, size: body.length, mode: 0o644, mtime: TAR_TIME, type: 'file' }, body, (err) => (err ? reject(err) : resolve()));
      });
    }
    tar.finalize();
  })();
  await Promise.all([feed, pipeline(tar, createGzip({ level: 9 }), createWriteStream(out))]);
}

/**
 * Packs the run folder `dir` into `target` (a `.zip` or `.tar.gz` path) and writes
 * `target.sha256`. Both files appear whole: each is written beside its name and renamed.
 */
export async function writeRunArchive(dir: string, target: string, format: Exclude<RunFormat, 'dir'>): Promise<{ sha256: string }> {
  const files = await listFiles(dir);
  const tmp = `${target}.tmp-${process.pid}`;
  try {
    if (format === 'zip') await writeZip(dir, files, tmp);
    else await writeTarGz(dir, files, tmp);
    const sha256 = await sha256File(tmp);
    await writeFile(`${tmp}.sha256`, `sha256:${sha256}\n`);
    await rename(tmp, target);
    await rename(`${tmp}.sha256`, `${target}.sha256`);
    return { sha256 };
  } finally {
    await rm(tmp, { force: true });
    await rm(`${tmp}.sha256`, { force: true });
  }
}
