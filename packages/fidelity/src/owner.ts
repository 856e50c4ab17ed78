/**
 * Who owns a temp file or lock: this process's pid and a short tag of its
 * host, written into names so that a later run can tell a leftover of a dead
 * run (removable) from the work of a live one (never touched). A folder on a
 * file system shared between hosts may hold another host's live work, whose
 * pid means nothing here: only names with this host's tag are judged.
 */
import { createHash } from 'node:crypto';
import os from 'node:os';

/** 8 hex digits of the host name's SHA-256: enough to tell hosts apart, free of characters a file name cannot hold. */
export const HOST_TAG: string = createHash('sha256').update(os.hostname()).digest('hex').slice(0, 8);

/**
 * True when a process with this pid exists on this host (EPERM: it exists
 * but belongs to someone else). A reused pid reads as alive: the leftover is
 * then kept, never wrongly removed.
 */
export function pidAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** `<host tag>-<pid>`: the owner part of every temp name the library makes. */
export function ownerTag(): string {
  return `${HOST_TAG}-${process.pid}`;
}

/** Whether the owner part of a temp name (`<host tag>-<pid>`) names a process of this host that has ended. */
export function ownerIsDeadHere(host: string, pid: string): boolean {
  return host === HOST_TAG && /^[0-9]+$/.test(pid) && Number(pid) !== process.pid && !pidAlive(Number(pid));
}
