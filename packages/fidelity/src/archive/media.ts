/**
 * Real file paths for ffmpeg, which needs to seek. A folder gives its own
 * file. A zip entry is copied out on demand (the central directory makes that
 * one seek). A tar.gz has no index: the first request copies every verified
 * media file out in one streamed pass, so N requests cost one pass, not N.
 * Copies land only in the run's own temp folder, under names made from
 * verified slot ids, are re-hashed on the way, and must equal the seal.
 *
 * Why not copy tar.gz media during verification's own pass: `fidelity verify`
 * would then write every clip to disk for nothing. Measured on 2 cores with a
 * 180 MB run (three 60 MB clips): verify 2.6 s, the later copy-out pass 3.1 s,
 * versus 2.2 s + 2.9 s for the same zip and 0.6 s + 0 for the folder.
 */
import { lstat, open, unlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { FidelityError } from '../errors.js';
import { stampChange, stampOf, type FileStamp } from './file-stamp.js';
import { hashChunks } from './hash.js';
import type { ArchiveReader } from './source.js';
import { makeTempDir, removeTempDir, tempFailure } from '../temp.js';
import type { ArchiveKind, ArchiveLimits, MediaEntry } from './types.js';

export interface MediaAccess {
  mediaPath(slotId: string): Promise<string>;
  /** Throws MEDIA_CHANGED when the file mediaPath gave for `slotId` is not, by its stamp, the one verified (or copied out). */
  checkMedia(slotId: string): Promise<void>;
  close(): Promise<void>;
}

export interface MediaSource {
  source: string;
  kind: ArchiveKind;
  /** Folder stripped from stored names (zip / tar.gz with one top-level folder). */
  prefix: string;
  media: Map<string, MediaEntry>;
  tempDir?: string;
  /** The limits verification used; a second pass over a .tar.gz is held to them too. */
  limits?: Pick<ArchiveLimits, 'maxDecompressedBytes' | 'maxCompressionRatio'>;
  /** A folder's files by stored name, each one's stamp taken as verification read it (ArchiveReader.stamps). */
  stamps?: ReadonlyMap<string, FileStamp>;
}

const SAFE_SLOT = /^[a-z0-9-]+$/;

export function mediaAccess(src: MediaSource): MediaAccess {
  let closed = false;
  let tempDir: Promise<string> | null = null;
  let reader: Promise<ArchiveReader> | null = null;
  const copies = new Map<string, Promise<string>>();
  /** Each file mediaPath gave, with the stamp it must still have: a folder's as verified, a copy's as written. */
  const given = new Map<string, { file: string; stamp: FileStamp | null }>();

  const lookup = (slotId: string): MediaEntry => {
    if (closed) throw new FidelityError('RUN_CLOSED', `the run ${src.source} was closed; verify it again to read its media`);
    const entry = src.media.get(slotId);
    if (!entry) throw new FidelityError('INVALID_ARGUMENT', `slot ${JSON.stringify(slotId)} has no verified media in ${src.source}`);
    return entry;
  };

  async function inPlace(entry: MediaEntry): Promise<string> {
    const file = path.resolve(src.source, entry.path);
    const stamp = src.stamps?.get(src.prefix + entry.path) ?? null;
    const info = await lstat(file, { bigint: true }).catch(() => null);
    if (!info || !info.isFile() || info.size !== BigInt(entry.size)) throw changed(entry, 'changed after verification');
    given.set(entry.slot_id, { file, stamp });
    await check(entry.slot_id);
    return file;
  }

  /** The file given for `slotId` against its stamp: any write since (even of the same bytes, even undone) is MEDIA_CHANGED. */
  async function check(slotId: string): Promise<void> {
    const g = given.get(slotId);
    if (!g) return;
    const entry = src.media.get(slotId)!;
    const info = await lstat(g.file, { bigint: true }).catch(() => null);
    if (!info || !info.isFile()) throw changed(entry, 'is no longer a regular file at its path');
    const what = g.stamp ? stampChange(g.stamp, stampOf(info)) : info.size === BigInt(entry.size) ? null : 'size';
    if (what) throw changed(entry, `changed after verification (${what}): the bytes measured may not be the sealed ones`);
  }

  /** One pass over the archive copying out every entry asked for. */
  async function copyOut(entries: MediaEntry[]): Promise<Map<string, string>> {
    const dir = await (tempDir ??= makeTempDir(src.tempDir, 'run'));
    // The zip and tar readers (yauzl, tar-stream) load with the first packed archive read, not with the library.
    const r = await (reader ??=
      src.kind === 'zip'
        ? import('./source-zip.js').then(({ openZip }) => openZip(src.source, { stopAfterFiles: Number.MAX_SAFE_INTEGER, stopAfterEntries: Number.MAX_SAFE_INTEGER }))
        : import('./source-tar.js').then(({ openTarGz }) => openTarGz(src.source, src.limits)));
    const wanted = new Map(entries.map((e) => [src.prefix + e.path, e]));
    const done = new Map<string, string>();
    await r.scan(async (raw, body) => {
      const entry = wanted.get(raw.name);
      if (!entry || !body || done.has(entry.slot_id)) return;
      done.set(entry.slot_id, await copyOne(entry, body(), dir));
    });
    for (const e of entries) {
      if (!done.has(e.slot_id)) throw changed(e, 'is no longer in the archive');
    }
    return done;
  }

  async function copyOne(entry: MediaEntry, chunks: AsyncIterable<Uint8Array>, dir: string): Promise<string> {
    if (!SAFE_SLOT.test(entry.slot_id)) throw new FidelityError('INTERNAL', `unverified slot id ${JSON.stringify(entry.slot_id)}`);
    const dest = path.join(dir, `${entry.slot_id}.mp4`);
    // "wx": never overwrite, never follow a link someone planted in the folder.
    // A temp folder that fills up (or is taken away) while media are copied out is TEMP_NOT_WRITABLE, not a failure of ours.
    const unusable = (error: unknown): unknown => tempFailure(error, src.tempDir ?? os.tmpdir(), `copying ${entry.path} out`, src.tempDir !== undefined);
    const handle = await open(dest, 'wx').catch((error: unknown) => {
      throw unusable(error);
    });
    let result: { sha256: string; size: number };
    try {
      result = await hashChunks(chunks, async (c) => {
        await handle.write(c).catch((error: unknown) => {
          throw unusable(error);
        });
      });
    } catch (error) {
      await handle.close();
      await unlink(dest).catch(() => {});
      throw error;
    }
    await handle.close();
    if (result.sha256 !== entry.sha256 || result.size !== entry.size) {
      await unlink(dest).catch(() => {});
      throw changed(entry, `now hashes to ${result.sha256}, the seal says ${entry.sha256}`);
    }
    // The copy's stamp once closed (a network file system may set its times on close): nothing of
    // ours writes it again, in a folder only this user can enter, so any later change is someone else's.
    given.set(entry.slot_id, { file: dest, stamp: stampOf(await lstat(dest, { bigint: true })) });
    return dest;
  }

  function changed(entry: MediaEntry, why: string): FidelityError {
    const message = `${entry.path} in ${src.source} ${why}`;
    return new FidelityError('MEDIA_CHANGED', message, { problems: [{ code: 'MEDIA_CHANGED', message, where: { file: entry.path } }] });
  }

  function remember(slotId: string, pass: Promise<Map<string, string>>): Promise<string> {
    const copy = pass.then((m) => m.get(slotId)!);
    // A pass that fails rejects every copy it was making; only the ones asked for are awaited.
    copy.catch(() => {});
    copies.set(slotId, copy);
    return copy;
  }

  return {
    async mediaPath(slotId) {
      const entry = lookup(slotId);
      const existing = copies.get(slotId);
      if (existing) return existing;
      if (src.kind === 'directory') return inPlace(entry);
      if (src.kind === 'zip') {
        return remember(slotId, copyOut([entry]));
      }
      const pending = [...src.media.values()].filter((e) => !copies.has(e.slot_id));
      const pass = copyOut(pending);
      for (const e of pending) void remember(e.slot_id, pass);
      return copies.get(slotId)!;
    },
    async checkMedia(slotId) {
      lookup(slotId);
      await check(slotId);
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.allSettled(copies.values());
      if (reader) await (await reader.catch(() => null))?.close();
      if (tempDir) await removeTempDir(await tempDir);
    },
  };
}
