import { mkdtempSync, writeFileSync, chmodSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { binaryCandidates, resolveBinary, resolveFfmpeg, toolchainCandidates } from '../../src/media/ffmpeg.js';
import { ffmpegAdvice, parseFfmpegVersionLine } from '../../src/media/ffmpeg-advice.js';
import { FidelityError } from '../../src/errors.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-ffmpeg-test-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function script(name: string, body: string): string {
  const file = path.join(tmp, name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

describe('ffmpeg resolution', () => {
  it('finds the installer binaries and reports their identity', async () => {
    const tools = await resolveFfmpeg({ env: { PATH: '' } });
    expect(tools.ffmpeg.source).toBe('installer');
    expect(tools.ffmpeg.version).toMatch(/^ffmpeg version /);
    expect(tools.ffmpeg.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(tools.ffprobe.version).toMatch(/^ffprobe version /);
  });

  it('orders option, env, PATH, packages', () => {
    const fake = script('ffmpeg', 'echo "ffmpeg version fake"');
    script('ffprobe', 'echo "ffprobe version fake"');
    const list = binaryCandidates('ffmpeg', { ffmpegPath: '/opt/explicit/ffmpeg', env: { FIDELITY_FFMPEG: '/opt/env/ffmpeg', PATH: tmp } });
    expect(list.map((c) => c.source)).toEqual(['option', 'env', 'path', 'installer']);
    expect(list[0]?.path).toBe('/opt/explicit/ffmpeg');
    expect(list[1]?.path).toBe('/opt/env/ffmpeg');
    expect(list[2]?.path).toBe(fake);
  });

  it('prefers a PATH pair of one build to the npm packages, and passes over a PATH pair of two builds', async () => {
    const one = mkdtempSync(path.join(tmp, 'one-build-'));
    for (const n of ['ffmpeg', 'ffprobe']) {
      writeFileSync(path.join(one, n), `#!/bin/sh\necho "${n} version 7.1.1-test Copyright (c) 2000-2026 x"\n`);
      chmodSync(path.join(one, n), 0o755);
    }
    const preferred = await resolveFfmpeg({ env: { PATH: one } });
    expect(preferred.ffmpeg).toMatchObject({ source: 'path', path: path.join(one, 'ffmpeg') });
    expect(preferred.ffprobe).toMatchObject({ source: 'path', path: path.join(one, 'ffprobe') });
    expect(preferred.passedOver).toBeUndefined();
    expect(ffmpegAdvice(preferred, new Date('2027-01-01T00:00:00Z'))).toEqual([]);
    await expect(resolveBinary('ffprobe', { env: { PATH: one } })).resolves.toMatchObject({ source: 'path' });

    const two = mkdtempSync(path.join(tmp, 'two-builds-'));
    writeFileSync(path.join(two, 'ffmpeg'), '#!/bin/sh\necho "ffmpeg version 7.1.1-test Copyright (c) 2000-2026 x"\n');
    writeFileSync(path.join(two, 'ffprobe'), '#!/bin/sh\necho "ffprobe version 6.0-other Copyright (c) 2000-2026 x"\n');
    for (const n of ['ffmpeg', 'ffprobe']) chmodSync(path.join(two, n), 0o755);
    const fallback = await resolveFfmpeg({ env: { PATH: two } });
    expect(fallback.ffmpeg.source).toBe('installer');
    expect(fallback.ffprobe.source).toBe('installer');
    expect(fallback.passedOver).toEqual([{ source: 'path', ffmpeg: path.join(two, 'ffmpeg'), ffprobe: path.join(two, 'ffprobe'), reason: expect.stringMatching(/7\.1\.1-test.*6\.0-other.*not one build/) }]);
    await expect(resolveBinary('ffmpeg', { env: { PATH: two } })).resolves.toMatchObject({ source: 'installer' });
    const advice = ffmpegAdvice(fallback, new Date('2026-11-30T00:00:00Z'));
    expect(advice[0]).toMatchObject({ kind: 'path-passed-over', message: expect.stringMatching(/not one build.*npm packages/) });

    // A PATH pair that does not run is passed over too (it is nobody's explicit choice).
    const broken = mkdtempSync(path.join(tmp, 'broken-'));
    for (const n of ['ffmpeg', 'ffprobe']) {
      writeFileSync(path.join(broken, n), '#!/bin/sh\nexit 1\n');
      chmodSync(path.join(broken, n), 0o755);
    }
    const past = await resolveFfmpeg({ env: { PATH: broken } });
    expect(past.ffmpeg.source).toBe('installer');
    expect(past.passedOver?.[0]?.reason).toMatch(/does not run/);
  });

  it('takes ffmpeg and ffprobe from the same place: one variable means the other binary beside it', async () => {
    const dir = mkdtempSync(path.join(tmp, 'pair-'));
    const ffmpeg = path.join(dir, 'ffmpeg');
    writeFileSync(ffmpeg, '#!/bin/sh\necho "ffmpeg version 9.9-test Copyright (c) 2000-2026 x"\n');
    chmodSync(ffmpeg, 0o755);
    const list = toolchainCandidates({ env: { FIDELITY_FFMPEG: ffmpeg, PATH: '' } });
    expect(list[0]).toEqual({ source: 'env', ffmpeg, ffprobe: path.join(dir, 'ffprobe'), derived: 'ffprobe' });
    // Nothing beside it: refused, never mixed with the npm ffprobe.
    const err = await resolveFfmpeg({ env: { FIDELITY_FFMPEG: ffmpeg, PATH: '' } }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'FFMPEG_NOT_FOUND' });
    expect((err as Error).message).toMatch(/FIDELITY_FFPROBE is not/);
    const ffprobe = path.join(dir, 'ffprobe');
    writeFileSync(ffprobe, '#!/bin/sh\necho "ffprobe version 9.9-test Copyright (c) 2007-2026 x"\n');
    chmodSync(ffprobe, 0o755);
    const tools = await resolveFfmpeg({ env: { FIDELITY_FFMPEG: ffmpeg, PATH: '' } });
    expect(tools.ffmpeg).toMatchObject({ source: 'env', path: ffmpeg });
    expect(tools.ffprobe).toMatchObject({ source: 'env', path: ffprobe });
    expect(ffmpegAdvice(tools, new Date('2027-01-01T00:00:00Z'))).toEqual([]);
  });

  it('takes PATH only from a folder that holds both binaries', () => {
    const onlyFfmpeg = mkdtempSync(path.join(tmp, 'only-'));
    writeFileSync(path.join(onlyFfmpeg, 'ffmpeg'), '#!/bin/sh\n');
    chmodSync(path.join(onlyFfmpeg, 'ffmpeg'), 0o755);
    const both = mkdtempSync(path.join(tmp, 'both-'));
    for (const n of ['ffmpeg', 'ffprobe']) {
      writeFileSync(path.join(both, n), '#!/bin/sh\n');
      chmodSync(path.join(both, n), 0o755);
    }
    const fromPath = toolchainCandidates({ env: { PATH: [onlyFfmpeg, both].join(path.delimiter) } }).filter((c) => c.source === 'path');
    expect(fromPath).toEqual([{ source: 'path', ffmpeg: path.join(both, 'ffmpeg'), ffprobe: path.join(both, 'ffprobe') }]);
  });

  it('warns about the npm pair: two builds, and a 2018 ffmpeg', async () => {
    const tools = await resolveFfmpeg({ env: { PATH: '' } });
    const kinds = ffmpegAdvice(tools, new Date('2026-11-30T00:00:00Z')).map((a) => a.kind);
    // The pinned @ffmpeg-installer ffmpeg is a 2018 build and @ffprobe-installer's a 2023 one.
    expect(kinds).toContain('versions-differ');
    expect(kinds).toContain('old-build');
    expect(parseFfmpegVersionLine('ffmpeg version 5.1.9-0+deb12u1 Copyright (c) 2000-2026 the FFmpeg developers')).toEqual({ version: '5.1.9-0+deb12u1', year: 2026 });
  });

  it('refuses a broken explicit binary with a fix in the message', async () => {
    const broken = script('broken-ffmpeg', 'echo "segfault" >&2; exit 139');
    const err = await resolveBinary('ffmpeg', { ffmpegPath: broken }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FidelityError);
    expect((err as FidelityError).code).toBe('FFMPEG_BROKEN');
    expect((err as FidelityError).message).toMatch(/FIDELITY_FFMPEG/);
  });

  it('refuses a binary that is not ffmpeg', async () => {
    const wrong = script('not-ffmpeg', 'echo "hello"');
    await expect(resolveBinary('ffmpeg', { ffmpegPath: wrong })).rejects.toMatchObject({ code: 'FFMPEG_BROKEN' });
  });

  it('refuses a missing explicit path', async () => {
    await expect(resolveBinary('ffprobe', { ffprobePath: path.join(tmp, 'nope') })).rejects.toMatchObject({ code: 'FFMPEG_BROKEN' });
  });
});
