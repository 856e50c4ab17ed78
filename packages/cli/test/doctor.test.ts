/**
 * `fidelity doctor`: both binaries with their source, the warnings about the pinned npm pair, and
 * the refusal to pair a lone FIDELITY_FFMPEG with another build's ffprobe.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { main } from '../src/main.js';
import { capture } from './capture.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-doctor-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const saved = { ffmpeg: process.env.FIDELITY_FFMPEG, ffprobe: process.env.FIDELITY_FFPROBE };
afterEach(() => {
  for (const [k, v] of [['FIDELITY_FFMPEG', saved.ffmpeg], ['FIDELITY_FFPROBE', saved.ffprobe]] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

interface Doc {
  ffmpeg: { source: string; path: string; version: string };
  ffprobe: { source: string; path: string; version: string };
  warnings: { kind: string; message: string }[];
}

async function doctor(json = true) {
  const io = capture();
  const code = await main(['doctor', ...(json ? ['--json'] : [])], io);
  return { code, out: io.stdout(), err: io.stderr() };
}

describe('fidelity doctor', () => {
  it('prints both binaries from one source, and warns about the npm pair', async () => {
    delete process.env.FIDELITY_FFMPEG;
    delete process.env.FIDELITY_FFPROBE;
    const r = await doctor();
    expect(r.code, r.err).toBe(0);
    const doc = JSON.parse(r.out) as Doc;
    expect(doc.ffprobe.source).toBe(doc.ffmpeg.source);
    if (doc.ffmpeg.source === 'installer') {
      // The pinned packages: a 2018 ffmpeg and a 2023 ffprobe.
      expect(doc.warnings.map((w) => w.kind).sort()).toEqual(['old-build', 'versions-differ']);
      expect(doc.warnings[0]?.message).toMatch(/apt-get install ffmpeg/);
      expect(doc.warnings[0]?.message).toMatch(/FIDELITY_FFPROBE/);
    }
    const text = await doctor(false);
    expect(text.out).toMatch(/^ffmpeg .*\n\s+from: /m);
    expect(text.out).toMatch(/^ffprobe .*\n\s+from: /m);
  });

  it('takes ffprobe beside a lone FIDELITY_FFMPEG, and refuses when there is none', async () => {
    if (!existsSync('/usr/bin/ffmpeg') || !existsSync('/usr/bin/ffprobe')) return expect.fail('needs Debian ffmpeg in /usr/bin (apt-get install ffmpeg)');
    delete process.env.FIDELITY_FFPROBE;
    process.env.FIDELITY_FFMPEG = '/usr/bin/ffmpeg';
    const r = await doctor();
    expect(r.code, r.err).toBe(0);
    const doc = JSON.parse(r.out) as Doc;
    expect(doc.ffmpeg).toMatchObject({ source: 'env', path: '/usr/bin/ffmpeg' });
    expect(doc.ffprobe).toMatchObject({ source: 'env', path: '/usr/bin/ffprobe' });
    expect(doc.warnings.filter((w) => w.kind === 'versions-differ')).toEqual([]);

    const lone = path.join(tmp, 'ffmpeg');
    copyFileSync('/usr/bin/ffmpeg', lone);
    process.env.FIDELITY_FFMPEG = lone;
    const refused = await doctor();
    expect(refused.code).toBe(2);
    const err = JSON.parse(refused.out) as { errors: { code: string; message: string }[] };
    expect(err.errors[0]?.code).toBe('FFMPEG_NOT_FOUND');
    expect(err.errors[0]?.message).toMatch(/FIDELITY_FFPROBE is not/);
  });
});
