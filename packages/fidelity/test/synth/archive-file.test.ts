/**
 * generateRuns({ format }): the same run as a folder, a .zip and a .tar.gz,
 * each accepted by verifyRun (the archives with their digest required), and
 * the archive bytes the same when written twice.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateRuns } from '../../src/synth/generate.js';
import { verifyRun } from '../../src/archive/verify.js';
import { sha256 } from './helpers.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'fidelity-archive-file-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe('generateRuns format', () => {
  it('writes zip and tar.gz runs that verify with their digest, byte-identical on a second write', async () => {
    const out = path.join(root, 'runs');
    for (const format of ['dir', 'zip', 'tar.gz'] as const) {
      const result = await generateRuns({ outDir: out, sites: ['H200'], cases: 2, format });
      const run = result.runs[0];
      expect(run?.format).toBe(format);
      const checked = await verifyRun(run?.dir as string, { requireDigest: format !== 'dir' });
      expect(checked.ok, JSON.stringify(checked.ok ? [] : checked.problems)).toBe(true);
      if (checked.ok) {
        expect(checked.run.source.kind).toBe(format === 'dir' ? 'directory' : format);
        await checked.run.close();
      }
    }
    // No staging folders left behind, one digest file beside each archive.
    expect((await readdir(out)).sort()).toEqual(['h200', 'h200.tar.gz', 'h200.tar.gz.sha256', 'h200.zip', 'h200.zip.sha256', 'synth-manifest.json']);
    expect(await readFile(path.join(out, 'h200.zip.sha256'), 'utf8')).toBe(`sha256:${await sha256(path.join(out, 'h200.zip'))}\n`);

    const again = path.join(root, 'again');
    await generateRuns({ outDir: again, sites: ['H200'], cases: 2, format: 'zip' });
    await generateRuns({ outDir: again, sites: ['H200'], cases: 2, format: 'tar.gz' });
    for (const f of ['h200.zip', 'h200.tar.gz']) expect(await sha256(path.join(again, f)), f).toBe(await sha256(path.join(out, f)));
  }, 120_000);

  it('refuses to replace an archive without overwrite, and refuses an unknown format', async () => {
    const out = path.join(root, 'runs');
    await expect(generateRuns({ outDir: out, sites: ['H200'], cases: 2, format: 'zip' })).rejects.toMatchObject({ code: 'OUTPUT_EXISTS' });
    await expect(generateRuns({ outDir: out, format: 'rar' as 'zip' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  }, 60_000);
});
