/**
 * Archives built to escape or confuse: every one is refused with a specific
 * code, and the file system around them is unchanged afterwards (nothing
 * extracted anywhere, the temp area left empty).
 */
import { mkfifo } from './mkfifo.js';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyRun } from '../../src/archive/verify.js';
import type { VerifyResult } from '../../src/archive/types.js';
import {
  mkdir,
  render,
  rm,
  symlink,
  tarItems,
  tempRoot,
  validDraft,
  writeDir,
  writeFile,
  writeTarGz,
  writeZip,
  zipItems,
  type TarItem,
  type ZipItem,
} from './fixture.js';

let root: string;
let sandbox: string;
let temp: string;
let files: Map<string, Buffer>;

beforeAll(async () => {
  root = await tempRoot('hostile');
  // Archives sit deep inside the sandbox so that "../" and "../../" entries would land inside it if extracted.
  sandbox = path.join(root, 'sandbox');
  temp = path.join(sandbox, 'temp-area');
  await mkdir(path.join(sandbox, 'a', 'b', 'c'), { recursive: true });
  await mkdir(temp);
  await writeFile(path.join(root, 'outside.txt'), 'a secret outside the run\n');
  files = render(validDraft());
});
afterAll(() => rm(root, { recursive: true, force: true }));

async function tree(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    out.push(path.relative(dir, path.join(e.parentPath ?? (e as unknown as { path: string }).path, e.name)));
  }
  return out.sort();
}

const codes = (r: VerifyResult) => (r.ok ? [] : [...new Set(r.problems.map((p) => p.code))].sort());
const place = (name: string) => path.join(sandbox, 'a', 'b', 'c', name);

/** Verifies, then checks nothing appeared anywhere in the sandbox and the temp area is empty. */
async function verifyUntouched(source: string): Promise<VerifyResult> {
  const before = await tree(root);
  const result = await verifyRun(source, { tempDir: temp });
  if (result.ok) await result.run.close();
  expect(await tree(root)).toEqual(before);
  expect(await readdir(temp)).toEqual([]);
  return result;
}

describe('hostile zip entries', () => {
  const cases: [string, (items: ZipItem[]) => ZipItem[], string[]][] = [
    ['zip-slip "../evil"', (it) => [...it, { name: '../evil', data: Buffer.from('pwned') }], ['ARCHIVE_UNSAFE_ENTRY']],
    ['zip-slip "../../../evil" on a sealed path', (it) => [...it, { name: 'media/../../../../evil', data: Buffer.from('pwned') }], ['ARCHIVE_UNSAFE_ENTRY']],
    ['backslash traversal "..\\evil"', (it) => [...it, { name: '..\\evil', data: Buffer.from('pwned') }], ['ARCHIVE_UNSAFE_ENTRY']],
    ['an absolute path', (it) => [...it, { name: '/tmp/fidelity-evil', data: Buffer.from('pwned') }], ['ARCHIVE_UNSAFE_ENTRY']],
    ['a drive-letter path', (it) => [...it, { name: 'C:/evil', data: Buffer.from('pwned') }], ['ARCHIVE_UNSAFE_ENTRY']],
    [
      'a symlink entry in place of sealed media',
      (it) => it.map((i) => (i.name === 'media/warmup-000.mp4' ? { name: i.name, data: Buffer.from('../../../../outside.txt'), mode: 0o120777 } : i)),
      ['ARCHIVE_LINK_ENTRY', 'MEDIA_MISSING', 'SEAL_MISSING_FILE'],
    ],
    ['a duplicate name', (it) => [...it, { name: 'run.json', data: Buffer.from('{}') }], ['ARCHIVE_DUPLICATE_ENTRY']],
    [
      'names that differ only in case',
      (it) => [...it, { name: 'Ci.json', data: Buffer.from('{}') }],
      ['ARCHIVE_NAME_COLLISION', 'SEAL_EXTRA_FILE'],
    ],
    ['a device entry', (it) => [...it, { name: 'dev', data: Buffer.alloc(0), mode: 0o020644 }], ['ARCHIVE_SPECIAL_ENTRY']],
    ['two top-level folders', (it) => it.map((i, n) => ({ ...i, name: `${n % 2 ? 'one' : 'two'}/${i.name}` })), ['ARCHIVE_LAYOUT']],
    ['no files at all', () => [], ['ARCHIVE_EMPTY']],
    ['only folders', () => [{ name: 'run/', directory: true }], ['ARCHIVE_EMPTY']],
  ];
  it.each(cases)('%s', async (name, edit, expected) => {
    const zip = await writeZip(edit(zipItems(files)), place(`${name.replace(/\W+/g, '-')}.zip`));
    expect(codes(await verifyUntouched(zip))).toEqual(expected);
  });
});

describe('hostile tar.gz entries', () => {
  const cases: [string, (items: TarItem[]) => TarItem[], string[]][] = [
    ['tar-slip "../evil"', (it) => [...it, { name: '../evil', data: Buffer.from('pwned') }], ['ARCHIVE_UNSAFE_ENTRY']],
    ['an absolute path', (it) => [...it, { name: '/tmp/fidelity-evil', data: Buffer.from('pwned') }], ['ARCHIVE_UNSAFE_ENTRY']],
    [
      'a symlink out of the archive',
      (it) => it.map((i) => (i.name === 'media/warmup-000.mp4' ? { name: i.name, type: 'symlink' as const, linkname: '../../../../outside.txt' } : i)),
      ['ARCHIVE_LINK_ENTRY', 'MEDIA_MISSING', 'SEAL_MISSING_FILE'],
    ],
    [
      'a symlinked folder, then a file through it',
      (it) => [...it, { name: 'telemetry2', type: 'symlink' as const, linkname: '../../..' }, { name: 'telemetry2/evil', data: Buffer.from('pwned') }],
      ['ARCHIVE_LINK_ENTRY', 'SEAL_EXTRA_FILE'],
    ],
    [
      'a hard link',
      (it) => it.map((i) => (i.name === 'media/warmup-000.mp4' ? { name: i.name, type: 'link' as const, linkname: 'ci.json' } : i)),
      ['ARCHIVE_LINK_ENTRY', 'MEDIA_MISSING', 'SEAL_MISSING_FILE'],
    ],
    ['a FIFO', (it) => [...it, { name: 'pipe', type: 'fifo' as const }], ['ARCHIVE_SPECIAL_ENTRY']],
    ['a duplicate name', (it) => [...it, { name: 'ci.json', data: Buffer.from('{}') }], ['ARCHIVE_DUPLICATE_ENTRY']],
    ['two top-level folders', (it) => it.map((i, n) => ({ ...i, name: `${n % 2 ? 'one' : 'two'}/${i.name}` })), ['ARCHIVE_LAYOUT']],
    ['no entries', () => [], ['ARCHIVE_EMPTY']],
  ];
  it.each(cases)('%s', async (name, edit, expected) => {
    const tgz = await writeTarGz(edit(tarItems(files)), place(`${name.replace(/\W+/g, '-')}.tar.gz`));
    expect(codes(await verifyUntouched(tgz))).toEqual(expected);
  });
});

describe('hostile folders', () => {
  it('refuses a symlink to a file outside the run, without following it', async () => {
    const dir = await writeDir(files, place('link-file'));
    await rm(path.join(dir, 'media', 'warmup-000.mp4'));
    await symlink(path.join(root, 'outside.txt'), path.join(dir, 'media', 'warmup-000.mp4'));
    expect(codes(await verifyUntouched(dir))).toEqual(['ARCHIVE_LINK_ENTRY', 'MEDIA_MISSING', 'SEAL_MISSING_FILE']);
  });

  it('refuses a symlinked folder and does not walk into it', async () => {
    const dir = await writeDir(files, place('link-dir'));
    await symlink(root, path.join(dir, 'telemetry', 'up'));
    const result = await verifyUntouched(dir);
    expect(codes(result)).toEqual(['ARCHIVE_LINK_ENTRY']);
    expect(result.ok ? [] : result.problems.map((p) => p.where?.file)).toEqual(['telemetry/up']);
  });

  it('refuses a FIFO (and does not block on it)', async () => {
    const dir = await writeDir(files, place('fifo'));
    const made = await mkfifo(path.join(dir, 'pipe'));
    if (!made) return;
    expect(codes(await verifyUntouched(dir))).toEqual(['ARCHIVE_SPECIAL_ENTRY']);
  });

  it('refuses an empty folder', async () => {
    const dir = place('empty');
    await mkdir(dir);
    expect(codes(await verifyUntouched(dir))).toEqual(['ARCHIVE_EMPTY']);
  });
});

describe('sources that are not run archives', () => {
  it('a path that does not exist', async () => {
    expect(codes(await verifyRun(path.join(root, 'nope.zip')))).toEqual(['SOURCE_NOT_FOUND']);
  });

  it('a .zip that is not a zip, an empty file, a plain text file', async () => {
    for (const [name, body] of [['fake.zip', 'this is not a zip'], ['empty.zip', ''], ['notes.tar.gz', 'hello']] as const) {
      await writeFile(place(name), body);
      expect(codes(await verifyUntouched(place(name))), name).toEqual(['ARCHIVE_UNREADABLE']);
    }
  });

  it('a truncated zip and a truncated tar.gz', async () => {
    const zip = await writeZip(zipItems(files), place('whole.zip'));
    const tgz = await writeTarGz(tarItems(files), place('whole.tar.gz'));
    const { readFile } = await import('node:fs/promises');
    for (const [source, cut] of [[zip, 'cut.zip'], [tgz, 'cut.tar.gz']] as const) {
      const bytes = await readFile(source);
      await writeFile(place(cut), bytes.subarray(0, Math.floor(bytes.length / 2)));
      expect(codes(await verifyUntouched(place(cut))), cut).toEqual(['ARCHIVE_UNREADABLE']);
    }
  });

  it('a gzip that holds no tar', async () => {
    const { gzipSync } = await import('node:zlib');
    await writeFile(place('plain.tar.gz'), gzipSync(Buffer.from('just text, not a tar archive'.repeat(40))));
    expect(codes(await verifyUntouched(place('plain.tar.gz')))).toEqual(['ARCHIVE_UNREADABLE']);
  });
});

describe('limits', () => {
  it('refuses too many files, a file too big, too many bytes, a metadata file too big: folder, zip and tar.gz alike', async () => {
    const dir = await writeDir(files, place('limits'));
    const zip = await writeZip(zipItems(files), place('limits.zip'));
    const tgz = await writeTarGz(tarItems(files), place('limits.tar.gz'));
    const biggest = Math.max(...[...files.values()].map((b) => b.length));
    const total = [...files.values()].reduce((s, b) => s + b.length, 0);
    for (const source of [dir, zip, tgz]) {
      expect(codes(await verifyRun(source, { limits: { maxFiles: files.size - 1 } })), source).toEqual(['LIMIT_FILES']);
      expect(codes(await verifyRun(source, { limits: { maxFileBytes: biggest - 1 } })), source).toEqual(['LIMIT_FILE_SIZE']);
      expect(codes(await verifyRun(source, { limits: { maxTotalBytes: total - 1 } })), source).toEqual(['LIMIT_TOTAL_SIZE']);
      expect(codes(await verifyRun(source, { limits: { maxMetadataBytes: 1000 } })), source).toEqual(['LIMIT_METADATA_SIZE']);
      const raised = await verifyRun(source, { limits: { maxFiles: files.size, maxFileBytes: biggest, maxTotalBytes: total, maxMetadataBytes: biggest } });
      expect(raised.ok, source).toBe(true);
      if (raised.ok) await raised.run.close();
    }
  });

  it('rejects a limit that is not a positive integer', async () => {
    await expect(verifyRun(root, { limits: { maxFiles: 0 } })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(verifyRun(root, { limits: { maxTotalBytes: 1.5 } })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('stops walking a huge folder once the limit is known to be exceeded', async () => {
    const dir = place('many');
    await mkdir(dir);
    for (let i = 0; i < 50; i++) await writeFile(path.join(dir, `f${i}`), '');
    const result = await verifyRun(dir, { limits: { maxFiles: 10 } });
    expect(codes(result)).toEqual(['LIMIT_FILES']);
    expect((await stat(dir)).isDirectory()).toBe(true);
  });
});
