/**
 * merge --remeasure: what merge cannot check in a partial (that the values
 * are the ones the media give) it measures again, on a sample of pairs
 * chosen at merge time, and requires identical values. Measuring is
 * deterministic (the same decoder binary, the same integer kernels), so a
 * pair measured twice gives the same outcome exactly; any difference is a
 * forged or broken shard.
 *
 * The sample is drawn with the operating system's cryptographic randomness
 * (crypto.randomInt) when merge runs, so a shard cannot know which of its
 * pairs will be looked at. The bundle records only how many pairs were
 * re-measured, never which, so the same partials give the same bundle bytes.
 */
import { randomInt } from 'node:crypto';
import { invalidParameter } from '../errors.js';
import type { PairRef } from '../comparison/plan.js';
import { MeasureOutcome } from '../schemas/measurement.js';

/** How many pairs of each partial merge measures again: a whole number, or every pair. */
export type RemeasureSpec = number | 'all';

/** The default: one pair per partial. */
export const DEFAULT_REMEASURE = 1;

/** Checks a remeasure value (a whole number of at least 0, or 'all'). */
export function checkRemeasure(value: unknown): RemeasureSpec {
  if (value === undefined) return DEFAULT_REMEASURE;
  if (value === 'all') return 'all';
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  throw invalidParameter('options.remeasure', "a whole number of pairs per partial (0 or more) or 'all'", value);
}

/**
 * `count` of `items` (or all of them), chosen uniformly at random with cryptographic randomness,
 * returned in the order given.
 */
export function sampleAtRandom<T>(items: readonly T[], spec: RemeasureSpec): T[] {
  const order = items.map((_, i) => i);
  const count = spec === 'all' ? order.length : Math.min(spec, order.length);
  // A partial Fisher-Yates shuffle: the first `count` places end up a uniform sample.
  for (let i = 0; i < count; i++) {
    const j = i + randomInt(order.length - i);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order
    .slice(0, count)
    .sort((a, b) => a - b)
    .map((i) => items[i]!);
}

/**
 * `count` of `refs` (or all of them), chosen uniformly at random with
 * cryptographic randomness, returned in index order.
 */
export function chooseAtRandom(refs: readonly PairRef[], spec: RemeasureSpec): PairRef[] {
  return sampleAtRandom([...refs].sort((a, b) => a.index - b.index), spec);
}

function firstDifference(a: unknown, b: unknown, at: string): string | null {
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return `${at} has ${a.length} values; merge measured ${b.length}`;
    for (let i = 0; i < a.length; i++) {
      const d = firstDifference(a[i], b[i], `${at}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    for (const k of keys) {
      const d = firstDifference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], at ? `${at}.${k}` : k);
      if (d) return d;
    }
    return null;
  }
  return a === b ? null : `${at} is ${JSON.stringify(a) ?? 'absent'} in the partial; merge measured ${JSON.stringify(b) ?? 'nothing there'}`;
}

/**
 * Where the shard's outcome differs from merge's own measurement of the
 * pair, first difference first; null when they are the same. Values are
 * compared exactly, as JSON carries them. Of a failure only the code and the
 * side are compared: its message may name a file by the path it had on the
 * machine that measured it.
 */
export function outcomeDifference(partial: MeasureOutcome, merged: MeasureOutcome): string | null {
  const [a, b] = [MeasureOutcome.parse(partial), MeasureOutcome.parse(merged)];
  if (!a.ok || !b.ok) {
    const say = (o: MeasureOutcome): string => (o.ok ? 'a measurement' : `failure ${o.failure.code}${o.failure.side ? ` (${o.failure.side})` : ''}`);
    const same = !a.ok && !b.ok && a.failure.code === b.failure.code && (a.failure.side ?? null) === (b.failure.side ?? null);
    return same ? null : `the partial has ${say(a)}; merge measured ${say(b)}`;
  }
  return firstDifference(JSON.parse(JSON.stringify(a.measurement)), JSON.parse(JSON.stringify(b.measurement)), '');
}
