/**
 * Reads every entry of an archive once: judges names and types, enforces the
 * limits, hashes each regular file while it streams past, and keeps the bytes
 * of the few small metadata files. Then decides the layout (files at the root
 * or under one top-level folder) and maps stored names to run paths.
 */
import { Findings, shown } from './findings.js';
import { describeFault, pathFault } from './entry-path.js';
import { hashChunks } from './hash.js';
import { metadataCandidate, METADATA_FILES } from './layout.js';
import { RATIO_FLOOR_BYTES } from './limits.js';
import { ReaderRefusal, StopScan, type ArchiveReader, type RawEntry } from './source.js';
import { FidelityError } from '../errors.js';
import type { ArchiveLimits } from './types.js';

export interface InventoryFile {
  /** Path inside the run (after the top-level folder, if any, is removed). */
  path: string;
  /** Name as stored in the archive. */
  stored: string;
  size: number;
  /** Null when the entry could not be read. */
  sha256: string | null;
}

export interface Inventory {
  /** Regular files by run path, sorted by path. */
  files: Map<string, InventoryFile>;
  /** Bytes of the metadata files present, by run path. */
  metadata: Map<string, Buffer>;
  /** The top-level folder removed from stored names ("" at the root). */
  prefix: string;
}

const MiB = 1024 * 1024;

function bytes(n: number): string {
  return n >= MiB ? `${(n / MiB).toFixed(1)} MiB` : `${n} bytes`;
}

/** Returns null when the archive cannot be judged further (unreadable, over a limit, no usable layout). */
export async function takeInventory(reader: ArchiveReader, limits: ArchiveLimits, findings: Findings, signal?: AbortSignal): Promise<Inventory | null> {
  const listing = reader.listing();
  if (listing && !withinLimits(listing, limits, findings)) return null;

  const stored = new Map<string, { size: number; sha256: string | null }>();
  const kept = new Map<string, Buffer>();
  const allowTopFolder = reader.kind !== 'directory';
  // Only the root and the first top-level folder can hold the run (any other layout is refused),
  // so only those copies of the metadata files are kept in memory.
  let firstTop: string | null = null;
  let count = 0;
  let entries = 0;
  let total = 0;

  async function visit(entry: RawEntry, body: (() => AsyncIterable<Uint8Array>) | null): Promise<void> {
    if (signal?.aborted) throw new FidelityError('ABORTED', 'verification was cancelled', { cause: signal.reason });
    const where = { file: entry.name };
    // Folders and links count: 300k of them cost as much to judge (and to report) as 300k files.
    entries += 1;
    if (!listing && entries > limits.maxEntries) return stop('LIMIT_ENTRIES', `the archive holds more than ${limits.maxEntries} entries (files, folders, links and anything else)`);
    const fault = pathFault(entry.name);
    if (fault) {
      findings.error('ARCHIVE_UNSAFE_ENTRY', `entry ${shown(entry.name)} ${describeFault(fault)}; it is not read`, where);
      return;
    }
    if (entry.type === 'symlink' || entry.type === 'hardlink') {
      findings.error('ARCHIVE_LINK_ENTRY', `entry ${shown(entry.name)} is a ${entry.detail ?? 'link'}; links are never followed`, where);
      return;
    }
    if (entry.type === 'special') {
      findings.error('ARCHIVE_SPECIAL_ENTRY', `entry ${shown(entry.name)} is not a regular file (${entry.detail ?? 'special'})`, where);
      return;
    }
    if (entry.type === 'directory' || !body) return;
    // tar.gz has no listing: its limits are enforced here, on each header, before the content flows.
    count += 1;
    total += entry.size;
    if (!listing) {
      if (count > limits.maxFiles) return stop('LIMIT_FILES', `the archive holds more than ${limits.maxFiles} files`);
      if (entry.size > limits.maxFileBytes) return stop('LIMIT_FILE_SIZE', `${shown(entry.name)} is ${bytes(entry.size)}, over the ${bytes(limits.maxFileBytes)} limit`, where);
      if (total > limits.maxTotalBytes) return stop('LIMIT_TOTAL_SIZE', `the files add up to more than the ${bytes(limits.maxTotalBytes)} limit`);
    }
    if (stored.has(entry.name)) {
      findings.error('ARCHIVE_DUPLICATE_ENTRY', `entry ${shown(entry.name)} appears more than once; which one counts is ambiguous`, where);
      return;
    }
    const slash = entry.name.indexOf('/');
    if (allowTopFolder && slash > 0) firstTop ??= entry.name.slice(0, slash);
    const keep = metadataCandidate(entry.name, allowTopFolder ? firstTop : null);
    if (keep && entry.size > limits.maxMetadataBytes) {
      return stop('LIMIT_METADATA_SIZE', `${shown(entry.name)} is ${bytes(entry.size)}; metadata files are read into memory and may not exceed ${bytes(limits.maxMetadataBytes)}`, where);
    }
    const chunks: Uint8Array[] = [];
    try {
      let held = 0;
      const { sha256, size } = await hashChunks(
        body(),
        keep
          ? (c) => {
              held += c.byteLength;
              if (held > limits.maxMetadataBytes) stop('LIMIT_METADATA_SIZE', `${shown(entry.name)} grew past the ${bytes(limits.maxMetadataBytes)} metadata limit while read`, where);
              chunks.push(c);
            }
          : undefined,
      );
      if (size > limits.maxFileBytes) return stop('LIMIT_FILE_SIZE', `${shown(entry.name)} grew to ${bytes(size)} while read, over the limit`, where);
      stored.set(entry.name, { size, sha256 });
      if (keep) kept.set(entry.name, Buffer.concat(chunks));
    } catch (error) {
      if (error instanceof StopScan || error instanceof FidelityError) throw error;
      if (reader.kind === 'tar.gz') throw error;
      findings.error('ARCHIVE_UNREADABLE', `entry ${shown(entry.name)} cannot be read: ${(error as Error).message}`, where);
      stored.set(entry.name, { size: entry.size, sha256: null });
    }
  }

  function stop(code: string, message: string, where?: { file: string }): never {
    findings.error(code, message, where);
    throw new StopScan();
  }

  try {
    await reader.scan(visit);
  } catch (error) {
    if (error instanceof StopScan) return null;
    if (error instanceof FidelityError) throw error;
    if (error instanceof ReaderRefusal) {
      findings.error(error.code, error.message);
      return null;
    }
    findings.error('ARCHIVE_UNREADABLE', `the ${reader.kind} cannot be read: ${(error as Error).message}`);
    return null;
  }

  return arrange(stored, kept, allowTopFolder, findings);
}

function withinLimits(listing: RawEntry[], limits: ArchiveLimits, findings: Findings): boolean {
  const files = listing.filter((e) => e.type === 'file');
  let ok = true;
  if (listing.length > limits.maxEntries) {
    findings.error('LIMIT_ENTRIES', `the archive holds more than ${limits.maxEntries} entries (files, folders, links and anything else)`);
    ok = false;
  }
  if (files.length > limits.maxFiles) {
    findings.error('LIMIT_FILES', `the archive holds more than ${limits.maxFiles} files`);
    ok = false;
  }
  for (const f of files) {
    if (f.size > limits.maxFileBytes) {
      findings.error('LIMIT_FILE_SIZE', `${shown(f.name)} is ${bytes(f.size)}, over the ${bytes(limits.maxFileBytes)} limit`, { file: f.name });
      ok = false;
    }
    if (f.packedSize !== undefined && f.size >= RATIO_FLOOR_BYTES && f.size > limits.maxCompressionRatio * Math.max(f.packedSize, 1)) {
      findings.error(
        'LIMIT_COMPRESSION_RATIO',
        `${shown(f.name)} inflates ${f.packedSize} bytes into ${f.size}, more than ${limits.maxCompressionRatio} times (limit maxCompressionRatio)`,
        { file: f.name },
      );
      ok = false;
    }
  }
  const total = files.reduce((sum, f) => sum + f.size, 0);
  if (total > limits.maxTotalBytes) {
    findings.error('LIMIT_TOTAL_SIZE', `the files add up to ${bytes(total)}, over the ${bytes(limits.maxTotalBytes)} limit`);
    ok = false;
  }
  return ok;
}

function arrange(
  stored: Map<string, { size: number; sha256: string | null }>,
  kept: Map<string, Buffer>,
  allowTopFolder: boolean,
  findings: Findings,
): Inventory | null {
  const names = [...stored.keys()];
  if (names.length === 0) {
    findings.error('ARCHIVE_EMPTY', 'the archive holds no readable files');
    return null;
  }
  let prefix = '';
  if (allowTopFolder && names.every((n) => n.includes('/'))) {
    const tops = [...new Set(names.map((n) => n.slice(0, n.indexOf('/'))))].sort();
    if (tops.length > 1) {
      findings.error('ARCHIVE_LAYOUT', `the files are under ${tops.length} top-level folders (${tops.map((t) => shown(t, 40)).join(', ')}), expected the root or one folder`);
      return null;
    }
    prefix = `${tops[0]}/`;
  }

  const files = new Map<string, InventoryFile>();
  for (const name of names.sort()) {
    const entry = stored.get(name)!;
    files.set(name.slice(prefix.length), { path: name.slice(prefix.length), stored: name, size: entry.size, sha256: entry.sha256 });
  }
  const metadata = new Map<string, Buffer>();
  for (const m of METADATA_FILES) {
    const bytesOf = kept.get(prefix + m);
    if (bytesOf) metadata.set(m, bytesOf);
  }
  findCollisions([...files.keys()], findings);
  return { files, metadata, prefix };
}

/** Names that one file system keeps apart and another merges (case, Unicode form), or a file that is also a folder. */
function findCollisions(paths: string[], findings: Findings): void {
  const folded = new Map<string, string>();
  const folders = new Set<string>();
  for (const p of paths) {
    const parts = p.split('/');
    for (let i = 1; i < parts.length; i++) folders.add(parts.slice(0, i).join('/'));
  }
  for (const p of paths) {
    const key = p.normalize('NFC').toLowerCase();
    const other = folded.get(key);
    if (other !== undefined) {
      findings.error('ARCHIVE_NAME_COLLISION', `${shown(p)} and ${shown(other)} differ only in case or Unicode form`, { file: p });
    } else folded.set(key, p);
    if (folders.has(p)) findings.error('ARCHIVE_NAME_COLLISION', `${shown(p)} is both a file and a folder`, { file: p });
  }
}
