import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, readdir, stat, utimes } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openVerifiedRun } from '../../src/archive/verify.js';
import { media, mkdir, readFile, render, rm, tarItems, tempRoot, validDraft, writeDir, writeFile, writeTarGz, writeZip, zipItems } from './fixture.js';

let root: string;
let temp: string;
let files: Map<string, Buffer>;
beforeAll(async () => {
  root = await tempRoot('media');
  temp = path.join(root, 'temp');
  await mkdir(temp);
  files = render(validDraft());
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe('media access after verification', () => {
  it('a zip rewritten after verification gives MEDIA_CHANGED and leaves no partial copy', async () => {
    const zip = await writeZip(zipItems(files), path.join(root, 'swap.zip'));
    const run = await openVerifiedRun(zip, { tempDir: temp });
    const changed = new Map(files);
    changed.set('media/warmup-000.mp4', Buffer.from('a different clip with the same name\n'));
    await writeZip(zipItems(changed), zip);
    await expect(run.mediaPath('warmup-000')).rejects.toMatchObject({ code: 'MEDIA_CHANGED' });
    expect(await run.mediaPath('measurement-r000-c000')).toMatch(/measurement-r000-c000\.mp4$/);
    const [own] = await readdir(temp);
    expect(await readdir(path.join(temp, own!))).toEqual(['measurement-r000-c000.mp4']);
    await run.close();
    expect(await readdir(temp)).toEqual([]);
  });

  it('a tar.gz copies every media file out in one pass, on the first request', async () => {
    const tgz = await writeTarGz(tarItems(files), path.join(root, 'once.tar.gz'));
    const run = await openVerifiedRun(tgz, { tempDir: temp });
    expect(await readdir(temp)).toEqual([]);
    await run.mediaPath('measurement-r001-c000');
    const [own] = await readdir(temp);
    expect((await readdir(path.join(temp, own!))).sort()).toEqual(['measurement-r000-c000.mp4', 'measurement-r000-c001.mp4', 'measurement-r001-c000.mp4', 'warmup-000.mp4']);
    await run.close();
    expect(await readdir(temp)).toEqual([]);
  });

  it('concurrent requests share one copy', async () => {
    const zip = await writeZip(zipItems(files), path.join(root, 'concurrent.zip'));
    const run = await openVerifiedRun(zip, { tempDir: temp });
    const paths = await Promise.all([...run.media.keys(), ...run.media.keys()].map((s) => run.mediaPath(s)));
    expect(new Set(paths).size).toBe(run.media.size);
    await run.close();
  });

  it('a folder gives its own file, and notices a file replaced after verification', async () => {
    const dir = await writeDir(files, path.join(root, 'dir'));
    const run = await openVerifiedRun(dir, { tempDir: temp });
    expect(await run.mediaPath('warmup-000')).toBe(path.resolve(dir, 'media', 'warmup-000.mp4'));
    await writeFile(path.join(dir, 'media', 'measurement-r000-c000.mp4'), Buffer.concat([media('x'), media('y')]));
    await expect(run.mediaPath('measurement-r000-c000')).rejects.toMatchObject({ code: 'MEDIA_CHANGED' });
    await run.close();
    expect(await readdir(temp)).toEqual([]);
  });

  it('a folder file written after verification with the same bytes, or only chmod-ed, is MEDIA_CHANGED (its ctime moved), also after mediaPath', async () => {
    const dir = await writeDir(files, path.join(root, 'restored'));
    const run = await openVerifiedRun(dir, { tempDir: temp });
    const clip = path.join(dir, 'media', 'measurement-r000-c000.mp4');
    const given = await run.mediaPath('measurement-r000-c000');
    await run.checkMedia('measurement-r000-c000');
    // Overwritten with other bytes of the same size and put back, times and all: only ctime tells.
    const original = await readFile(clip);
    const times = await stat(clip);
    await writeFile(clip, Buffer.alloc(original.length, 0x41));
    await writeFile(clip, original);
    await utimes(clip, times.atime, times.mtime);
    await expect(run.checkMedia('measurement-r000-c000')).rejects.toMatchObject({ code: 'MEDIA_CHANGED', message: expect.stringMatching(/inode change time/) });
    expect(given).toBe(clip);
    // A file changed before its first use is refused by mediaPath itself.
    await chmod(path.join(dir, 'media', 'measurement-r000-c001.mp4'), 0o600);
    await expect(run.mediaPath('measurement-r000-c001')).rejects.toMatchObject({ code: 'MEDIA_CHANGED' });
    // Untouched files pass.
    await run.mediaPath('warmup-000');
    await run.checkMedia('warmup-000');
    await run.close();
  });

  it('a zip copy changed after it was copied out is MEDIA_CHANGED', async () => {
    const zip = await writeZip(zipItems(files), path.join(root, 'copy.zip'));
    const run = await openVerifiedRun(zip, { tempDir: temp });
    const copy = await run.mediaPath('measurement-r000-c000');
    await run.checkMedia('measurement-r000-c000');
    await chmod(copy, 0o600);
    await expect(run.checkMedia('measurement-r000-c000')).rejects.toMatchObject({ code: 'MEDIA_CHANGED' });
    await run.close();
  });

  it('temp copies are removed when the process exits without close()', async () => {
    const dist = fileURLToPath(new URL('../../dist/archive/verify.js', import.meta.url));
    if (!existsSync(dist)) return; // Needs the built package (npm test builds it first).
    const zip = await writeZip(zipItems(files), path.join(root, 'exit.zip'));
    const script = `
      const { openVerifiedRun } = await import(${JSON.stringify(new URL('../../dist/archive/verify.js', import.meta.url).href)});
      const run = await openVerifiedRun(${JSON.stringify(zip)}, { tempDir: ${JSON.stringify(temp)} });
      console.log(await run.mediaPath('warmup-000'));
      process.exit(0);`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(child.stderr).toBe('');
    expect(child.stdout.trim().startsWith(temp)).toBe(true);
    expect(existsSync(child.stdout.trim())).toBe(false);
    expect(await readdir(temp)).toEqual([]);
  });
});
