/**
 * Hostile archives that cost work rather than escape: bytes after the end of
 * a tar, decompression bombs, hundreds of thousands of entries, JSON that two
 * readers read differently or that is too deep to walk, and finite numbers
 * that overflow later. Each is refused (or, for the tar tail, ignored) with
 * a bounded amount of work.
 */
import { createHash } from 'node:crypto';
import { link, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyRun } from '../../src/archive/verify.js';
import type { VerifyResult } from '../../src/archive/types.js';
import {
  mkdir,
  render,
  rm,
  tarItems,
  tempRoot,
  validDraft,
  writeDir,
  writeFile,
  writeTarGz,
  writeZip,
  zipItems,
  type Draft,
} from './fixture.js';

const MiB = 1024 * 1024;
let root: string;
let files: Map<string, Buffer>;

beforeAll(async () => {
  root = await tempRoot('bounded');
  files = render(validDraft());
});
afterAll(() => rm(root, { recursive: true, force: true }));

const codes = (r: VerifyResult) => (r.ok ? [] : [...new Set(r.problems.map((p) => p.code))].sort());
const at = (name: string) => path.join(root, name);

/** The uncompressed tar of a map of files, end-of-archive marker included. */
async function tarBytes(entries: Map<string, Buffer>): Promise<Buffer> {
  const tar = pack();
  const chunks: Buffer[] = [];
  const done = (async () => {
    for await (const c of tar as unknown as AsyncIterable<Buffer>) chunks.push(c);
  })();
  for (const [name, data] of entries) {
    await new Promise<void>((res, rej) => tar.entry({ name, mtime: new Date(0) }, data, (e) => (e ? rej(e) : res())));
  }
  tar.finalize();
  await done;
  return Buffer.concat(chunks);
}

async function verifyOk(source: string, options: Parameters<typeof verifyRun>[1] = {}) {
  const result = await verifyRun(source, options);
  expect(result.ok, JSON.stringify(result.ok ? [] : result.problems.slice(0, 5))).toBe(true);
  return result.ok ? result.run : (undefined as never);
}

describe('a tar.gz is read up to its end-of-archive marker, and no further', () => {
  it('a valid run plus 48 MiB of zeros after the marker, the gzip cut off inside the zeros: valid, and the media copy works', async () => {
    const tar = await tarBytes(files);
    // A cut-off gzip fails whoever inflates to its end; stopping at the marker never gets there.
    const whole = gzipSync(Buffer.concat([tar, Buffer.alloc(48 * MiB)]));
    const cut = whole.subarray(0, whole.length - 4096);
    await writeFile(at('tail-zeros.tar.gz'), cut);
    const started = process.hrtime.bigint();
    const run = await verifyOk(at('tail-zeros.tar.gz'), { tempDir: root });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    try {
      const copy = await run.mediaPath('measurement-r000-c000');
      expect(await readFile(copy)).toEqual(files.get('media/measurement-r000-c000.mp4'));
    } finally {
      await run.close();
    }
    // Inflating 48 MiB would not take this long either; the cut-off gzip above is the real proof.
    expect(seconds).toBeLessThan(20);
  });

  it('garbage (not a tar header) after the marker is never looked at', async () => {
    const tar = await tarBytes(files);
    const junk = Buffer.alloc(4096, 0x41);
    await writeFile(at('tail-junk.tar.gz'), gzipSync(Buffer.concat([tar, junk])));
    await (await verifyOk(at('tail-junk.tar.gz'))).close();
  });

  it('entries after the marker are not part of the run (GNU tar does not list them either)', async () => {
    const tar = await tarBytes(files);
    const extra = await tarBytes(new Map([['smuggled.txt', Buffer.from('after the end')]]));
    await writeFile(at('tail-archive.tar.gz'), gzipSync(Buffer.concat([tar, extra])));
    const result = await verifyRun(at('tail-archive.tar.gz'));
    expect(result.ok ? result.warnings.map((w) => w.code) : codes(result)).toEqual([]);
    if (result.ok) await result.run.close();
  });

  it('a lone zero block followed by more entries is refused: GNU tar stops there, tar-stream goes on', async () => {
    const [first, ...rest] = [...files];
    const a = await tarBytes(new Map([first!]));
    const b = await tarBytes(new Map(rest));
    // The first tar without its two marker blocks (and record padding), one zero block, then the rest.
    const head = a.subarray(0, 512 + Math.ceil(first![1].length / 512) * 512);
    await writeFile(at('lone-zero.tar.gz'), gzipSync(Buffer.concat([head, Buffer.alloc(512), b])));
    const result = await verifyRun(at('lone-zero.tar.gz'));
    expect(codes(result)).toEqual(['ARCHIVE_UNREADABLE']);
    expect(result.ok ? '' : result.problems[0]!.message).toMatch(/lone zero block/);
  });
});

describe('inflated bytes and compression ratio', () => {
  function zerosDraft(size: number): Draft {
    const draft = validDraft();
    draft.files['media/warmup-000.mp4'] = Buffer.alloc(size);
    return draft;
  }

  it('tar.gz: a 24 MiB clip of zeros (about 1000:1) is refused as a bomb', async () => {
    const tgz = await writeTarGz(tarItems(render(zerosDraft(24 * MiB))), at('bomb.tar.gz'));
    expect((await stat(tgz)).size).toBeLessThan(MiB);
    const result = await verifyRun(tgz);
    expect(codes(result)).toEqual(['LIMIT_COMPRESSION_RATIO']);
    // Raised, the same archive is valid: the limit is what refused it.
    await (await verifyOk(tgz, { limits: { maxCompressionRatio: 1_000_000 } })).close();
  });

  it('zip: an entry of 24 MiB of zeros is refused from the central directory, before inflating', async () => {
    const zip = await writeZip(zipItems(render(zerosDraft(24 * MiB))), at('bomb.zip'));
    const result = await verifyRun(zip);
    expect(codes(result)).toEqual(['LIMIT_COMPRESSION_RATIO']);
    expect(result.ok ? [] : result.problems[0]!.where?.file).toBe('media/warmup-000.mp4');
    await (await verifyOk(zip, { limits: { maxCompressionRatio: 1_000_000 } })).close();
  });

  it('small archives are not judged by ratio (a few JSON files compress well)', async () => {
    const draft = validDraft();
    draft.files['media/warmup-000.mp4'] = Buffer.alloc(2 * MiB);
    const tgz = await writeTarGz(tarItems(render(draft)), at('small-zeros.tar.gz'));
    await (await verifyOk(tgz)).close();
  });

  it('tar.gz: inflated bytes are capped, tar headers included', async () => {
    const tgz = await writeTarGz(tarItems(files), at('capped.tar.gz'));
    const total = [...files.values()].reduce((s, b) => s + b.length, 0);
    const result = await verifyRun(tgz, { limits: { maxDecompressedBytes: total + 512 } });
    expect(codes(result)).toEqual(['LIMIT_DECOMPRESSED_SIZE']);
    await (await verifyOk(tgz, { limits: { maxDecompressedBytes: 64 * 1024 } })).close();
  });

  it('rejects a new limit that is not a positive integer', async () => {
    await expect(verifyRun(root, { limits: { maxEntries: 0 } })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(verifyRun(root, { limits: { maxCompressionRatio: 2.5 } })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});

describe('entries of every kind count, and repeated problems are summarised', () => {
  it('zip: a valid run plus 300k folder entries is refused by the entry limit after reading 10001 names', async () => {
    const items: { name: string; data?: Buffer; mode?: number }[] = [...zipItems(files)];
    for (let i = 0; i < 300_000; i++) items.push({ name: `d${i}/` });
    const zip = await writeManyZip(items, at('many-dirs.zip'));
    const started = Date.now();
    const result = await verifyRun(zip);
    expect(codes(result)).toEqual(['LIMIT_ENTRIES']);
    expect(result.ok ? 0 : result.problems.length).toBe(1);
    const ms = Date.now() - started;
    process.stderr.write(`300k-entry zip refused in ${ms} ms\n`);
    expect(ms).toBeLessThan(10_000);
  });

  it('zip: the same kind of zip under the limit is valid (the folders are harmless, the count is what refuses)', async () => {
    const items: { name: string; data?: Buffer; mode?: number }[] = [...zipItems(files)];
    for (let i = 0; i < 12_000; i++) items.push({ name: `d${i}/` });
    const zip = await writeManyZip(items, at('some-dirs.zip'));
    expect(codes(await verifyRun(zip))).toEqual(['LIMIT_ENTRIES']);
    await (await verifyOk(zip, { limits: { maxEntries: 20_000 } })).close();
  });

  it('zip: 3000 symlink entries give 20 ARCHIVE_LINK_ENTRY problems and one "and 2980 more"', async () => {
    const items: { name: string; data?: Buffer; mode?: number }[] = [...zipItems(files)];
    for (let i = 0; i < 3000; i++) items.push({ name: `l${i}`, data: Buffer.from('../../etc/passwd'), mode: 0o120777 });
    const result = await verifyRun(await writeManyZip(items, at('many-links.zip')));
    expect(result.ok).toBe(false);
    const problems = result.ok ? [] : result.problems;
    const links = problems.filter((p) => p.code === 'ARCHIVE_LINK_ENTRY');
    expect(links).toHaveLength(21);
    expect(links.at(-1)!.message).toMatch(/^and 2980 more ARCHIVE_LINK_ENTRY problems/);
    expect(links.at(-1)!.where).toBeUndefined();
    expect(problems.length).toBeLessThan(40);
  });

  it('tar.gz and folder: folders count as entries', async () => {
    const tarList = [...tarItems(files), ...Array.from({ length: 60 }, (_, i) => ({ name: `d${i}/`, type: 'directory' as const }))];
    const tgz = await writeTarGz(tarList, at('dirs.tar.gz'));
    expect(codes(await verifyRun(tgz, { limits: { maxEntries: 50 } }))).toEqual(['LIMIT_ENTRIES']);
    const dir = await writeDir(files, at('dirs'));
    for (let i = 0; i < 60; i++) await mkdir(path.join(dir, `d${i}`));
    expect(codes(await verifyRun(dir, { limits: { maxEntries: 50 } }))).toEqual(['LIMIT_ENTRIES']);
    // Under the limit, empty folders are harmless.
    await (await verifyOk(dir, { limits: { maxEntries: 100 } })).close();
  });
});

describe('hard links in a run folder', () => {
  it('a sealed file with a second name is refused, wherever the other name is', async () => {
    const dir = await writeDir(files, at('hardlink'));
    await link(path.join(dir, 'media', 'warmup-000.mp4'), at('hardlink-elsewhere.mp4'));
    const result = await verifyRun(dir);
    expect(codes(result)).toEqual(['ARCHIVE_LINK_ENTRY', 'MEDIA_MISSING', 'SEAL_MISSING_FILE']);
    expect(result.ok ? [] : result.problems.find((p) => p.code === 'ARCHIVE_LINK_ENTRY')!.where?.file).toBe('media/warmup-000.mp4');
  });
});

describe('JSON two readers could read differently, or too deep to walk', () => {
  async function verifyDraft(draft: Draft, name: string): Promise<VerifyResult> {
    return verifyRun(await writeDir(render(draft), at(name)));
  }

  it('a byte order mark in ci.json, plan.json or run.json', async () => {
    for (const file of ['ci', 'plan', 'run'] as const) {
      const draft = validDraft();
      const body = JSON.stringify(file === 'run' ? { ...draft.run, plan_sha256: sha(render(draft).get('plan.json')!) } : draft[file]);
      draft.raw[file] = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(body)]);
      const result = await verifyDraft(draft, `bom-${file}`);
      expect(result.ok ? [] : result.problems.filter((p) => p.code === 'JSON_BOM').map((p) => p.where?.file), file).toEqual([`${file}.json`]);
    }
  });

  it('a raw DEL (0x7f) in ci.json, plan.json or run.json: JSON_CONTROL_CHARACTER, where a bundle could not hold it; escaped it is accepted', async () => {
    for (const file of ['ci', 'plan', 'run'] as const) {
      const draft = validDraft();
      // JSON.stringify leaves a DEL raw, and JSON.parse takes one inside a string: valid JSON all the same.
      if (file === 'ci') draft.ci.job = 'smoke\u007fjob';
      if (file === 'plan') draft.plan.plan_id = 'plan\u007fid';
      if (file === 'run') draft.run.records[4].error = 'timed\u007fout';
      const text = render(draft).get(`${file}.json`)!;
      expect(text.includes(0x7f)).toBe(true);
      const result = await verifyDraft(draft, `del-${file}`);
      expect(result.ok ? [] : result.problems.filter((p) => p.code === 'JSON_CONTROL_CHARACTER').map((p) => p.where?.file), file).toEqual([`${file}.json`]);
    }
    const escaped = validDraft();
    escaped.raw.ci = `${JSON.stringify({ ...escaped.ci, job: 'smoke\u007fjob' }).replace('\u007f', '\\u007f')}\n`;
    expect(escaped.raw.ci.includes('\u007f')).toBe(false);
    const result = await verifyDraft(escaped, 'del-escaped');
    expect(result.ok ? result.run.ci.job : result.problems).toBe('smoke\u007fjob');
  });

  it('a byte order mark in SHA256SUMS', async () => {
    const draft = validDraft();
    const sums = render(draft).get('SHA256SUMS')!;
    draft.sealText = `\ufeff${sums.toString('utf8')}`;
    const result = await verifyDraft(draft, 'bom-seal');
    expect(result.ok ? [] : result.problems.filter((p) => p.code === 'SEAL_MALFORMED_LINE').map((p) => p.message)).toEqual([
      expect.stringContaining('byte order mark'),
    ]);
  });

  it('two run_id keys in run.json (the second spelled with an escape)', async () => {
    const draft = validDraft();
    const text = JSON.stringify({ ...draft.run, plan_sha256: sha(render(draft).get('plan.json')!) }, null, 2);
    draft.raw.run = text.replace('"run_id": 30054883436,', '"run_id": 30054883436,\n  "run\\u005fid": 1,');
    const result = await verifyDraft(draft, 'dup-key');
    expect(codes(result)).toEqual(['JSON_DUPLICATE_KEY']);
    expect(result.ok ? null : result.problems[0]!.where).toEqual({ file: 'run.json', line: 3, path: '$.run_id' });
  });

  it('a duplicate key deep inside a record is located by its path', async () => {
    const draft = validDraft();
    const text = JSON.stringify({ ...draft.run, plan_sha256: sha(render(draft).get('plan.json')!) });
    draft.raw.run = text.replace('"status":"failed"', '"status":"failed","status":"ok"');
    const result = await verifyDraft(draft, 'dup-deep');
    expect(result.ok ? null : result.problems.map((p) => [p.code, p.where?.path])).toEqual([['JSON_DUPLICATE_KEY', '$.records[4].status']]);
  });

  it('3000 levels of nesting in ci.json runtime is refused at verify time', async () => {
    const draft = validDraft();
    const deep = `${'['.repeat(3000)}${']'.repeat(3000)}`;
    draft.raw.ci = JSON.stringify(draft.ci).replace('"runtime":{', `"runtime":{"deep":${deep},`);
    const result = await verifyDraft(draft, 'deep');
    expect(codes(result)).toEqual(['JSON_TOO_DEEP']);
    // 64 levels are fine (the runtime object is free-form).
    const ok = validDraft();
    ok.ci.runtime.nested = JSON.parse(`${'['.repeat(60)}${']'.repeat(60)}`);
    const fine = await verifyDraft(ok, 'deep-ok');
    expect(fine.ok).toBe(true);
    if (fine.ok) await fine.run.close();
  });
});

describe('finite numbers outside sane ranges are refused at verify time', () => {
  const cases: [string, (d: Draft) => void, string][] = [
    ['a measurement window of ±1.7e308', (d) => (d.run.measurement_window = { start_unix: -1.7e308, end_unix: 1.7e308 }), '$.measurement_window.start_unix'],
    ['a record window ending at 1e308', (d) => (d.run.records[1].window.end_unix = 1e308), '$.records[1].window.end_unix'],
    ['a latency of 1e308 s', (d) => (d.run.records[1].latency_s = 1e308), '$.records[1].latency_s'],
    ['a server timing stamp of 1e308 ns', (d) => (d.run.records[2].server_timing.media_ready_ns = 1e308), '$.records[2].server_timing.media_ready_ns'],
    ['a negative server timing stamp', (d) => (d.run.records[2].server_timing.http_received_ns = -1e308), '$.records[2].server_timing.http_received_ns'],
    ['1e9 allocated GPUs', (d) => (d.ci.hardware.gpus_allocated = 1e9), '$.hardware.gpus_allocated'],
    ['an expected GPU count of 1e15', (d) => (d.run.expected_gpu_count = 1e15), '$.expected_gpu_count'],
    ['1e308 fps', (d) => (d.plan.video.fps = 1e308), '$.video.fps'],
    ['a sample rate of 1e12', (d) => (d.plan.audio.sample_rate = 1e12), '$.audio.sample_rate'],
    ['1e15 repetitions', (d) => (d.plan.repetitions = 1e15), '$.repetitions'],
  ];
  it.each(cases)('%s', async (name, edit, where) => {
    const draft = validDraft();
    edit(draft);
    const result = await verifyRun(await writeDir(render(draft), at(`range-${name.replace(/\W+/g, '-')}`)));
    expect(result.ok).toBe(false);
    const range = result.ok ? [] : result.problems.filter((p) => p.code === 'VALUE_OUT_OF_RANGE');
    expect(range.map((p) => p.where?.path)).toContain(where);
  });

  it('a plan of 10000 repetitions x 10000 cases is refused without listing 1e8 slots', async () => {
    const draft = validDraft();
    draft.plan.repetitions = 10000;
    draft.plan.cases = Array.from({ length: 10000 }, (_, i) => ({ case_id: `c${i}`, prompt: 'p', seed: i }));
    const started = Date.now();
    const result = await verifyRun(await writeDir(render(draft), at('huge-plan')));
    expect(result.ok ? [] : result.problems.filter((p) => p.code === 'VALUE_OUT_OF_RANGE').map((p) => p.where?.path)).toEqual(['$.repetitions']);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

/**
 * A stored (uncompressed) zip written byte by byte: yazl recurses once per
 * empty entry and overflows the stack on thousands of them. Unix modes go in
 * the high half of the external attributes, as Info-ZIP writes them.
 */
async function writeManyZip(items: { name: string; data?: Buffer; mode?: number }[], file: string): Promise<string> {
  const local: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const item of items) {
    const name = Buffer.from(item.name);
    const data = item.data ?? Buffer.alloc(0);
    const crc = crc32(data);
    const head = Buffer.alloc(30);
    head.writeUInt32LE(0x04034b50, 0);
    head.writeUInt16LE(20, 4);
    head.writeUInt32LE(crc, 14);
    head.writeUInt32LE(data.length, 18);
    head.writeUInt32LE(data.length, 22);
    head.writeUInt16LE(name.length, 26);
    local.push(head, name, data);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE((3 << 8) | 20, 4);
    entry.writeUInt16LE(20, 6);
    entry.writeUInt32LE(crc, 16);
    entry.writeUInt32LE(data.length, 20);
    entry.writeUInt32LE(data.length, 24);
    entry.writeUInt16LE(name.length, 28);
    const mode = item.mode ?? (item.name.endsWith('/') ? 0o040755 : 0o100644);
    entry.writeUInt32LE(mode * 0x10000 + (item.name.endsWith('/') ? 0x10 : 0), 38);
    entry.writeUInt32LE(offset, 42);
    central.push(entry, name);
    offset += head.length + name.length + data.length;
  }
  const directory = Buffer.concat(central);
  // Over 65535 entries the count lives in the zip64 end record, which the classic one points to with 0xffff.
  const zip64: Buffer[] = [];
  if (items.length > 0xffff) {
    const record = Buffer.alloc(56);
    record.writeUInt32LE(0x06064b50, 0);
    record.writeBigUInt64LE(44n, 4);
    record.writeUInt16LE((3 << 8) | 45, 12);
    record.writeUInt16LE(45, 14);
    record.writeBigUInt64LE(BigInt(items.length), 24);
    record.writeBigUInt64LE(BigInt(items.length), 32);
    record.writeBigUInt64LE(BigInt(directory.length), 40);
    record.writeBigUInt64LE(BigInt(offset), 48);
    const locator = Buffer.alloc(20);
    locator.writeUInt32LE(0x07064b50, 0);
    locator.writeBigUInt64LE(BigInt(offset + directory.length), 8);
    locator.writeUInt32LE(1, 16);
    zip64.push(record, locator);
  }
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Math.min(items.length, 0xffff), 8);
  end.writeUInt16LE(Math.min(items.length, 0xffff), 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  await writeFile(file, Buffer.concat([...local, directory, ...zip64, end]));
  return file;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(data: Buffer): number {
  let c = 0xffffffff;
  for (const byte of data) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function sha(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex');
}
