import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleSize, bundleSizeText, sizeText } from '../src/commands/bundle-size.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-bundle-size-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('bundleSize', () => {
  it('adds every sealed file and SHA256SUMS, and tells the source MP4s apart', () => {
    const dir = path.join(tmp, 'b');
    mkdirSync(path.join(dir, 'media'), { recursive: true });
    const files: Record<string, number> = { 'index.html': 1500, 'media/a.mp4': 40_000, 'media/b.mp4': 60_000, 'report.json': 2500 };
    const lines: string[] = [];
    for (const [rel, n] of Object.entries(files)) {
      const body = Buffer.alloc(n, 1);
      writeFileSync(path.join(dir, ...rel.split('/')), body);
      lines.push(`${createHash('sha256').update(body).digest('hex')}  ${rel}\n`);
    }
    writeFileSync(path.join(dir, 'unsealed.tmp'), Buffer.alloc(999));
    const sums = lines.join('');
    writeFileSync(path.join(dir, 'SHA256SUMS'), sums);
    const size = bundleSize(dir)!;
    expect(size).toEqual({ total: 1500 + 40_000 + 60_000 + 2500 + Buffer.byteLength(sums), media: 100_000 });
    expect(bundleSizeText(size)).toBe(`${sizeText(size.total)}, of which source MP4s 100.0 kB (+${(((size.total - 100_000) / 100_000) * 100).toFixed(1)}%)`);
  });

  it('says what dominates when the rest outweighs the MP4s (tiny clips), and nothing more when it does not', () => {
    expect(bundleSizeText({ total: 7_700_000, media: 413_000 })).toBe('7.7 MB, of which source MP4s 413.0 kB (+1764.4%: mostly the pages, report.json and per-pair stills, which outweigh clips this short)');
    expect(bundleSizeText({ total: 7_700_000, media: 6_900_000 })).toBe('7.7 MB, of which source MP4s 6.9 MB (+11.6%)');
  });

  it('is null when there is no seal to read', () => {
    expect(bundleSize(path.join(tmp, 'missing'))).toBeNull();
  });

  it('writes MB above a million bytes', () => {
    expect(sizeText(12_345_678)).toBe('12.3 MB');
    expect(sizeText(999_999)).toBe('1000.0 kB');
  });
});
