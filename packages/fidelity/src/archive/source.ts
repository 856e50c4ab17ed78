/**
 * One read-only view over a run archive, whatever its container. Readers
 * report every entry as it is (links and odd names included) and let
 * inventory.ts judge; nothing here writes anywhere.
 */
import { open, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ArchiveKind } from './types.js';
import type { FileStamp } from './file-stamp.js';

export type EntryType = 'file' | 'directory' | 'symlink' | 'hardlink' | 'special';

export interface RawEntry {
  /** The name as stored (folders without their trailing slash; tar's leading "./" removed). */
  name: string;
  type: EntryType;
  /** Declared size in bytes (regular files). */
  size: number;
  /** Link target or entry type, for messages. */
  detail?: string;
  /** Compressed size where the container declares one (zip), for the compression-ratio limit. */
  packedSize?: number;
}

export type Body = () => AsyncIterable<Uint8Array>;

export interface ArchiveReader {
  readonly kind: ArchiveKind;
  /**
   * Every entry, known before any content is read (folder walk, zip central
   * directory), so limits can refuse early; null where only a pass reveals
   * them (tar.gz).
   */
  listing(): RawEntry[] | null;
  /**
   * One pass over the entries in order. `body` (regular files only) streams
   * the content; an entry whose body is not read is skipped.
   */
  scan(visit: (entry: RawEntry, body: Body | null) => Promise<void>): Promise<void>;
  close(): Promise<void>;
  /** A folder's files by stored name: each one's stamp taken just before its bytes were read (source-dir.ts). */
  readonly stamps?: ReadonlyMap<string, FileStamp>;
}

export interface ReaderOptions {
  /** Stop listing after this many regular files: enough to know a limit is exceeded. */
  stopAfterFiles: number;
  /** Stop listing after this many entries of any kind (folders and links count too). */
  stopAfterEntries: number;
}

/**
 * Thrown by a reader whose stream crossed a limit only the stream can see
 * (inflated bytes, compression ratio of a .tar.gz), or that found something
 * two tar readers would read differently: inventory.ts reports it with its
 * own code instead of a generic "cannot be read".
 */
export class ReaderRefusal extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Thrown by a visitor to end a scan early (a limit was hit); readers release their streams. */
export class StopScan extends Error {
  constructor() {
    super('scan stopped');
  }
}

export type SourceKind = ArchiveKind | 'unknown';

/** Decides by content, not by name: a `.zip` that is not a zip is refused, whatever it is called. */
export async function detectKind(path: string): Promise<SourceKind> {
  const info = await stat(path);
  if (info.isDirectory()) return 'directory';
  if (!info.isFile()) return 'unknown';
  const handle = await open(path, 'r');
  try {
    const head = Buffer.alloc(4);
    const { bytesRead } = await handle.read(head, 0, 4, 0);
    if (bytesRead >= 4 && head[0] === 0x50 && head[1] === 0x4b && (head[2] === 3 || head[2] === 5) && (head[3] === 4 || head[3] === 6)) {
      return 'zip';
    }
    if (bytesRead >= 2 && head[0] === 0x1f && head[1] === 0x8b) return 'tar.gz';
    return 'unknown';
  } finally {
    await handle.close();
  }
}

/** The name a run is known by in reports and messages: its archive path's base name, without a trailing separator (never a machine path). */
export function sourceName(source: string): string {
  return path.basename(source.replace(/[\\/]+$/, '')) || source;
}
