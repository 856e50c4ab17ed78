import { mkdtempSync, writeFileSync, chmodSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { binaryCandidates, resolveBinary, resolveFfmpeg } from '../../src/media/ffmpeg.js';
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

  it('orders option, env, packages, PATH', () => {
    const fake = script('ffmpeg', 'echo "ffmpeg version fake"');
    const list = binaryCandidates('ffmpeg', { ffmpegPath: '/opt/explicit/ffmpeg', env: { FIDELITY_FFMPEG: '/opt/env/ffmpeg', PATH: tmp } });
    expect(list.map((c) => c.source)).toEqual(['option', 'env', 'installer', 'path']);
    expect(list[0]?.path).toBe('/opt/explicit/ffmpeg');
    expect(list[1]?.path).toBe('/opt/env/ffmpeg');
    expect(list.at(-1)?.path).toBe(fake);
  });

  it('skips ffmpeg-static when its binary was never downloaded', () => {
    const list = binaryCandidates('ffmpeg', { env: { PATH: '' } });
    expect(list.some((c) => c.source === 'ffmpeg-static')).toBe(false);
  });

  it('uses FIDELITY_FFMPEG before the packages', async () => {
    const fake = script('env-ffmpeg', 'echo "ffmpeg version 9.9-test"');
    const id = await resolveBinary('ffmpeg', { env: { FIDELITY_FFMPEG: fake, PATH: '' } });
    expect(id).toMatchObject({ source: 'env', path: fake, version: 'ffmpeg version 9.9-test' });
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
