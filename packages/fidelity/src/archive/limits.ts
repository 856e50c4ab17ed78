import { invalidParameter } from '../errors.js';
import type { ArchiveLimits } from './types.js';

const MiB = 1024 * 1024;

/** The defaults: generous for a CI artifact of 20-odd clips, small enough to refuse a bomb early. */
export const DEFAULT_LIMITS: Readonly<ArchiveLimits> = Object.freeze({
  maxFiles: 4000,
  maxFileBytes: 512 * MiB,
  maxTotalBytes: 2048 * MiB,
  maxMetadataBytes: 64 * MiB,
});

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
  return limits;
}
