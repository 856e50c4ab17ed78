import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createVideoAccumulator } from '../../src/metrics/video.js';
import { decodeVideo, goldenPair, PAIR_NAMES } from './oracle.js';

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

// The golden values are only an oracle for the exact files and pixels they were
// computed from: if a clip is regenerated, rerun fixtures/golden/make_golden.py.
// What ties them to this machine is the decoded pixels, not the ffmpeg binary: H.264
// decoding gives the same Y planes on every CPU and build, and the goldens' rgb24 is
// PyAV's to_ndarray("rgb24") (InferenceX's decoder, never this library's output), which
// our own conversion of those planes must reproduce byte for byte, on any CPU.
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
    it(`${name}: this machine's decoder gives exactly the Y planes, and our conversion exactly PyAV's rgb24 frames, that the values were computed from`, async () => {
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

  for (const name of PAIR_NAMES) {
    it(`${name}: the pooled RGB PSNR and MAE equal numpy's over PyAV's rgb24, to the bit`, async () => {
      const g = goldenPair(name);
      const [a, b] = await Promise.all([decodeVideo(g.baselineFile), decodeVideo(g.candidateFile)]);
      const acc = createVideoAccumulator(a[0]!, 'inferencex');
      a.forEach((fa, i) => acc.addFrame({ ...fa, rgb: undefined }, { ...b[i]!, rgb: undefined }));
      const m = acc.finish();
      expect({ psnr_db: m.psnr_db, mae: m.mae }).toEqual(g.rgb_pooled);
    });
  }
});
