/**
 * Telemetry timestamps as integer microseconds since the Unix epoch. Integers
 * because the gap rule compares differences against a limit, and a gap of
 * exactly the limit must pass: float seconds near 1.7e9 turn 3.000 s into
 * 3.0000002 s. Microseconds since 1970 stay below 2^53 until the year 2255.
 */

const NVIDIA = /^(\d{4})\/(\d{2})\/(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?$/;
const ISO = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;
const EPOCH = /^(\d{1,10})(?:\.(\d+))?$/;

/** Largest epoch-seconds value whose microseconds are still exact integers in a double. */
const MAX_EPOCH_S = Math.floor(Number.MAX_SAFE_INTEGER / 1e6);

export const US_PER_S = 1_000_000;

function fractionToMicros(digits: string | undefined): number {
  if (!digits) return 0;
  return Math.round(Number(`0.${digits}`) * US_PER_S);
}

function civilToMicros(parts: string[], fraction: string | undefined, offsetMinutes: number): number | null {
  const [y, mo, d, h, mi, s] = parts.map(Number) as [number, number, number, number, number, number];
  if (mo < 1 || mo > 12 || h > 23 || mi > 59 || s > 59) return null;
  const ms = Date.UTC(y, mo - 1, d, h, mi, s);
  // Date.UTC rolls 2026-02-30 over into March; a real calendar date survives the round trip.
  if (new Date(ms).getUTCDate() !== d) return null;
  return (ms / 1000 - offsetMinutes * 60) * US_PER_S + fractionToMicros(fraction);
}

function zoneOffsetMinutes(zone: string | undefined): number | null {
  if (!zone || zone.toUpperCase() === 'Z') return 0;
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone);
  if (!m) return null;
  const hours = Number(m[2]);
  const minutes = Number(m[3] ?? '0');
  if (hours > 23 || minutes > 59) return null;
  return (m[1] === '-' ? -1 : 1) * (hours * 60 + minutes);
}

/**
 * Parses `2026/11/29 21:40:01.123` (nvidia-smi; UTC in this format version),
 * ISO 8601 with or without a zone (no zone means UTC) and epoch seconds.
 * Returns null for anything else, so the caller can call the row malformed.
 */
export function parseTimestampMicros(cell: string): number | null {
  const text = cell.trim();
  let m = NVIDIA.exec(text);
  if (m) return civilToMicros(m.slice(1, 7), m[7], 0);
  m = ISO.exec(text);
  if (m) {
    const offset = zoneOffsetMinutes(m[8]);
    if (offset === null) return null;
    return civilToMicros([m[1]!, m[2]!, m[3]!, m[4]!, m[5]!, m[6] ?? '0'], m[7], offset);
  }
  m = EPOCH.exec(text);
  if (m) {
    const seconds = Number(m[1]);
    // Bigger numbers are most likely epoch milliseconds; guessing the unit would misplace every sample.
    if (seconds > MAX_EPOCH_S) return null;
    return seconds * US_PER_S + fractionToMicros(m[2]);
  }
  return null;
}

/** Window seconds (float, as run.json carries them) to the same integer microseconds. */
export function secondsToMicros(seconds: number): number {
  return Math.round(seconds * US_PER_S);
}
