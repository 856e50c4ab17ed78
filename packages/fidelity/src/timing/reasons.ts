/**
 * Why a server-timing figure is unavailable. A missing figure is shown as
 * "unavailable", never as 0: a zero queue delay is a claim, not a default.
 */
import { inCatalogueOrder } from '../errors.js';
/** Why a record's server timing is missing, by code (also in {@link ReasonCodes}). */
export const TimingReasons = {
  TIMING_ABSENT: 'the record has no server_timing (older runs never had it)',
  TIMING_NOT_MONOTONIC: 'the stage timestamps decrease somewhere along received, accepted, dispatch, forward finished, media ready',
  TIMING_CLOCK_MISMATCH: 'the run\'s records use more than one clock id, so no two stamps can be compared; every figure of the run is dropped',
} as const;

/** One of the keys of {@link TimingReasons}. */
export type TimingReasonCode = keyof typeof TimingReasons;

export function orderTimingReasons(codes: Iterable<TimingReasonCode>): TimingReasonCode[] {
  return inCatalogueOrder(TimingReasons, codes);
}
