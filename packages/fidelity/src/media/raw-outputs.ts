/**
 * Starts an ffmpeg whose raw outputs (fd 1, 3, 4, ...) are each read by a
 * FrameReader: over socket channels where the platform has them (reads land
 * straight in the frame buffers), else over plain pipes. `textPipes` are
 * small text outputs (a frame summary) the caller reads from `child.pipe(fd)`.
 */
import { FrameReader } from './frame-reader.js';
import type { FrameReaderOptions } from './frame-reader.js';
import type { Child, ProcessScope, StderrLog } from './process.js';
import { SOCKET_CHANNELS, openSocketChannel } from './socket-channel.js';
import type { SocketChannel } from './socket-channel.js';

export interface RawOutput {
  fd: number;
  recordBytes: number;
  reader: FrameReaderOptions;
}

export interface RawOutputs {
  child: Child;
  readers: FrameReader[];
}

export async function spawnRawOutputs(
  scope: ProcessScope,
  file: string,
  args: string[],
  outputs: RawOutput[],
  options: { label: string; timeoutMs: number; textPipes?: number[]; log?: StderrLog; cwd?: string },
): Promise<RawOutputs> {
  const { textPipes = [], ...spawnOptions } = options;
  if (!SOCKET_CHANNELS) {
    const child = scope.spawn(file, args, { ...spawnOptions, pipes: [...outputs.map((o) => o.fd), ...textPipes] });
    return { child, readers: outputs.map((o) => FrameReader.fromStream(child.pipe(o.fd), o.recordBytes, o.reader)) };
  }
  scope.throwIfAborted();
  const readers = outputs.map((o) => new FrameReader(o.recordBytes, o.reader));
  const sockets: Record<number, SocketChannel> = {};
  try {
    for (const [i, o] of outputs.entries()) sockets[o.fd] = await openSocketChannel(readers[i]!.onRead());
  } catch (error) {
    for (const channel of Object.values(sockets)) {
      channel.releaseChildEnd();
      channel.ours.destroy();
    }
    throw error;
  }
  outputs.forEach((o, i) => readers[i]!.attachSocket(sockets[o.fd]!.ours));
  const child = scope.spawn(file, args, { ...spawnOptions, pipes: textPipes, sockets });
  return { child, readers };
}
