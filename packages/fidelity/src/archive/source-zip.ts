import yauzl from 'yauzl';
import type { Entry, ZipFile } from 'yauzl';
import { pathFault } from './entry-path.js';
import type { ArchiveReader, EntryType, RawEntry, ReaderOptions } from './source.js';

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;

/**
 * A zip read through its central directory with yauzl: names, types and
 * sizes are all known before a byte of content is inflated, and yauzl checks
 * that each inflated stream has exactly the declared size (a zip bomb that
 * lies about sizes fails there).
 */
export async function openZip(file: string, options: ReaderOptions): Promise<ArchiveReader> {
  // decodeStrings: false keeps yauzl from aborting the whole archive on the first odd name:
  // names are decoded below and judged one by one, so every bad entry is reported.
  const zip = await yauzl.openPromise(file, {
    lazyEntries: true,
    autoClose: false,
    decodeStrings: false,
    validateEntrySizes: true,
    strictFileNames: true,
  });
  const entries: { raw: RawEntry; zipEntry: Entry }[] = [];
  try {
    let files = 0;
    for await (const zipEntry of zip.eachEntry()) {
      const raw = describe(zipEntry);
      entries.push({ raw, zipEntry });
      if (raw.type === 'file') files += 1;
      if (files > options.stopAfterFiles || entries.length > options.stopAfterEntries) break;
    }
  } catch (error) {
    zip.close();
    throw error;
  }

  return {
    kind: 'zip',
    listing: () => entries.map((e) => e.raw),
    async scan(visit) {
      for (const { raw, zipEntry } of entries) {
        await visit(raw, raw.type === 'file' ? () => readEntry(zip, zipEntry) : null);
      }
    },
    close: async () => zip.close(),
  };
}

function describe(entry: Entry): RawEntry {
  const rawName = entry.fileNameRaw;
  const name = yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, rawName, entry.extraFields, true);
  // The Info-ZIP Unicode path field can say something other than the plain name; other extractors
  // may use either, so a name counts as what the unsafe one of the two says.
  const plain = yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, rawName, [], true);
  const fault = (s: string) => pathFault(s.replace(/\/$/, ''));
  const shown = name !== plain && fault(plain) && !fault(name) ? plain : name;
  const mode = (entry.externalFileAttributes >>> 16) & 0xffff;
  const format = mode & S_IFMT;
  let type: EntryType;
  let detail: string | undefined;
  if (shown.endsWith('/') || format === S_IFDIR) type = 'directory';
  else if (format === S_IFLNK) {
    type = 'symlink';
    detail = 'symbolic link';
  } else if (format === 0 || format === S_IFREG) type = 'file';
  else {
    type = 'special';
    detail = `file mode ${format.toString(8)}`;
  }
  const trimmed = type === 'directory' && shown.endsWith('/') ? shown.slice(0, -1) : shown;
  return {
    name: trimmed,
    type,
    size: type === 'file' ? entry.uncompressedSize : 0,
    ...(type === 'file' ? { packedSize: entry.compressedSize } : {}),
    ...(detail ? { detail } : {}),
  };
}

async function* readEntry(zip: ZipFile, entry: Entry): AsyncIterable<Uint8Array> {
  const stream = await zip.openReadStreamPromise(entry);
  try {
    for await (const chunk of stream) yield chunk as Uint8Array;
  } finally {
    stream.destroy();
  }
}
