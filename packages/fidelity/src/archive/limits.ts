import { invalidParameter } from '../errors.js';
import type { ArchiveLimits } from './types.js';

const MiB = 1024 * 1024;

/** The defaults: generous for a CI artifact of 20-odd clips, small enough to refuse a bomb early. */
export const DEFAULT_LIMITS: Readonly<ArchiveLimits> = Object.freeze({
  maxFiles: 4000,
  maxFileBytes: 512 * MiB,
  maxTotalBytes: 2048 * MiB,
  maxMetadataBytes: 64 * MiB,
  maxEntries: 10000,
  maxDecompressedBytes: 2048 * MiB + 64 * MiB,
  maxCompressionRatio: 100,
});

/** Room for tar headers and padding (512 + up to 1023 bytes per entry, pax and long-name headers) above the files' own bytes. */
export const TAR_OVERHEAD_BYTES = 64 * MiB;

/** Below this many inflated bytes the ratio is not judged: a few small JSON files may compress very well. */
export const RATIO_FLOOR_BYTES = 16 * MiB;

export function resolveLimits(given: Partial<ArchiveLimits> | undefined): ArchiveLimits {
  const limits = { ...DEFAULT_LIMITS };
  for (const key of Object.keys(DEFAULT_LIMITS) as (keyof ArchiveLimits)[]) {
    const value = given?.[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
      throw invalidParameter(`limits.${key}`, 'a positive integer', value);
    }
    limits[key] = value;
  }
  if (given?.maxDecompressedBytes === undefined) {
    limits.maxDecompressedBytes = Math.max(DEFAULT_LIMITS.maxDecompressedBytes, limits.maxTotalBytes + TAR_OVERHEAD_BYTES);
  }
  return limits;
}
