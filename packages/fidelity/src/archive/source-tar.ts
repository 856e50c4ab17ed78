import { createReadStream } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { extract } from 'tar-stream';
import { resolveLimits } from './limits.js';
import type { ArchiveReader, EntryType, RawEntry } from './source.js';
import { TarGate } from './tar-gate.js';
import type { ArchiveLimits } from './types.js';

/**
 * A .tar.gz, streamed: gunzip and tar-stream in one pass, nothing unpacked.
 * There is no index, so entries are only known as the pass reaches them and
 * a second look at a file means a second pass (see media.ts).
 */
export function openTarGz(file: string, limits: Pick<ArchiveLimits, 'maxDecompressedBytes' | 'maxCompressionRatio'> = resolveLimits(undefined)): ArchiveReader {
  return {
    kind: 'tar.gz',
    listing: () => null,
    async scan(visit) {
      const source = createReadStream(file, { highWaterMark: 1024 * 1024 });
      const gunzip = createGunzip();
      const gate = new TarGate(limits, () => gunzip.bytesWritten);
      const tar = extract();
      const fail = (error: Error) => tar.destroy(error);
      source.on('error', fail);
      gunzip.on('error', fail);
      gate.on('error', fail);
      // Past the end-of-archive marker nothing is inflated: the file and gunzip stop here, tar-stream sees the end.
      gate.once('end-of-archive', () => {
        source.unpipe();
        source.destroy();
        gunzip.unpipe();
        gunzip.destroy();
      });
      source.pipe(gunzip).pipe(gate).pipe(tar as unknown as NodeJS.WritableStream);
      try {
        for await (const stream of tar) {
          const raw = describe(stream.header);
          if (raw === null) {
            await drain(stream);
            continue;
          }
          let opened = false;
          const body = () => {
            opened = true;
            return stream as AsyncIterable<Uint8Array>;
          };
          await visit(raw, raw.type === 'file' ? body : null);
          if (!opened) await drain(stream);
        }
      } finally {
        source.unpipe();
        source.destroy();
        gunzip.destroy();
        gate.destroy();
        if (!tar.destroyed) tar.destroy();
      }
    },
    close: async () => {},
  };
}

async function drain(stream: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of stream) {
    // Skipped content still has to flow past.
  }
}

interface TarHeader {
  name: string;
  type: string | null;
  size?: number;
  linkname?: string | null;
}

function describe(header: TarHeader): RawEntry | null {
  let name = header.name;
  // "./" is how `tar -C run .` names the root; it is a prefix, not a segment.
  while (name.startsWith('./')) name = name.slice(2);
  if (name === '' || name === '.') return null;
  let type: EntryType;
  let detail: string | undefined;
  switch (header.type) {
    case 'file':
    case 'contiguous-file':
      type = 'file';
      break;
    case 'directory':
      type = 'directory';
      break;
    case 'symlink':
      type = 'symlink';
      detail = `symbolic link to ${JSON.stringify(header.linkname ?? '')}`;
      break;
    case 'link':
      type = 'hardlink';
      detail = `hard link to ${JSON.stringify(header.linkname ?? '')}`;
      break;
    default:
      type = 'special';
      detail = `tar entry type ${header.type ?? 'unknown'}`;
  }
  if (type === 'directory' && name.endsWith('/')) name = name.slice(0, -1);
  return { name, type, size: type === 'file' ? (header.size ?? 0) : 0, ...(detail ? { detail } : {}) };
}
