/**
 * One audio channel's metrics, streamed: every sample of baseline a and
 * candidate b, in order, in chunks of any length (docs/metrics.md).
 */
import type { AudioChannelMetrics } from '../schemas/measurement.js';
import { LagEstimator } from './lag.js';
import { cosineFromDots, SpectralCosine } from './spectral.js';
import type { SpectralSums } from './spectral.js';

/**
 * A channel whose RMS (over every sample, float64) is at most this is silent for `newly_silent`
 * (InferenceX's definition, version 2; version 1 compared the peak).
 */
export const SILENCE_RMS = 1e-4;

/** A channel's RMS over every sample, float64 (0 for an empty channel). */
export function rmsOf(energy: number, samples: number): number {
  return samples === 0 ? 0 : Math.sqrt(energy / samples);
}

/** The raw sums of one channel that InferenceX's figures are made from ({@link InferencexFigures}). */
export interface AudioChannelSums {
  samples: number;
  sumAbsDiff: number;
  sumSqDiff: number;
  energyA: number;
  energyB: number;
  spectral: SpectralSums;
}
const MOMENT_BLOCK = 4096;

export class AudioChannel {
  private readonly spectral = new SpectralCosine();
  private readonly lag: LagEstimator;
  private n = 0;
  private minA = Infinity;
  private maxA = -Infinity;
  private minB = Infinity;
  private maxB = -Infinity;
  private maxAbsDiff = 0;
  private sumAbsDiff = 0;
  private sumSqDiff = 0;
  private energyA = 0;
  private energyB = 0;
  // Means and co-moments merged chunk by chunk (Chan et al.): no E[x^2] - E[x]^2 cancellation.
  private meanA = 0;
  private meanB = 0;
  private m2A = 0;
  private m2B = 0;
  private cAB = 0;
  private merged = 0;
  private readonly blockA = new Float64Array(MOMENT_BLOCK);
  private readonly blockB = new Float64Array(MOMENT_BLOCK);
  private blockFill = 0;
  private finished: AudioChannelSums | null = null;

  constructor(
    readonly channel: number,
    maxLag: number,
  ) {
    this.lag = new LagEstimator(maxLag);
  }

  push(a: Float32Array, b: Float32Array): void {
    const len = a.length;
    const blockA = this.blockA;
    const blockB = this.blockB;
    // Locals in the hot loop; written back once per chunk.
    let { maxAbsDiff, sumAbsDiff, sumSqDiff, energyA, energyB, minA, maxA, minB, maxB, blockFill } = this;
    for (let i = 0; i < len; i++) {
      const x = a[i]!;
      const y = b[i]!;
      const d = x - y;
      const ad = Math.abs(d);
      if (ad > maxAbsDiff) maxAbsDiff = ad;
      sumAbsDiff += ad;
      sumSqDiff += d * d;
      energyA += x * x;
      energyB += y * y;
      if (x < minA) minA = x;
      if (x > maxA) maxA = x;
      if (y < minB) minB = y;
      if (y > maxB) maxB = y;
      blockA[blockFill] = x;
      blockB[blockFill] = y;
      if (++blockFill === MOMENT_BLOCK) {
        this.mergeBlock(blockFill);
        blockFill = 0;
      }
    }
    this.maxAbsDiff = maxAbsDiff;
    this.sumAbsDiff = sumAbsDiff;
    this.sumSqDiff = sumSqDiff;
    this.energyA = energyA;
    this.energyB = energyB;
    this.minA = minA;
    this.maxA = maxA;
    this.minB = minB;
    this.maxB = maxB;
    this.blockFill = blockFill;
    this.n += len;
    this.spectral.push(a, b);
    this.lag.push(a, b);
  }

  /**
   * Means and co-moments of one block (two passes), merged into the running
   * ones (Chan et al.): stable where E[x^2] - E[x]^2 would cancel. Blocks
   * have a fixed size, so the result does not depend on how the caller
   * chunks the stream.
   */
  private mergeBlock(len: number): void {
    if (len === 0) return;
    const blockA = this.blockA;
    const blockB = this.blockB;
    let sumA = 0;
    let sumB = 0;
    for (let i = 0; i < len; i++) {
      sumA += blockA[i]!;
      sumB += blockB[i]!;
    }
    const meanA = sumA / len;
    const meanB = sumB / len;
    let m2A = 0;
    let m2B = 0;
    let cAB = 0;
    for (let i = 0; i < len; i++) {
      const dx = blockA[i]! - meanA;
      const dy = blockB[i]! - meanB;
      m2A += dx * dx;
      m2B += dy * dy;
      cAB += dx * dy;
    }
    const n = this.merged + len;
    const da = meanA - this.meanA;
    const db = meanB - this.meanB;
    const w = (this.merged * len) / n;
    this.meanA += (da * len) / n;
    this.meanB += (db * len) / n;
    this.m2A += m2A + da * da * w;
    this.m2B += m2B + db * db * w;
    this.cAB += cAB + da * db * w;
    this.merged = n;
  }

  /** 1.0 for two equal constant channels (or none), 0.0 when only one is constant or both are different constants. */
  private pearson(): number {
    const constA = this.n === 0 || this.minA === this.maxA;
    const constB = this.n === 0 || this.minB === this.maxB;
    if (constA && constB) return this.n === 0 || this.minA === this.minB ? 1 : 0;
    if (constA || constB) return 0;
    const den = Math.sqrt(this.m2A) * Math.sqrt(this.m2B);
    if (!(den > 0)) return 0;
    const r = this.cAB / den;
    return r > 1 ? 1 : r < -1 ? -1 : r;
  }

  /** The sums InferenceX's figures are made from; only after finish(). */
  sums(): AudioChannelSums {
    if (!this.finished) throw new Error('AudioChannel.sums() before finish()');
    return this.finished;
  }

  finish(): AudioChannelMetrics {
    this.mergeBlock(this.blockFill);
    this.blockFill = 0;
    const n = this.n;
    const spectral = this.spectral.finishSums();
    this.finished = { samples: n, sumAbsDiff: this.sumAbsDiff, sumSqDiff: this.sumSqDiff, energyA: this.energyA, energyB: this.energyB, spectral };
    const peakA = n === 0 ? 0 : Math.max(-this.minA, this.maxA);
    const peakB = n === 0 ? 0 : Math.max(-this.minB, this.maxB);
    const identical = this.sumSqDiff === 0;
    let snr_db: number | null = null;
    let snr_db_reason: string | null = null;
    if (identical) snr_db_reason = 'identical';
    else if (this.energyA === 0) snr_db_reason = 'baseline_silent';
    else snr_db = 10 * Math.log10(this.energyA / this.sumSqDiff);
    let rms_ratio: number | null;
    let rms_ratio_reason: string | null = null;
    if (this.energyA === 0 && this.energyB === 0) rms_ratio = 1;
    else if (this.energyA === 0) {
      rms_ratio = null;
      rms_ratio_reason = 'baseline_silent';
    } else rms_ratio = Math.sqrt(this.energyB / this.energyA);
    // A side of all zeros has no cross-correlation peak: the lag stays 0 (its documented value) and
    // the reason says it was not estimated. Absent otherwise, so a channel with signal on both sides
    // reads as it always has.
    const lagReason = this.energyA === 0 && this.energyB === 0 ? 'both_silent' : this.energyA === 0 ? 'baseline_silent' : this.energyB === 0 ? 'candidate_silent' : null;
    return {
      channel: this.channel,
      samples: n,
      max_abs_diff: this.maxAbsDiff,
      mae: n === 0 ? 0 : this.sumAbsDiff / n,
      rmse: n === 0 ? 0 : Math.sqrt(this.sumSqDiff / n),
      snr_db,
      snr_db_reason,
      pearson: this.pearson(),
      rms_ratio,
      rms_ratio_reason,
      spectral_cosine: cosineFromDots(spectral.ab, spectral.aa, spectral.bb),
      newly_silent: rmsOf(this.energyA, n) > SILENCE_RMS && rmsOf(this.energyB, n) <= SILENCE_RMS,
      identical,
      baseline_peak: peakA,
      candidate_peak: peakB,
      lag_estimate_samples: this.lag.finish(),
      ...(lagReason ? { lag_estimate_reason: lagReason } : {}),
    };
  }
}
