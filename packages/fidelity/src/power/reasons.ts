/**
 * Why a run's board energy is not reported (docs/power-and-timing.md, "Board energy"). Every code
 * that applies is listed, in this catalogue's order, so two reports of the
 * same telemetry list the same codes in the same order.
 */
import { inCatalogueOrder } from '../errors.js';
/** Why a power figure is invalid, by code (also in {@link ReasonCodes}). */
export const PowerReasons = {
  WINDOW_MISSING: 'run.json has no measurement_window, so there is nothing to integrate over',
  WINDOW_INVALID: 'the measurement window is not finite or does not end after it starts',
  TELEMETRY_MISSING: 'the run has telemetry but no telemetry/gpu_metrics.csv',
  TELEMETRY_EMPTY: 'telemetry/gpu_metrics.csv has no data rows',
  COLUMN_MISSING_TIMESTAMP: 'the CSV header has no timestamp column',
  COLUMN_MISSING_INDEX: 'the CSV header has no GPU identity column (index, uuid or pci.bus_id)',
  COLUMN_MISSING_POWER: 'the CSV header has no power draw column (power.draw, power.draw.average or power.draw.instant)',
  MALFORMED_ROW_IN_WINDOW: 'a row inside the window (widened by the maximum gap) could not be parsed',
  NO_SAMPLES_IN_WINDOW: 'no power reading lies inside the window widened by the maximum gap',
  GPU_COUNT_MISMATCH: 'the number of GPUs in the telemetry differs from run.json expected_gpu_count',
  WINDOW_NOT_BRACKETED: 'a GPU has no reading at or before the window start, or none at or after its end',
  GAP_EXCEEDED: 'two consecutive readings of a GPU around or inside the window are further apart than the maximum gap',
} as const;

/** One of the keys of {@link PowerReasons}. */
export type PowerReasonCode = keyof typeof PowerReasons;

export function orderPowerReasons(codes: Iterable<PowerReasonCode>): PowerReasonCode[] {
  return inCatalogueOrder(PowerReasons, codes);
}
