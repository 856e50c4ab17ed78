/**
 * Hashing streams: a file far bigger than the memory the verifier may use is
 * hashed (and for tar.gz, gunzipped) with resident memory staying flat. The
 * big file is sparse on disk (a hole of zeros), so the test costs no disk.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGzip } from 'node:zlib';
import { pack } from 'tar-stream';
import { verifyRun } from '../../src/archive/verify.js';
import { render, rm, tempRoot, validDraft, writeDir, type Draft } from './fixture.js';

const SIZE = 256 * 1024 * 1024;
const MiB = 1024 * 1024;
let root: string;
let draft: Draft;
let files: Map<string, Buffer>;

function zerosSha256(size: number): string {
  const hash = createHash('sha256');
  const block = Buffer.alloc(MiB);
  for (let left = size; left > 0; left -= MiB) hash.update(left >= MiB ? block : block.subarray(0, left));
  return hash.digest('hex');
}

beforeAll(async () => {
  root = await tempRoot('memory');
  draft = validDraft();
  const bigSha = zerosSha256(SIZE);
  // The big clip is sealed by its precomputed hash; the other files are rendered as usual.
  draft.files['media/warmup-000.mp4'] = Buffer.alloc(0);
  draft.seal = (lines) => lines.map((l) => (l.endsWith('  media/warmup-000.mp4') ? `${bigSha}  media/warmup-000.mp4` : l));
  files = render(draft);
});
afterAll(() => rm(root, { recursive: true, force: true }));

async function peakRssDuring(work: () => Promise<unknown>): Promise<number> {
  (globalThis as { gc?: () => void }).gc?.();
  const base = process.memoryUsage().rss;
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  peak = Math.max(peak, process.memoryUsage().rss);
  return peak - base;
}

describe('hashing a large file keeps memory flat', () => {
  it('folder: a 256 MiB clip is hashed with well under 256 MiB of growth', async () => {
    const dir = await writeDir(files, path.join(root, 'dir'));
    const handle = await open(path.join(dir, 'media', 'warmup-000.mp4'), 'w');
    await handle.truncate(SIZE);
    await handle.close();
    let ok = false;
    const growth = await peakRssDuring(async () => {
      const r = await verifyRun(dir);
      ok = r.ok;
    });
    expect(ok).toBe(true);
    process.stderr.write(`rss growth while verifying: ${(growth / MiB).toFixed(1)} MiB for a ${SIZE / MiB} MiB clip\n`);
    expect(growth).toBeLessThan(96 * MiB);
  });

  it('tar.gz: a 256 MiB clip is gunzipped and hashed with well under 256 MiB of growth', async () => {
    const tgz = path.join(root, 'big.tar.gz');
    const tar = pack();
    const done = pipeline(tar as unknown as NodeJS.ReadableStream, createGzip({ level: 1 }), createWriteStream(tgz));
    for (const [name, data] of files) {
      if (name !== 'media/warmup-000.mp4') {
        await new Promise<void>((res, rej) => tar.entry({ name, mtime: new Date(0) }, data, (e) => (e ? rej(e) : res())));
        continue;
      }
      const sink = tar.entry({ name, size: SIZE, mtime: new Date(0) });
      const zero = Buffer.alloc(MiB);
      for (let i = 0; i < SIZE / MiB; i++) {
        if (!sink.write(zero)) await new Promise<void>((r) => sink.once('drain', () => r()));
      }
      await new Promise<void>((res, rej) => sink.end((e?: Error | null) => (e ? rej(e) : res())));
    }
    tar.finalize();
    await done;
    let ok = false;
    const growth = await peakRssDuring(async () => {
      // A clip of zeros inflates about 1000:1, which the ratio limit refuses; memory is what this test is about.
      const r = await verifyRun(tgz, { limits: { maxCompressionRatio: 1_000_000 } });
      ok = r.ok;
    });
    expect(ok).toBe(true);
    process.stderr.write(`rss growth while verifying: ${(growth / MiB).toFixed(1)} MiB for a ${SIZE / MiB} MiB clip\n`);
    expect(growth).toBeLessThan(96 * MiB);
  });
});
