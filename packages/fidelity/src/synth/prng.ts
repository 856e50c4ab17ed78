/**
 * A tiny seeded PRNG so that every "random" figure in a synthetic run
 * (latencies, gaps, power readings, timestamp jitter) is the same on every
 * machine and every Node version: Math.random would make fixtures unrepeatable.
 */

/** FNV-1a over the UTF-8 bytes: turns a label like "B200/telemetry" into a 32-bit seed. */
export function seedFrom(label: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(label, 'utf8')) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** mulberry32: integer-only state updates, so the sequence cannot drift across platforms. */
export function createPrng(label: string): () => number {
  let state = seedFrom(label);
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Rounds to a fixed number of decimals so JSON text never shows float noise like 0.30000000000000004. */
export function round(value: number, decimals: number): number {
  const f = 10 ** decimals;
  return Math.round(value * f) / f;
}
