import { createHash } from 'node:crypto';

/**
 * Hashes a stream chunk by chunk, so memory stays at one chunk whatever the
 * file size; `also` sees every chunk too (a copy being written, a small file
 * being kept).
 */
export async function hashChunks(
  chunks: AsyncIterable<Uint8Array>,
  also?: (chunk: Uint8Array) => void | Promise<void>,
): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of chunks) {
    hash.update(chunk);
    size += chunk.byteLength;
    if (also) await also(chunk);
  }
  return { sha256: hash.digest('hex'), size };
}
