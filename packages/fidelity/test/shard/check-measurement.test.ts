/**
 * merge's checks of a partial's figures (shard/check-measurement.ts): the two similarities of a
 * channel (Pearson and the spectral cosine) lie in [-1, 1], each one out of range named with its value,
 * Pearson first; the audio lag against the channel's own peaks (the committed reference report's
 * pair with a silent candidate channel, c005 channel 1, its reason removed, moved or forged); and
 * InferenceX's figures, which must be the pair's own when compatible and the template when not.
 */
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { inferencexFigures, inferencexRefused } from '../../src/metrics/inferencex.js';
import { resolveMetrics } from '../../src/metrics/names.js';
import type { PairMeasurement } from '../../src/schemas/measurement.js';
import { measurementProblems } from '../../src/shard/check-measurement.js';
import { makeMeasurement } from '../policy/make-measurement.js';

const ROOT = path.resolve(import.meta.dirname, '../../../..');
const report = JSON.parse(readFileSync(path.join(ROOT, 'fixtures', 'reference', 'report.json'), 'utf8'));
const metrics = resolveMetrics(report.metrics.list);
const c005 = (): PairMeasurement => {
  const p = report.comparisons[0].pairs.find((x: { slot_id: string }) => x.slot_id === 'measurement-r000-c005');
  return structuredClone({ video: p.video, audio: p.audio });
};
const lagProblems = (m: PairMeasurement) => measurementProblems(m, metrics).filter((x) => x.includes('lag_estimate'));

describe('measurementProblems: the audio lag of a silent side', () => {
  it('holds as measured: the silent candidate channel says candidate_silent, the other channel nothing', () => {
    const m = c005();
    expect(m.audio!.channels.map((c) => c.lag_estimate_reason)).toEqual([undefined, 'candidate_silent']);
    expect(lagProblems(m)).toEqual([]);
  });

  it('a reason removed, forged on a channel with signal, the wrong side, or a lag given to a silent side is refused', () => {
    const removed = c005();
    delete removed.audio!.channels[1]!.lag_estimate_reason;
    expect(lagProblems(removed)).toEqual(['audio.channels[1]: lag_estimate_reason absent where the peaks give candidate_silent']);
    const forged = c005();
    forged.audio!.channels[0]!.lag_estimate_reason = 'baseline_silent';
    expect(lagProblems(forged)).toEqual(['audio.channels[0]: lag_estimate_reason baseline_silent where the peaks give absent']);
    const wrongSide = c005();
    wrongSide.audio!.channels[1]!.lag_estimate_reason = 'both_silent';
    expect(lagProblems(wrongSide)).toHaveLength(1);
    const lag = c005();
    lag.audio!.channels[1]!.lag_estimate_samples = 12;
    expect(lagProblems(lag)).toEqual(['audio.channels[1]: lag_estimate_samples 12 of a silent side']);
  });
});

const channelProblems = (pearson: number, cosine: number): string[] => {
  const m = makeMeasurement({ spectralCosine: cosine });
  m.audio!.channels[0]!.pearson = pearson;
  return measurementProblems(m, resolveMetrics('audio,psnr_db')).filter((p) => p.startsWith('audio.channels[0]'));
};

describe('measurementProblems: a channel similarity out of [-1, 1]', () => {
  it('passes both at the ends of the range', () => {
    expect(channelProblems(-1, 1)).toEqual([]);
  });

  it('names each one out of range, Pearson first', () => {
    expect(channelProblems(-3, 2)).toEqual(['audio.channels[0]: pearson = -3; spectral_cosine = 2']);
    expect(channelProblems(0.5, Number.NaN)).toEqual(['audio.channels[0]: spectral_cosine = NaN']);
    expect(channelProblems(1.0001, 0.5)).toEqual(['audio.channels[0]: pearson = 1.0001']);
  });
});

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
