import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/main.js';
import { capture } from './capture.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'fidelity-generate-cli-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

async function cli(...args: string[]) {
  const io = capture();
  const code = await main(args, io);
  return { code, out: io.stdout(), err: io.stderr() };
}

describe('fidelity generate', () => {
  it('writes the asked sites and prints one JSON document', async () => {
    const out = path.join(root, 'runs');
    const r = await cli('generate', '--out', out, '--sites', 'h200,B200', '--json');
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out) as { ok: boolean; runs: { site: string; dir: string }[]; slots: { difference: string }[]; ffmpeg: { version: string } };
    expect(doc.ok).toBe(true);
    expect(doc.runs.map((x) => x.site)).toEqual(['H200', 'B200']);
    expect(doc.ffmpeg.version).toMatch(/^ffmpeg version/);
    expect(doc.slots.map((s) => s.difference)).toContain('heavy_noise');
    expect((await readdir(out)).sort()).toEqual(['b200', 'h200', 'synth-manifest.json']);
    expect(r.err).toBe('');
  });

  it('refuses to replace runs without --force, and replaces them with it', async () => {
    const out = path.join(root, 'twice');
    expect((await cli('generate', '--out', out, '--sites', 'H100')).code).toBe(0);
    const again = await cli('generate', '--out', out, '--sites', 'H100', '--json');
    expect(again.code).toBe(2);
    expect(JSON.parse(again.out)).toMatchObject({ ok: false, errors: [{ code: 'OUTPUT_EXISTS' }] });
    const forced = await cli('generate', '--out', out, '--sites', 'H100', '--force');
    expect(forced.code).toBe(0);
    expect(forced.out).toMatch(/H100 +candidate/);
    expect(forced.out).toMatch(/sampling gap/);
  });

  it('reports usage errors with exit 2', async () => {
    for (const args of [[], ['--out', root, '--seconds', 'x'], ['--out', root, '--repetitions', '0'], ['--out', root, '--sites', 'MI355X'], ['--out', root, 'extra']]) {
      const r = await cli('generate', ...args, '--json');
      expect(r.code, args.join(' ')).toBe(2);
      expect(JSON.parse(r.out).errors[0].code).toBe('USAGE');
    }
  });

  it('--format writes archives that verify as written, and refuses an unknown format', async () => {
    const out = path.join(root, 'archives');
    const r = await cli('generate', '--out', out, '--sites', 'H100', '--cases', '2', '--format', 'tar.gz');
    expect(r.code, r.err).toBe(0);
    expect((await readdir(out)).sort()).toEqual(['h100.tar.gz', 'h100.tar.gz.sha256', 'synth-manifest.json']);
    const v = await cli('verify', path.join(out, 'h100.tar.gz'), '--require-digest');
    expect(v.code, v.out + v.err).toBe(0);
    const bad = await cli('generate', '--out', out, '--format', 'rar');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--format/);
  }, 60_000);
});
