/**
 * probePair with the files' sealed SHA-256 (pool/probe-pair.ts, used by merge): a file whose bytes
 * this process probed already with the same ffprobe is not probed again (media/probe-cache.ts), a new
 * probe is kept for the next pair, and a failed probe is not kept (each pair reports its own side). ffprobe is a logging wrapper around
 * the real one (test/media/wrapper.ts), so every probe run is counted per file. The library reads
 * MP4s itself (media/mp4-reader.ts): the clips are remuxed to Matroska, which ffprobe reads.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { probePair } from '../../src/pool/probe-pair.js';
import { keptProbe } from '../../src/media/probe-cache.js';
import { sha256File } from '../../src/hash.js';
import { loggingTools, realFfmpeg } from '../media/wrapper.js';

const RUNS = fileURLToPath(new URL('../../../../fixtures/runs/', import.meta.url));
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-probe-pair-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const log = path.join(tmp, 'tools.log');
const ffmpeg = loggingTools(path.join(tmp, 'bin'), log);

/** The files ffprobe was run on, in order (the last argument of each logged run). */
function probed(): string[] {
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('ffprobe '))
    .map((line) => line.split(' ').at(-1)!)
    .map((file) => (file.startsWith(tmp) ? path.relative(tmp, file) : path.relative(RUNS, file)));
}

/** A fixture run's clip remuxed to Matroska under `tmp`, at the same relative path. */
function asMatroska(run: string, slot: string): string {
  const out = path.join(tmp, run, 'media', `${slot}.mkv`);
  mkdirSync(path.dirname(out), { recursive: true });
  execFileSync(realFfmpeg(), ['-nostdin', '-v', 'error', '-y', '-i', path.join(RUNS, run, 'media', `${slot}.mp4`), '-c', 'copy', out]);
  return out;
}

describe('probePair with the sealed SHA-256 of both files', () => {
  const slot = 'measurement-r000-c001';
  const files = { h200: asMatroska('h200', slot), b200: asMatroska('b200', slot), h100: asMatroska('h100', slot) };

  it('starts no ffprobe for the MP4s themselves: the library reads them', async () => {
    writeFileSync(log, '');
    const mp4 = (run: string): string => path.join(RUNS, run, 'media', `${slot}.mp4`);
    const facts = await probePair(mp4('h200'), mp4('b200'), { ffmpeg });
    expect(facts.ok).toBe(true);
    expect(probed()).toEqual([]);
  });

  it('probes a shared baseline once and gives the facts two separate probes give', async () => {
    const sha = { h200: await sha256File(files.h200), b200: await sha256File(files.b200), h100: await sha256File(files.h100) };
    writeFileSync(log, '');
    const first = await probePair(files.h200, files.b200, { ffmpeg }, { baseline: sha.h200, candidate: sha.b200 });
    const second = await probePair(files.h200, files.h100, { ffmpeg }, { baseline: sha.h200, candidate: sha.h100 });
    expect(probed().sort()).toEqual([`b200/media/${slot}.mkv`, `h100/media/${slot}.mkv`, `h200/media/${slot}.mkv`]);
    for (const name of ['h200', 'b200', 'h100'] as const) expect(keptProbe(ffmpeg.ffprobePath, sha[name], files[name])?.file).toBe(files[name]);
    writeFileSync(log, '');
    const apart = [await probePair(files.h200, files.b200, { ffmpeg }), await probePair(files.h200, files.h100, { ffmpeg })];
    expect(probed()).toHaveLength(4);
    expect([first, second]).toEqual(apart);
  });

  it('keeps no failed probe: the same broken bytes are probed, and blamed, for each pair', async () => {
    const broken = path.join(tmp, 'broken.mp4');
    writeFileSync(broken, 'not an mp4');
    const brokenSha = await sha256File(broken);
    const h200 = await sha256File(files.h200);
    writeFileSync(log, '');
    for (let i = 0; i < 2; i++) {
      const facts = await probePair(files.h200, broken, { ffmpeg }, { baseline: h200, candidate: brokenSha });
      expect(facts.ok).toBe(false);
      if (!facts.ok) expect(facts.failure.side).toBe('candidate');
    }
    expect(probed().filter((file) => file === 'broken.mp4')).toHaveLength(2);
    expect(keptProbe(ffmpeg.ffprobePath, brokenSha, broken)).toBeUndefined();
    expect(keptProbe(ffmpeg.ffprobePath, h200, files.h200)).toBeDefined();
  });
});
