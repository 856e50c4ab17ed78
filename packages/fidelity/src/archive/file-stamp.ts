/**
 * What a file is, as the file system tells it: its device and inode, size, and the nanosecond times
 * of its last content change (mtime) and last inode change (ctime). A file verified with one stamp
 * and later found with another has changed in between, whatever its bytes are then: a write, even
 * of the same bytes, moves ctime, and nothing but the system clock can move ctime back (touch and
 * utimes set mtime only). So media checked against the stamp they were verified with after their
 * last use were the verified bytes throughout (docs/media.md, "Media that change").
 */
import type { BigIntStats } from 'node:fs';

/** A file's identity and change times (bigint stat, nanoseconds). */
export interface FileStamp {
  dev: bigint;
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
}

/** The stamp of a bigint stat. */
export function stampOf(s: BigIntStats): FileStamp {
  return { dev: s.dev, ino: s.ino, size: s.size, mtimeNs: s.mtimeNs, ctimeNs: s.ctimeNs };
}

/** What differs between two stamps of one file ("size, ctime"), or null when nothing does. */
export function stampChange(then: FileStamp, now: FileStamp): string | null {
  const changed: string[] = [];
  if (then.dev !== now.dev || then.ino !== now.ino) changed.push('replaced by another file');
  if (then.size !== now.size) changed.push(`size ${then.size} -> ${now.size} bytes`);
  if (then.mtimeNs !== now.mtimeNs) changed.push('modification time');
  if (then.ctimeNs !== now.ctimeNs) changed.push('inode change time');
  return changed.length ? changed.join(', ') : null;
}
