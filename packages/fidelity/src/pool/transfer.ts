/**
 * Moves a MeasureOutcome from a worker to the caller without copying its
 * bulk: every `per_frame` series (one number per frame, several series per
 * pair) travels as a Float64Array in the message's transfer list instead of
 * being structured-cloned element by element. null (an identical frame's
 * PSNR) travels as NaN, which no metric produces.
 */
import type { PairCapture } from '../media/frames.js';
import type { MeasureOutcome } from '../schemas/measurement.js';

export interface PackedOutcome {
  /** The outcome with each per_frame array replaced by the index of its buffer. */
  outcome: unknown;
  series: Float64Array[];
}

const SERIES_KEY = 'per_frame';

function isSeries(value: unknown): value is (number | null)[] {
  return Array.isArray(value) && value.every((x) => x === null || typeof x === 'number');
}

function pack(value: unknown, series: Float64Array[]): unknown {
  if (Array.isArray(value)) return value.map((x) => pack(x, series));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if (key === SERIES_KEY && isSeries(child)) {
      const array = new Float64Array(child.length);
      for (let i = 0; i < child.length; i++) array[i] = child[i] ?? Number.NaN;
      out[key] = { $series: series.length };
      series.push(array);
    } else {
      out[key] = pack(child, series);
    }
  }
  return out;
}

function unpack(value: unknown, series: Float64Array[]): unknown {
  if (Array.isArray(value)) return value.map((x) => unpack(x, series));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const ref = key === SERIES_KEY ? (child as { $series?: unknown }).$series : undefined;
    if (typeof ref === 'number') {
      const array = series[ref];
      if (!array) throw new Error(`Missing per-frame series ${ref}`);
      out[key] = Array.from(array, (x) => (Number.isNaN(x) ? null : x));
    } else {
      out[key] = unpack(child, series);
    }
  }
  return out;
}

export function packOutcome(outcome: MeasureOutcome): PackedOutcome {
  const series: Float64Array[] = [];
  return { outcome: pack(outcome, series), series };
}

export function unpackOutcome(packed: PackedOutcome): MeasureOutcome {
  return unpack(packed.outcome, packed.series) as MeasureOutcome;
}

/** The buffers to list in postMessage's transfer list. */
export function transferList(packed: PackedOutcome): ArrayBuffer[] {
  return packed.series.map((s) => s.buffer as ArrayBuffer);
}

/** The buffers of a kept capture (pool/frame-capture.ts), moved with the outcome rather than copied; each is its array's own. */
export function captureTransferList(capture: PairCapture | null): ArrayBuffer[] {
  if (!capture) return [];
  const arrays: ArrayBufferView[] = [];
  if (capture.frame) {
    for (const side of [capture.frame.baseline, capture.frame.candidate]) {
      arrays.push(side.planes);
      if (side.rgb) arrays.push(side.rgb);
    }
  }
  if (capture.audio) arrays.push(...capture.audio.baseline, ...capture.audio.candidate);
  return arrays.map((a) => a.buffer as ArrayBuffer);
}
