/**
 * A small, self-consistent calibration.json written by hand (three
 * same-hardware pairs), for tests that break one field of it at a time.
 */
import type { Calibration } from '../../src/calibrate/schema.js';

const SHA = (c: string) => c.repeat(64);

export function calibrationDoc(): Calibration {
  return {
    schema_version: 1,
    definitions_version: 2,
    generated_at: '2025-11-29T21:00:00.000Z',
    tool: { name: 'fidelity', version: '0.1.0' },
    decoder: { ffmpeg_version: '5.1', sha256: SHA('a'), ffprobe_version: '5.1', ffprobe_sha256: SHA('b') },
    plan_sha256: SHA('c'),
    hardware: ['H200 x2'],
    sources: [
      { run_id: 1, run_attempt: 1, gpu_model: 'H200', gpus: 2, plan_sha256: SHA('c'), seal_sha256: SHA('d'), source: { name: 'h200', kind: 'directory' } },
      { run_id: 2, run_attempt: 1, gpu_model: 'H200', gpus: 2, plan_sha256: SHA('c'), seal_sha256: SHA('e'), source: { name: 'h200r', kind: 'directory' } },
    ],
    n: 3,
    pairs: [
      { id: '2-1/measurement-r000-c000', kind: 'rerun', hardware: 'H200 x2', case_id: 'a-s1' },
      { id: '2-1/measurement-r000-c001', kind: 'rerun', hardware: 'H200 x2', case_id: 'b-s1' },
      { id: '2-1/measurement-r000-c002', kind: 'rerun', hardware: 'H200 x2', case_id: 'c-s1' },
    ],
    excluded: [],
    warmups_ignored: 2,
    metrics: {
      'video.ssim.min': { worse: 'lower', values: [0.97, 0.98, 0.99] },
      'video.psnr_db': { worse: 'lower', values: [40, 45, null] },
      'audio.rms_ratio_deviation': { worse: 'higher', values: [0.001, 0.002] },
    },
    ssim_floor_per_frame: [0.97, 0.98],
  };
}
