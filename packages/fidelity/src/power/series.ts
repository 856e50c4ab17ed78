/**
 * One GPU's power series over one window (docs/power-and-timing.md, "Board energy"): merge
 * duplicate timestamps, pick the readings that bracket and fill the window,
 * interpolate linearly at both edges, integrate with trapezoids. Times are
 * integer microseconds (see timestamp.ts), power in watts.
 */
import { US_PER_S } from './timestamp.js';

export interface Sample {
  t: number;
  w: number;
}

/** Sorted by time, readings that share a timestamp replaced by their mean. */
export function mergeDuplicates(samples: readonly Sample[]): { samples: Sample[]; merged: number } {
  const sorted = [...samples].sort((a, b) => a.t - b.t);
  const out: Sample[] = [];
  let merged = 0;
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    let sum = 0;
    while (j < sorted.length && sorted[j]!.t === sorted[i]!.t) sum += sorted[j++]!.w;
    out.push({ t: sorted[i]!.t, w: sum / (j - i) });
    merged += j - i - 1;
    i = j;
  }
  return { samples: out, merged };
}

export interface WindowCoverage {
  /** The last reading at or before the start, the readings inside, the first at or after the end (as far as they exist). */
  used: Sample[];
  bracketed: boolean;
  /** Largest step between consecutive used readings, in microseconds; null with fewer than two. */
  maxGapUs: number | null;
}

export function coverWindow(samples: readonly Sample[], startUs: number, endUs: number): WindowCoverage {
  let lo = -1;
  let hi = -1;
  for (let i = 0; i < samples.length; i++) {
    if (samples[i]!.t <= startUs) lo = i;
    if (hi < 0 && samples[i]!.t >= endUs) hi = i;
  }
  const used = samples.length === 0 ? [] : samples.slice(lo >= 0 ? lo : 0, (hi >= 0 ? hi : samples.length - 1) + 1);
  let maxGapUs: number | null = null;
  for (let i = 1; i < used.length; i++) maxGapUs = Math.max(maxGapUs ?? 0, used[i]!.t - used[i - 1]!.t);
  return { used, bracketed: lo >= 0 && hi >= 0, maxGapUs };
}

function interpolate(a: Sample, b: Sample, t: number): number {
  return a.w + ((b.w - a.w) * (t - a.t)) / (b.t - a.t);
}

/** Joules over [startUs, endUs]; `used` must come from a bracketed coverWindow. */
export function trapezoidJoules(used: readonly Sample[], startUs: number, endUs: number): number {
  const first = used[0]!;
  const last = used[used.length - 1]!;
  const startW = first.t === startUs ? first.w : interpolate(first, used[1]!, startUs);
  const endW = last.t === endUs ? last.w : interpolate(used[used.length - 2]!, last, endUs);
  const points: Sample[] = [{ t: startUs, w: startW }, ...used.filter((s) => s.t > startUs && s.t < endUs), { t: endUs, w: endW }];
  let wattMicros = 0;
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1]!;
    const b = points[i]!;
    wattMicros += ((a.w + b.w) / 2) * (b.t - a.t);
  }
  return wattMicros / US_PER_S;
}
