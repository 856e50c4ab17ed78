/**
 * merge's check of a partial's audio figures: the two similarities of a
 * channel (Pearson and the spectral cosine) lie in [-1, 1], and each one out
 * of range is named with its value, Pearson first.
 */
import { describe, expect, it } from 'vitest';
import { resolveMetrics } from '../../src/metrics/names.js';
import { measurementProblems } from '../../src/shard/check-measurement.js';
import { makeMeasurement } from '../policy/make-measurement.js';

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
