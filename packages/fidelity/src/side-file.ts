/**
 * Reading a small file that someone else made: a seal (SHA256SUMS), a policy,
 * a calibration, a digest sidecar (<zip>.sha256), a provenance record, a
 * partial's partial.json. Each is evidence, not a path to follow, so:
 * - it must be a regular file: a symbolic link is refused, never followed
 *   (O_NOFOLLOW), and a FIFO, socket or device is refused without blocking
 *   (O_NONBLOCK: opening a FIFO that has no writer would otherwise wait
 *   forever, and a read of one blocks a thread no signal can free);
 * - it is read up to a bound, never whole whatever its size.
 * JSON side files are also read strictly, as a run archive's JSON is
 * (archive/json-strict.ts): no byte order mark, no key twice in one object,
 * no nesting deeper than a reader can walk.
 */
import { constants } from 'node:fs';
import { lstat, open, type FileHandle } from 'node:fs/promises';
import { hasBom, scanJson } from './archive/json-strict.js';

const KiB = 1024;
const MiB = 1024 * KiB;

/** Upper bounds of each kind of side file; far above anything this tool writes, far below what would hurt. */
export const SIDE_FILE_LIMITS = {
  /** SHA256SUMS of a bundle or partial: about 100 bytes a line. */
  seal: 16 * MiB,
  /** A --policy file: a handful of checks. */
  policy: 1 * MiB,
  /** A calibration.json: every value of the noise sample, thousands of pairs. */
  calibration: 64 * MiB,
  /** <archive>.sha256: one line. */
  digest: 4 * KiB,
  /** <archive>.provenance.json: the provider's answers, a bounded number of requests. */
  provenance: 1 * MiB,
  /** A shard's partial.json: every measured pair with its per-frame series. */
  partial: 512 * MiB,
} as const;

/** Why a side file could not be read; `message` says it for people. */
export type SideFileFault = { why: 'missing' | 'link' | 'not-regular' | 'too-large' | 'unreadable'; message: string; errno?: string };

/** The bytes of a side file, or why there are none. */
export type SideFileRead = { ok: true; bytes: Buffer } | ({ ok: false } & SideFileFault);

function kindOf(st: { isDirectory(): boolean; isFIFO(): boolean; isSocket(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isSymbolicLink(): boolean }): string {
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

/** MiB or KiB, for messages. */
export function sizeText(bytes: number): string {
  return bytes >= MiB ? `${bytes / MiB} MiB` : `${bytes / KiB} KiB`;
}

/**
 * Reads `file` when it is a regular file of at most `maxBytes` bytes; never
 * follows a link and never blocks on a FIFO. Does not throw for what the
 * file is (the caller turns the fault into its own reason code).
 */
export async function readSideFile(file: string, maxBytes: number): Promise<SideFileRead> {
  const fault = (why: SideFileFault['why'], message: string, errno?: string): SideFileRead => ({ ok: false, why, message, ...(errno ? { errno } : {}) });
  // lstat first, for a clear message; O_NOFOLLOW below closes the race of a link put in place in between.
  const info = await lstat(file).catch((error: NodeJS.ErrnoException) => error);
  if (info instanceof Error) {
    const code = (info as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? fault('missing', 'does not exist', code) : fault('unreadable', `cannot be read (${code ?? info.message})`, code);
  }
  if (info.isSymbolicLink()) return fault('link', 'is a symbolic link; give the file itself (links are never followed)');
  if (!info.isFile()) return fault('not-regular', `is ${kindOf(info)}, not a regular file`);
  let handle: FileHandle;
  try {
    handle = await open(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return fault('link', 'is a symbolic link; give the file itself (links are never followed)');
    if (code === 'ENOENT') return fault('missing', 'does not exist', code);
    return fault('unreadable', `cannot be read (${code ?? (error as Error).message})`, code);
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) return fault('not-regular', `is ${kindOf(st)}, not a regular file`);
    if (st.size > maxBytes) return fault('too-large', `is ${st.size} bytes, more than the ${sizeText(maxBytes)} such a file may have`);
    // Read at most one byte past the bound: a file that grows while it is read is still refused, never read whole.
    const buffer = Buffer.alloc(Math.min(st.size, maxBytes) + 1);
    let filled = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
      if (filled === buffer.length) {
        if (filled > maxBytes) return fault('too-large', `grew past the ${sizeText(maxBytes)} such a file may have while it was read`);
        break;
      }
    }
    return { ok: true, bytes: buffer.subarray(0, filled) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return fault('unreadable', `cannot be read (${code ?? (error as Error).message})`, code);
  } finally {
    await handle.close();
  }
}

/** A parsed JSON side file, or why it is refused. */
export type StrictJson = { ok: true; value: unknown } | { ok: false; message: string };

/**
 * Parses a JSON side file as strictly as a run archive's JSON: UTF-8 without
 * a byte order mark, no key twice in one object (JSON.parse keeps the last,
 * another reader the first), no nesting deeper than MAX_JSON_DEPTH.
 */
export function parseStrictJson(bytes: Uint8Array): StrictJson {
  if (hasBom(bytes)) return { ok: false, message: 'starts with a byte order mark (JSON forbids one)' };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, message: 'is not UTF-8' };
  }
  const faults = scanJson(text, 1);
  if (faults.length > 0) {
    const f = faults[0]!;
    return { ok: false, message: 'path' in f ? `${f.message} (${f.path || '$'}, line ${f.line})` : f.message };
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, message: `is not valid JSON: ${(error as Error).message}` };
  }
}
