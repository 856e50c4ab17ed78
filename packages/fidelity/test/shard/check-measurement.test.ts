/**
 * merge's check of a partial's InferenceX figures (shard/check-measurement.ts): they must be the
 * pair's own figures when compatible, and the template when not.
 */
import { describe, expect, it } from 'vitest';
import { inferencexFigures, inferencexRefused } from '../../src/metrics/inferencex.js';
import { resolveMetrics } from '../../src/metrics/names.js';
import { measurementProblems } from '../../src/shard/check-measurement.js';
import { makeMeasurement } from '../policy/make-measurement.js';

describe("merge's check of pairs[].inferencex", () => {
  const set = resolveMetrics('all');

  it("accepts the pair's own figures and the refusal template", () => {
    const m = makeMeasurement({ audio: false });
    m.inferencex = inferencexFigures({ mae: m.video.mae!, psnrDb: m.video.psnr_db ?? null, frames: m.video.frames, maxAlignmentDeltaSeconds: 0 }, null);
    expect(measurementProblems(m, set).filter((p) => p.includes('inferencex'))).toEqual([]);
    m.inferencex = inferencexRefused();
    expect(measurementProblems(m, set).filter((p) => p.includes('inferencex'))).toEqual([]);
  });

  it('refuses figures that are not the pair\'s, and a refusal with figures', () => {
    const m = makeMeasurement({ audio: false });
    m.inferencex = inferencexFigures({ mae: 0.5, psnrDb: m.video.psnr_db ?? null, frames: m.video.frames, maxAlignmentDeltaSeconds: 0 }, null);
    expect(measurementProblems(m, set)).toContainEqual(expect.stringMatching(/inferencex\.metrics\.video_mae is 0\.5, but the pair's own figures give 0\.01/));
    const refused = inferencexRefused();
    refused.metrics.video_compared_frames = 3;
    m.inferencex = refused;
    expect(measurementProblems(m, set)).toContainEqual('inferencex is not compatible, but its metrics are not the unmeasured template');
  });
});
