/**
 * lag_estimate_samples: the lag k in [-maxLag, maxLag] that maximises the
 * cross-correlation r[k] = sum_t a[t] * b[t + k] (samples outside the
 * stream count as zero). A positive k means the candidate b is late: b[t] ~
 * a[t - k]. Ties go to the smallest |k|, then to the negative one; a side
 * of all zeros has no peak and gives 0 (the channel's lag_estimate_reason
 * says so). A diagnostic only: no metric is ever re-aligned.
 *
 * Streaming and FFT-based: the baseline is cut into blocks of B samples;
 * each block is correlated with the candidate segment that spans it plus
 * maxLag on either side (one complex FFT of both, one inverse), and the
 * partial correlations add up. Memory is O(B + maxLag), independent of the
 * stream's length; cost is O(n log B).
 */
import { withTransforms } from './fft.js';

function nextPow2(n: number): number {
  let p = 1;
  while (p < n) p *= 2;
  return p;
}

/**
 * Storage of finished estimators' FIFOs, for the next ones in this thread: a pair's four FIFOs grow
 * to a few MB each, and fresh ones would be new memory for every pair to fault in and zero.
 */
const spareStorage: Float64Array[] = [];
const MAX_SPARE_STORAGE = 8;

class Fifo {
  data = spareStorage.pop() ?? new Float64Array(0);
  length = 0;

  push(chunk: Float32Array): void {
    if (this.length + chunk.length > this.data.length) {
      const grown = new Float64Array(Math.max(this.length + chunk.length, 2 * this.data.length));
      grown.set(this.data.subarray(0, this.length));
      this.data = grown;
    }
    // float32 -> float64 is exact, and set() converts without a per-element loop in the JIT's hands.
    this.data.set(chunk, this.length);
    this.length += chunk.length;
  }

  zeros(count: number): void {
    if (this.length + count > this.data.length) this.push(new Float32Array(count));
    else {
      // Reused storage holds an earlier stream's samples.
      this.data.fill(0, this.length, this.length + count);
      this.length += count;
    }
  }

  /** Hands the storage on to the next FIFO of this thread; this one is empty and unused afterwards. */
  release(): void {
    if (spareStorage.length < MAX_SPARE_STORAGE && this.data.length > 0) spareStorage.push(this.data);
    this.data = new Float64Array(0);
    this.length = 0;
  }

  drop(count: number): void {
    this.data.copyWithin(0, count, this.length);
    this.length -= count;
  }
}

export class LagEstimator {
  private readonly maxLag: number;
  private readonly block: number;
  private readonly r: Float64Array;
  /** Both FIFOs start at stream index base - maxLag, base = blocks done * block. */
  private readonly a = new Fifo();
  private readonly b = new Fifo();
  private blocks = 0;
  private total = 0;
  private energyA = 0;
  private energyB = 0;
  private lag: number | null = null;

  constructor(maxLag: number) {
    this.maxLag = maxLag;
    this.block = Math.max(nextPow2(4 * maxLag), 4096) - 2 * maxLag;
    this.r = new Float64Array(2 * maxLag + 1);
    this.a.zeros(maxLag);
    this.b.zeros(maxLag);
  }

  push(a: Float32Array, b: Float32Array): void {
    // Locals in the loop, written back once: the same additions in the same order.
    let energyA = this.energyA;
    let energyB = this.energyB;
    for (let i = 0; i < a.length; i++) {
      energyA += a[i]! * a[i]!;
      energyB += b[i]! * b[i]!;
    }
    this.energyA = energyA;
    this.energyB = energyB;
    this.a.push(a);
    this.b.push(b);
    this.total += a.length;
    const span = this.block + 2 * this.maxLag;
    while (this.a.length >= span) {
      this.correlate(this.block, this.maxLag);
      this.a.drop(this.block);
      this.b.drop(this.block);
      this.blocks++;
    }
  }

  /**
   * Adds sum_t a[t] b[t+k] for the next `count` baseline samples and
   * |k| <= lags (lags <= maxLag: a short stream needs no more than its length).
   */
  private correlate(count: number, lags: number): void {
    const L = this.maxLag;
    const span = count + 2 * lags;
    const size = nextPow2(span);
    const a = this.a.data;
    const b = this.b.data;
    const alen = this.a.length;
    const blen = this.b.length;
    const from = L - lags;
    // In the kernels' memory: z = x + i y (zeroed, then filled), its transform, the cross-spectrum c, its inverse.
    withTransforms(size, 4, ([zr, zi, cr], transform, cross) => {
      zr!.set(a.subarray(L, Math.max(L, Math.min(L + count, alen))));
      zi!.set(b.subarray(from, Math.max(from, Math.min(from + span, blen))));
      transform(0, 1, false);
      // With Z = FFT(x + i y): conj(X) * Y where X, Y are the spectra of the real x and y.
      cross(0, 1, 2, 3);
      transform(2, 3, true);
      // c[m] = sum_n x[n] y[n + m] = r[m - lags]; no wrap-around since size >= count + 2*lags.
      for (let m = 0; m <= 2 * lags; m++) this.r[L - lags + m]! += cr![m]! / size;
    });
  }

  /** The lag; the FIFOs' storage goes on to the next estimator, so a second call gives the first one's answer. */
  finish(): number {
    this.lag ??= this.peak();
    return this.lag;
  }

  private peak(): number {
    const done = this.blocks * this.block;
    const left = this.total - done;
    if (left > 0) {
      // The last block: its candidate segment runs past the end, where the stream is zero.
      const lags = this.blocks === 0 ? Math.min(this.maxLag, this.total - 1) : this.maxLag;
      this.correlate(left, lags);
    }
    this.a.release();
    this.b.release();
    if (this.total === 0 || this.energyA === 0 || this.energyB === 0) return 0;
    const L = this.maxLag;
    let best = 0;
    let value = this.r[L]!;
    for (let d = 1; d <= L; d++) {
      if (this.r[L - d]! > value) {
        value = this.r[L - d]!;
        best = -d;
      }
      if (this.r[L + d]! > value) {
        value = this.r[L + d]!;
        best = d;
      }
    }
    return best;
  }
}
