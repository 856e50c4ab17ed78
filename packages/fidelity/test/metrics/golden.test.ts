import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { resolveFfmpeg } from '../../src/media/ffmpeg.js';
import { goldenPair, PAIR_NAMES } from './oracle.js';

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

// The golden values are only an oracle for the exact files (and decoder) they
// were computed from: if a clip is regenerated, rerun fixtures/golden/make_golden.py.
describe('golden fixtures', () => {
  it('cover the small clips and the compatible slots of the committed runs', () => {
    expect(PAIR_NAMES).toEqual(expect.arrayContaining(['noise', 'blur', 'content', 'runs-b200-r000-c001']));
  });

  for (const name of PAIR_NAMES) {
    it(`${name}: the inputs are the files the golden values were computed from`, () => {
      const g = goldenPair(name);
      expect(sha256(g.baselineFile), `${g.baseline.path} changed: rerun make_golden.py`).toBe(g.baseline.sha256);
      expect(sha256(g.candidateFile), `${g.candidate.path} changed: rerun make_golden.py`).toBe(g.candidate.sha256);
    });
  }

  it('were decoded by the ffmpeg the library resolves', async () => {
    const { ffmpeg } = await resolveFfmpeg();
    for (const name of PAIR_NAMES) expect(goldenPair(name).ffmpeg_sha256).toBe(ffmpeg.sha256);
  });
});
