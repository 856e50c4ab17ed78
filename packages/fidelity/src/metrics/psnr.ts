/**
 * Sample differences of 8-bit planes: per-frame PSNR on Y and the pooled
 * rgb24 MAE/PSNR of InferenceX. Sums are exact integers (wasm/kernels.c
 * diff_stats); a pair of identical planes has no PSNR (null), never Infinity.
 */
import { invalidParameter } from '../errors.js';
import { kernels, Layout } from './wasm.js';
import type { Kernels } from './wasm.js';

const PEAK = 255;

export interface DiffStats {
  /** sum |a - b| */
  sad: number;
  /** sum (a - b)^2 */
  sse: number;
}

export function diffStatsAt(k: Kernels, pa: number, pb: number, n: number, out: number): DiffStats {
  k.fn.diff_stats(pa, pb, n, out);
  const view = k.f64(out, 2);
  return { sad: view[0]!, sse: view[1]! };
}

export function diffStats(a: Uint8Array, b: Uint8Array): DiffStats {
  if (!(a instanceof Uint8Array)) throw invalidParameter('a', 'a Uint8Array', a);
  if (!(b instanceof Uint8Array)) throw invalidParameter('b', 'a Uint8Array', b);
  if (a.length !== b.length) throw invalidParameter('b.length', `${a.length} (the length of a)`, b.length);
  const k = kernels();
  const layout = new Layout(k.base);
  const pa = layout.take(a.length);
  const pb = layout.take(b.length);
  const out = layout.take(16);
  k.reserve(layout.size - k.base);
  k.u8(pa, a.length).set(a);
  k.u8(pb, b.length).set(b);
  return diffStatsAt(k, pa, pb, a.length, out);
}

/** 10*log10(255^2 / MSE); null when the samples are identical (MSE 0). */
export function psnrFromSse(sse: number, samples: number): number | null {
  if (sse === 0 || samples === 0) return null;
  return 10 * Math.log10((PEAK * PEAK) / (sse / samples));
}

/** PSNR of one Y plane: null when the planes are identical. */
export function psnrY(a: Uint8Array, b: Uint8Array): number | null {
  return psnrFromSse(diffStats(a, b).sse, a.length);
}

/** InferenceX's pooled figures over every rgb24 sample of every frame. */
export class PooledDiff {
  private sad = 0;
  private sse = 0;
  private samples = 0;

  add(stats: DiffStats, samples: number): void {
    this.sad += stats.sad;
    this.sse += stats.sse;
    this.samples += samples;
  }

  /** sum|x-y| / (samples * 255) */
  mae(): number {
    return this.samples === 0 ? 0 : this.sad / (this.samples * PEAK);
  }

  /** -10*log10(sum(x-y)^2 / (samples * 255^2)); null when every sample is equal. */
  psnrDb(): number | null {
    if (this.sse === 0 || this.samples === 0) return null;
    return -10 * Math.log10(this.sse / (this.samples * PEAK * PEAK));
  }
}
