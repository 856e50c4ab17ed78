import { describe, expect, it } from 'vitest';
import type { Calibration } from 'media-fidelity';
import { calibrationSummary } from '../src/commands/calibrate.js';

/** A calibration of n same-hardware pairs with one metric: only what the summary reads. */
function sample(n: number): Calibration {
  return {
    n,
    pairs: Array.from({ length: n }, (_, i) => ({ kind: 'repetition', pair: `p${i}` })),
    excluded: [],
    sources: [{ gpu_model: 'H200', run_id: '1', run_attempt: 1 }],
    metrics: { ssim_min: { worse: 'lower', values: Array.from({ length: n }, (_, i) => 0.99 - i / 1000) } },
  } as unknown as Calibration;
}

describe('calibrationSummary', () => {
  it('speaks of the level given: n = 10 is too small at 0.05 but enough at 0.1', () => {
    expect(calibrationSummary(sample(10), 'c.json')).toMatch(/smallest possible p is 0\.091: no pair can be declared beyond noise at alpha = 0\.05 \(n >= 19 needed\)/);
    expect(calibrationSummary(sample(10), 'c.json', 0.1)).not.toMatch(/Note:/);
    expect(calibrationSummary(sample(5), 'c.json', 0.1)).toMatch(/at alpha = 0\.1 \(n >= 9 needed\)/);
  });

  it('says nothing of the sample size from n = 19 on at the default level', () => {
    expect(calibrationSummary(sample(19), 'c.json')).not.toMatch(/Note:/);
    expect(calibrationSummary(sample(18), 'c.json')).toMatch(/n >= 19 needed/);
  });
});
