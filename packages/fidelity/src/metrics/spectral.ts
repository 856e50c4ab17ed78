/**
 * spectral_cosine (InferenceX): non-overlapping 1024-sample windows, each
 * multiplied by a periodic Hann window w[n] = 0.5 - 0.5*cos(2*pi*n/1024)
 * (scipy.signal.get_window('hann', 1024), the DFT-even form spectral analysis
 * uses), magnitude of the real FFT (bins 0..512), pooled over all windows as
 * dot(A,B) / sqrt(dot(A,A) * dot(B,B)), clamped to [0, 1].
 *
 * The trailing partial window is kept, zero-padded to 1024 samples (as
 * scipy.signal.stft's padded=True does), so every sample counts. Degenerate
 * cases: 1.0 when both spectra are all zeros, 0.0 when exactly one is.
 */
import { realMagnitudes } from './fft.js';

export const SPECTRAL_WINDOW = 1024;
const BINS = SPECTRAL_WINDOW / 2 + 1;

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
  private readonly x = new Float64Array(SPECTRAL_WINDOW);
  private readonly ma = new Float64Array(BINS);
  private readonly mb = new Float64Array(BINS);
  private readonly zr = new Float64Array(SPECTRAL_WINDOW / 2);
  private readonly zi = new Float64Array(SPECTRAL_WINDOW / 2);
  private ab = 0;
  private aa = 0;
  private bb = 0;

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
    this.magnitudes(this.a, this.ma);
    this.magnitudes(this.b, this.mb);
    for (let k = 0; k < BINS; k++) {
      const ma = this.ma[k]!;
      const mb = this.mb[k]!;
      this.ab += ma * mb;
      this.aa += ma * ma;
      this.bb += mb * mb;
    }
    this.fill = 0;
  }

  private magnitudes(samples: Float64Array, out: Float64Array): void {
    const w = hannPeriodic();
    for (let n = 0; n < SPECTRAL_WINDOW; n++) this.x[n] = n < this.fill ? samples[n]! * w[n]! : 0;
    realMagnitudes(this.x, out, this.zr, this.zi);
  }

  finish(): number {
    if (this.fill > 0) this.window();
    return cosineFromDots(this.ab, this.aa, this.bb);
  }
}
