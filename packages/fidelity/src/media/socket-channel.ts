/**
 * A connected pair of local stream sockets: one end becomes an ffmpeg output
 * fd (spawn's stdio takes a socket and dups it into the child), the other is
 * ours, read with `onread` so the kernel copies straight into frame buffers
 * (frame-reader.ts). Node cannot make a socketpair directly, so a one-shot
 * server accepts our own connection: on Linux in the abstract namespace (no
 * file), elsewhere at a path in a private temp folder, removed at once.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { FidelityError } from '../errors.js';
import { tempFailure } from '../temp.js';
import type { OnRead } from './frame-reader.js';

export interface SocketChannel {
  /** Give to spawn's stdio, then close with `releaseChildEnd()` once the child has it. */
  childEnd: net.Socket;
  /** Read by the frame reader. */
  ours: net.Socket;
  /** Closes our copy of the child's end: the child's dup keeps it open, and EOF comes when the child exits. */
  releaseChildEnd(): void;
}

/** Whether this platform gets socket channels (Windows gets plain pipes). */
export const SOCKET_CHANNELS = process.platform !== 'win32';

function address(): { path: string; cleanup(): void } {
  if (process.platform === 'linux') return { path: `\0fidelity-${process.pid}-${randomUUID()}`, cleanup: () => undefined };
  // sun_path is short (104 bytes on macOS): a short private folder under the temp dir.
  let dir: string;
  try {
    dir = mkdtempSync(path.join(os.tmpdir(), 'fid-'));
  } catch (error) {
    throw tempFailure(error, os.tmpdir(), 'making a socket folder');
  }
  return { path: path.join(dir, 's'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export async function openSocketChannel(onRead: OnRead): Promise<SocketChannel> {
  const where = address();
  const server = net.createServer({ pauseOnConnect: true });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(where.path, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const accepted = new Promise<net.Socket>((resolve) => server.once('connection', resolve));
    const ours = net.connect({ path: where.path, onread: onRead });
    const connected = new Promise<void>((resolve, reject) => {
      ours.once('connect', resolve);
      ours.once('error', reject);
    });
    const [childEnd] = await Promise.all([accepted, connected]);
    return {
      childEnd,
      ours,
      releaseChildEnd: () => childEnd.destroy(),
    };
  } catch (cause) {
    throw new FidelityError('INTERNAL', `Could not open a local socket for ffmpeg's output: ${(cause as Error).message}`, { cause });
  } finally {
    server.close();
    where.cleanup();
  }
}
