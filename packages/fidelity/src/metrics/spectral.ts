/**
 * `audio.spectral_cosine` (InferenceX's definition, version 2 of this metric): non-overlapping 1024-sample
 * windows, each multiplied by numpy's symmetric `np.hanning(1024)`, w[n] = 0.5 - 0.5*cos(2*pi*n/1023),
 * magnitude of the real FFT (bins 0..512), pooled over all windows as dot(A,B) / sqrt(dot(A,A) *
 * dot(B,B)), clamped to [0, 1].
 *
 * Version 1 used the periodic form (2*pi*n/1024, scipy's `get_window('hann', 1024)`): InferenceX's
 * evaluator windows with `np.hanning`, and the figure carries its name, so it must be its number
 * (values moved by up to about 1e-6; CHANGELOG, docs/metrics.md).
 *
 * The trailing partial window is kept, zero-padded to 1024 samples, so every sample counts.
 * Degenerate cases: 1.0 when both spectra are all zeros, 0.0 when exactly one is; InferenceX's own
 * figure (metrics/inferencex.ts) is null in both, from the same sums.
 */
import { spectralWindowSums } from './fft.js';

/** Samples per spectral window. */
export const SPECTRAL_WINDOW = 1024;

let hann: Float64Array | undefined;

/**
 * numpy's `np.hanning(1024)`, computed the way numpy computes it (n = 1-M, 3-M, ..., M-1;
 * 0.5 + 0.5*cos(pi*n/(M-1))), so the table is its bits wherever the two cosines agree.
 */
export function hannSymmetric(): Float64Array {
  if (!hann) {
    const m = SPECTRAL_WINDOW;
    hann = new Float64Array(m);
    for (let k = 0; k < m; k++) hann[k] = 0.5 + 0.5 * Math.cos((Math.PI * (2 * k + 1 - m)) / (m - 1));
  }
  return hann;
}

/** Our `audio.spectral_cosine` from the pooled sums: 1.0 when both spectra are all zeros, 0.0 when exactly one is, else clamped to [0, 1]. */
export function cosineFromDots(ab: number, aa: number, bb: number): number {
  if (aa === 0 && bb === 0) return 1;
  if (aa === 0 || bb === 0) return 0;
  const c = ab / Math.sqrt(aa * bb);
  return c < 0 ? 0 : c > 1 ? 1 : c;
}

/** The pooled sums of one channel's spectral cosine: sum ma*mb, ma*ma, mb*mb over every bin of every window, and the window count. */
export interface SpectralSums {
  ab: number;
  aa: number;
  bb: number;
  windows: number;
}

/** One channel's spectral cosine, streamed: push both sides' samples in order, then `finish`. */
export class SpectralCosine {
  private readonly a = new Float64Array(SPECTRAL_WINDOW);
  private readonly b = new Float64Array(SPECTRAL_WINDOW);
  private fill = 0;
  private windows = 0;
  /** sum ma*mb, ma*ma, mb*mb over every window's bins, in order. */
  private readonly sums = new Float64Array(3);

  push(a: Float32Array, b: Float32Array): void {
    let i = 0;
    while (i < a.length) {
      const take = Math.min(SPECTRAL_WINDOW - this.fill, a.length - i);
      for (let t = 0; t < take; t++) {
        this.a[this.fill + t] = a[i + t]!;
        this.b[this.fill + t] = b[i + t]!;
      }
      this.fill += take;
      i += take;
      if (this.fill === SPECTRAL_WINDOW) this.window();
    }
  }

  private window(): void {
    // Each side through its own transform: a shared one would leak rounding
    // from a loud side into a silent one, and silence must stay exactly zero.
    spectralWindowSums(this.a, this.b, hannSymmetric(), this.fill, this.sums);
    this.fill = 0;
    this.windows++;
  }

  /** The pooled sums (the trailing partial window included); call once, after the last push. */
  finishSums(): SpectralSums {
    if (this.fill > 0) this.window();
    return { ab: this.sums[0]!, aa: this.sums[1]!, bb: this.sums[2]!, windows: this.windows };
  }

  finish(): number {
    const s = this.finishSums();
    return cosineFromDots(s.ab, s.aa, s.bb);
  }
}
