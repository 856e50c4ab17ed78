/**
 * The spectral cosine (InferenceX's): non-overlapping 1024-sample windows, each
 * multiplied by a periodic Hann window w[n] = 0.5 - 0.5*cos(2*pi*n/1024)
 * (scipy.signal.get_window('hann', 1024), the DFT-even form spectral analysis
 * uses), magnitude of the real FFT (bins 0..512), pooled over all windows as
 * dot(A,B) / sqrt(dot(A,A) * dot(B,B)), clamped to [0, 1].
 *
 * The trailing partial window is kept, zero-padded to 1024 samples (as
 * scipy.signal.stft's padded=True does), so every sample counts. Degenerate
 * cases: 1.0 when both spectra are all zeros, 0.0 when exactly one is.
 */
import { spectralWindowSums } from './fft.js';

export const SPECTRAL_WINDOW = 1024;

let hann: Float64Array | undefined;
export function hannPeriodic(): Float64Array {
  if (!hann) {
    hann = new Float64Array(SPECTRAL_WINDOW);
    for (let n = 0; n < SPECTRAL_WINDOW; n++) hann[n] = 0.5 - 0.5 * Math.cos((2 * Math.PI * n) / SPECTRAL_WINDOW);
  }
  return hann;
}

export function cosineFromDots(ab: number, aa: number, bb: number): number {
  if (aa === 0 && bb === 0) return 1;
  if (aa === 0 || bb === 0) return 0;
  const c = ab / Math.sqrt(aa * bb);
  return c < 0 ? 0 : c > 1 ? 1 : c;
}

export class SpectralCosine {
  private readonly a = new Float64Array(SPECTRAL_WINDOW);
  private readonly b = new Float64Array(SPECTRAL_WINDOW);
  private fill = 0;
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
    spectralWindowSums(this.a, this.b, hannPeriodic(), this.fill, this.sums);
    this.fill = 0;
  }

  finish(): number {
    if (this.fill > 0) this.window();
    return cosineFromDots(this.sums[0]!, this.sums[1]!, this.sums[2]!);
  }
}
