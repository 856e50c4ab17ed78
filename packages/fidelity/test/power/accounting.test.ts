import { describe, expect, it } from 'vitest';
import { gpuAccounting, GpuAccounting, type AccountingInput } from '../../src/power/accounting.js';

const base: AccountingInput = {
  gpusAllocated: 8,
  gpusParticipating: 2,
  expectedGpuCount: 2,
  windowS: 100,
  validClips: 4,
  energyJ: 80_000,
  measuredGpuCount: 2,
};

describe('gpuAccounting', () => {
  it('keeps participating and allocated apart, and never scales energy to unmeasured GPUs', () => {
    const a = gpuAccounting(base);
    expect(GpuAccounting.parse(a)).toEqual(a);
    expect(a.participating).toEqual({ gpus: 2, gpu_seconds: 200, gpu_seconds_per_valid_clip: 50, energy_j: 80_000, energy_j_per_valid_clip: 20_000, reasons: [] });
    expect(a.allocated).toEqual({
      gpus: 8,
      gpu_seconds: 800,
      gpu_seconds_per_valid_clip: 200,
      energy_j: null,
      energy_j_per_valid_clip: null,
      reasons: ['ENERGY_NOT_MEASURED_ON_BASIS'],
    });
    expect(a.reasons).toEqual([]);
  });

  it('shows the energy on both bases when every allocated GPU participated and was measured', () => {
    const a = gpuAccounting({ ...base, gpusAllocated: 2 });
    expect(a.allocated.energy_j_per_valid_clip).toBe(20_000);
    expect(a.participating.energy_j_per_valid_clip).toBe(20_000);
  });

  it('says why figures are missing', () => {
    const a = gpuAccounting({ ...base, windowS: null, validClips: 0, energyJ: null, measuredGpuCount: null });
    expect(a.participating).toEqual({
      gpus: 2,
      gpu_seconds: null,
      gpu_seconds_per_valid_clip: null,
      energy_j: null,
      energy_j_per_valid_clip: null,
      reasons: ['WINDOW_MISSING', 'NO_VALID_CLIPS', 'POWER_UNAVAILABLE'],
    });
  });

  it('flags a run whose expected GPU count is not its participating count, and withholds energy on that basis', () => {
    const a = gpuAccounting({ ...base, gpusParticipating: 4 });
    expect(a.reasons).toEqual(['EXPECTED_GPU_COUNT_DIFFERS']);
    expect(a.participating.energy_j).toBeNull();
    expect(a.participating.reasons).toEqual(['ENERGY_NOT_MEASURED_ON_BASIS']);
    expect(a.participating.gpu_seconds).toBe(400);
  });

  it('refuses nonsense input', () => {
    expect(() => gpuAccounting({ ...base, gpusAllocated: 1.5 })).toThrow(/gpusAllocated/);
    expect(() => gpuAccounting({ ...base, windowS: -1 })).toThrow(/windowS/);
    expect(() => gpuAccounting({ ...base, measuredGpuCount: null })).toThrow(/both set or both null/);
  });
});
