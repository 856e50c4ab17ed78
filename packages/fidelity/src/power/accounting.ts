/**
 * GPU accounting: the GPUs that did the work (participating) kept apart from
 * the capacity the job held (allocated), with GPU-seconds and energy per valid
 * clip on each basis. Energy is only ever the measured figure: it is shown on
 * a basis only when exactly that many GPUs were measured, never scaled to
 * GPUs nobody measured.
 */
import { z } from 'zod';
import { inCatalogueOrder, invalidParameter } from '../errors.js';

/** Why a GPU accounting figure is missing, by code (also in {@link ReasonCodes}). */
export const AccountingReasons = {
  WINDOW_MISSING: 'no usable measurement window, so no GPU-seconds',
  NO_VALID_CLIPS: 'the run has no ok measurement record, so nothing is per valid clip',
  POWER_UNAVAILABLE: 'the run has no valid power figure',
  ENERGY_NOT_MEASURED_ON_BASIS: 'the telemetry measured a different number of GPUs than this basis counts; energy is never scaled',
  EXPECTED_GPU_COUNT_DIFFERS: 'run.json expected_gpu_count differs from ci.json gpus_participating',
} as const;
/** One of the keys of {@link AccountingReasons}. */
export type AccountingReasonCode = keyof typeof AccountingReasons;

/** The figures of one GPU-count basis (allocated, or participating). */
export const AccountingBasis = z.object({
  gpus: z.number().int(),
  gpu_seconds: z.number().nullable(),
  gpu_seconds_per_valid_clip: z.number().nullable(),
  energy_j: z.number().nullable(),
  energy_j_per_valid_clip: z.number().nullable(),
  /** Why a figure of this basis is null (AccountingReasons), catalogue order. */
  reasons: z.array(z.string()),
});
export type AccountingBasis = z.infer<typeof AccountingBasis>;

/** A run's GPU accounting: both bases side by side (docs/power-and-timing.md, "GPU accounting"). */
export const GpuAccounting = z.object({
  gpus_allocated: z.number().int(),
  gpus_participating: z.number().int(),
  expected_gpu_count: z.number().int(),
  /** GPUs in the telemetry when power is valid; null otherwise. */
  measured_gpu_count: z.number().int().nullable(),
  window_s: z.number().nullable(),
  valid_clips: z.number().int(),
  participating: AccountingBasis,
  allocated: AccountingBasis,
  /** Run-level remarks (AccountingReasons), catalogue order. */
  reasons: z.array(z.string()),
});
export type GpuAccounting = z.infer<typeof GpuAccounting>;

/** The counts and measured figures {@link gpuAccounting} works from. */
export interface AccountingInput {
  gpusAllocated: number;
  gpusParticipating: number;
  expectedGpuCount: number;
  /** Measurement window length in seconds; null when the run has none. */
  windowS: number | null;
  validClips: number;
  /** Total measured energy (J) and how many GPUs it covers; both null when power is not valid. */
  energyJ: number | null;
  measuredGpuCount: number | null;
}

const ordered = (codes: Set<AccountingReasonCode>) => inCatalogueOrder(AccountingReasons, codes);

function basis(gpus: number, input: AccountingInput): AccountingBasis {
  const reasons = new Set<AccountingReasonCode>();
  const { windowS, validClips, energyJ, measuredGpuCount } = input;
  const gpuSeconds = windowS === null ? null : gpus * windowS;
  if (windowS === null) reasons.add('WINDOW_MISSING');
  if (validClips === 0) reasons.add('NO_VALID_CLIPS');
  let energy: number | null = null;
  if (energyJ === null || measuredGpuCount === null) reasons.add('POWER_UNAVAILABLE');
  else if (measuredGpuCount !== gpus) reasons.add('ENERGY_NOT_MEASURED_ON_BASIS');
  else energy = energyJ;
  const perClip = (v: number | null) => (v === null || validClips === 0 ? null : v / validClips);
  return {
    gpus,
    gpu_seconds: gpuSeconds,
    gpu_seconds_per_valid_clip: perClip(gpuSeconds),
    energy_j: energy,
    energy_j_per_valid_clip: perClip(energy),
    reasons: ordered(reasons),
  };
}

/**
 * Computes GPU-seconds and energy per valid clip on both bases (allocated and participating GPUs);
 * energy is never scaled to a GPU count it was not measured on.
 *
 * @throws FidelityError `INVALID_ARGUMENT` for counts that are not positive integers.
 */
export function gpuAccounting(input: AccountingInput): GpuAccounting {
  const counts = { gpusAllocated: input.gpusAllocated, gpusParticipating: input.gpusParticipating, expectedGpuCount: input.expectedGpuCount, validClips: input.validClips };
  for (const [name, value] of Object.entries(counts)) {
    if (!Number.isInteger(value) || value < 0) throw invalidParameter(name, 'a non-negative integer', value);
  }
  if (input.windowS !== null && !(Number.isFinite(input.windowS) && input.windowS > 0)) throw invalidParameter('windowS', 'a positive number or null', input.windowS);
  if ((input.energyJ === null) !== (input.measuredGpuCount === null)) {
    throw invalidParameter('energyJ and measuredGpuCount', 'both set or both null', `${input.energyJ} and ${input.measuredGpuCount}`);
  }
  const runReasons = new Set<AccountingReasonCode>();
  if (input.expectedGpuCount !== input.gpusParticipating) runReasons.add('EXPECTED_GPU_COUNT_DIFFERS');
  return {
    gpus_allocated: input.gpusAllocated,
    gpus_participating: input.gpusParticipating,
    expected_gpu_count: input.expectedGpuCount,
    measured_gpu_count: input.measuredGpuCount,
    window_s: input.windowS,
    valid_clips: input.validClips,
    participating: basis(input.gpusParticipating, input),
    allocated: basis(input.gpusAllocated, input),
    reasons: ordered(runReasons),
  };
}
