/**
 * A calibration.json must agree with itself before any verdict is drawn from
 * it: `n` is the number of same-hardware pairs and of each video metric's
 * values (an audio metric may have fewer: pairs without audio), the values
 * are sorted (null, +infinity, last) and in their metric's range, and each
 * metric's `worse` is the metric's own direction. Otherwise CALIBRATION_INVALID.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCalibration, parseCalibration } from '../../src/calibrate/load.js';
import type { Calibration } from '../../src/calibrate/schema.js';
import { FidelityError } from '../../src/errors.js';
import { calibrationDoc } from './calibration-doc.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-calibration-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function refused(edit: (c: Calibration) => void): FidelityError {
  const doc = calibrationDoc();
  edit(doc);
  let error: unknown = null;
  try {
    parseCalibration(doc);
  } catch (e) {
    error = e;
  }
  expect(error, 'accepted').toBeInstanceOf(FidelityError);
  expect((error as FidelityError).code).toBe('CALIBRATION_INVALID');
  return error as FidelityError;
}

describe('a calibration agrees with itself', () => {
  it('accepts the consistent document', () => {
    expect(parseCalibration(calibrationDoc()).n).toBe(3);
  });

  it('n must equal the number of pairs and of each video metric\'s values', () => {
    // n = 100000 with 3 values would hide the "sample too small" note.
    expect(refused((c) => void (c.n = 100000)).message).toMatch(/n = 100000/);
    // n = 0 with values would mark pairs beyond noise from nothing.
    refused((c) => void (c.n = 0));
    refused((c) => void c.pairs.pop());
    refused((c) => void c.metrics['video.ssim.min']!.values.pop());
    // An audio metric may have fewer values (pairs without audio), never more.
    refused((c) => void c.metrics['audio.rms_ratio_deviation']!.values.push(0.004, 0.005));
    // The counts in the message agree with their nouns: one pair listed, n = 1 pair.
    const one = refused((c) => {
      c.pairs = c.pairs.slice(0, 1);
      c.n = 1;
      c.metrics['video.ssim.min']!.values = c.metrics['video.ssim.min']!.values.slice(0, 2);
    });
    expect(one.message).toContain('has 2 values; n = 1 pair (every pair has video)');
    expect(refused((c) => void (c.pairs = c.pairs.slice(0, 1))).message).toContain('n = 3, but 1 pair is listed');
  });

  it('values must be sorted ascending, null (+infinity) last', () => {
    refused((c) => void (c.metrics['video.ssim.min']!.values = [0.99, 0.97, 0.98]));
    refused((c) => void (c.metrics['video.psnr_db']!.values = [null, 40, 45]));
  });

  it('values must lie in their metric\'s range', () => {
    expect(refused((c) => void (c.metrics['video.ssim.min']!.values = [0.97, 0.98, 7.5])).message).toMatch(/7\.5/);
    refused((c) => void (c.metrics['video.ssim.min']!.values = [0.97, 0.98, null]));
    refused((c) => void (c.metrics['video.psnr_db']!.values = [-3, 40, 45]));
    refused((c) => void (c.metrics['audio.rms_ratio_deviation']!.values = [-0.5, 0.002]));
    refused((c) => void (c.ssim_floor_per_frame = [0.97, 1.5]));
  });

  it('worse must be the metric\'s own direction, and the metric one this tool calibrates', () => {
    refused((c) => void (c.metrics['video.ssim.min']!.worse = 'higher'));
    refused((c) => void (c.metrics['audio.rms_ratio_deviation']!.worse = 'lower'));
    refused((c) => void (c.metrics['video.vmaf'] = { worse: 'lower', values: [1, 2, 3] }));
  });

  it('loadCalibration refuses the same file from disk with exit-2 code CALIBRATION_INVALID', async () => {
    const doc = calibrationDoc();
    doc.n = 100000;
    const file = path.join(tmp, 'calibration.json');
    writeFileSync(file, JSON.stringify(doc));
    const error = await loadCalibration(file).then(
      () => null,
      (e: unknown) => e,
    );
    expect((error as FidelityError).code).toBe('CALIBRATION_INVALID');
  });
});
