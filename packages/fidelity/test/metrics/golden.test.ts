import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeVideo, goldenPair, PAIR_NAMES } from './oracle.js';

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

// The golden values are only an oracle for the exact files and pixels they were
// computed from: if a clip is regenerated, rerun fixtures/golden/make_golden.py.
// What ties them to this machine is the decoded pixels, not the ffmpeg binary: H.264
// decoding and the bit-exact rgb24 conversion give the same bytes on every CPU and
// build, so the same check holds on Intel, AMD and arm64 (another CPU's build of
// ffmpeg is another binary, with the same pixels).
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

  for (const name of PAIR_NAMES) {
    it(`${name}: this machine's decoder gives exactly the Y planes and rgb24 frames the values were computed from`, async () => {
      const g = goldenPair(name);
      for (const [side, file] of [[g.baseline, g.baselineFile], [g.candidate, g.candidateFile]] as const) {
        const frames = await decodeVideo(file);
        const y = createHash('sha256');
        const rgb = createHash('sha256');
        for (const f of frames) {
          y.update(f.y);
          rgb.update(f.rgb);
        }
        expect(frames).toHaveLength(g.frames);
        expect(y.digest('hex'), `${side.path}: Y planes`).toBe(side.decoded.y_sha256);
        expect(rgb.digest('hex'), `${side.path}: rgb24`).toBe(side.decoded.rgb24_sha256);
      }
    });
  }
});
