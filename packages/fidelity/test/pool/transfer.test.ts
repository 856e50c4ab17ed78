import { describe, expect, it } from 'vitest';
import { packOutcome, transferList, unpackOutcome } from '../../src/pool/transfer.js';
import type { MeasureOutcome } from '../../src/schemas/measurement.js';

const series = (values: number[]) => ({ min: 0.5, mean: 0.7, p05: 0.5, max: 1, worst_frame: 1, harmonic_mean: 0.6, per_frame: values });

const outcome = {
  ok: true,
  measurement: {
    video: {
      width: 4,
      height: 2,
      frames: 3,
      ssim: series([1, 0.5, 0.75]),
      ssim_ffmpeg: { y: series([1, 0.5, 0.6]), u: series([1, 1, 1]), v: series([0.9, 0.8, 0.7]), all: series([0.1, 0.2, 0.3]) },
      ssim_rgb7: series([0.25, 0.5, 0.125]),
      psnr_y: { min: 30, mean: 35, p05: 30, max: 40, worst_frame: 2, identical_frames: 1, per_frame: [null, 40, 30] },
      psnr_db: 33.5,
      mae: 0.01,
      identical: false,
    },
    audio: null,
  },
} as unknown as MeasureOutcome;

describe('outcome transfer', () => {
  it('moves every per-frame series as a Float64Array and restores the outcome exactly, key order included', () => {
    const packed = packOutcome(outcome);
    expect(packed.series).toHaveLength(7);
    expect(packed.series.every((s) => s instanceof Float64Array && s.length === 3)).toBe(true);
    expect(transferList(packed)).toHaveLength(7);
    expect(JSON.stringify(packed.outcome)).not.toContain('0.125');
    const back = unpackOutcome(structuredClone(packed, { transfer: transferList(packed) }));
    expect(JSON.stringify(back)).toBe(JSON.stringify(outcome));
  });

  it('leaves a failure as it is', () => {
    const failure: MeasureOutcome = { ok: false, failure: { code: 'UNDECODABLE', message: 'x' } };
    const packed = packOutcome(failure);
    expect(packed.series).toEqual([]);
    expect(unpackOutcome(packed)).toEqual(failure);
  });
});
