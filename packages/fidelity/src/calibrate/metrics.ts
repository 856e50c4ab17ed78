/**
 * The calibrated metrics (docs/calibration.md): one figure per measured pair,
 * with the direction that is worse. Every figure is read from the pair's
 * measurement exactly as report.json carries it, so a calibration and a
 * comparison see the same numbers for the same pair.
 *
 * JSON has no infinity: `null` stands for +infinity in every calibrated
 * metric (PSNR and SNR of identical streams; the rms deviation of a channel
 * whose baseline is silent, an infinite ratio). `undefined` means the pair
 * does not have the metric (no audio on either side, or a metric set that
 * does not compute it): it is left out.
 */
import type { PairMeasurement } from '../schemas/measurement.js';

/** Which side of the scale is worse. */
export type Worse = 'lower' | 'higher';

/** A calibrated figure: a number, null for +infinity, or undefined when the pair does not have it. */
export type NoiseValue = number | null | undefined;

/** The values a calibrated metric can take: a finite range, and whether null (+infinity) is one of them. */
export interface NoiseRange {
  min: number;
  max: number;
  infinite: boolean;
}

/**
 * One calibrated metric: its key (a report.json path where one exists), how
 * to read it from a measurement, the values it can take (a calibration file
 * is checked against them) and the decimals the pages show.
 */
export interface CalibratedMetric {
  key: string;
  worse: Worse;
  read(m: PairMeasurement): NoiseValue;
  range: NoiseRange;
  digits: number;
}

const SIMILARITY: NoiseRange = { min: -1, max: 1, infinite: false };
const NON_NEGATIVE: NoiseRange = { min: 0, max: Number.MAX_VALUE, infinite: true };
const ANY_DB: NoiseRange = { min: -Number.MAX_VALUE, max: Number.MAX_VALUE, infinite: true };

/** The worst channel's SNR; undefined when a channel's baseline is silent (the SNR has no finite or infinite meaning there). */
function worstSnr(m: PairMeasurement): NoiseValue {
  if (!m.audio || m.audio.channels.length === 0) return undefined;
  let worst: number | null = null;
  for (const c of m.audio.channels) {
    if (c.snr_db === null) {
      if (c.snr_db_reason === 'identical' || c.identical) continue;
      return undefined;
    }
    worst = worst === null ? c.snr_db : Math.min(worst, c.snr_db);
  }
  return worst;
}

/** Every calibrated metric, in the order the calibration file and the reports list them. */
export const CALIBRATED_METRICS: readonly CalibratedMetric[] = [
  { key: 'video.ssim.min', worse: 'lower', read: (m) => m.video.ssim?.min, range: SIMILARITY, digits: 6 },
  { key: 'video.ssim.mean', worse: 'lower', read: (m) => m.video.ssim?.mean, range: SIMILARITY, digits: 6 },
  { key: 'video.ssim_ffmpeg.min', worse: 'lower', read: (m) => m.video.ssim_ffmpeg?.all.min, range: SIMILARITY, digits: 6 },
  { key: 'video.psnr_db', worse: 'lower', read: (m) => m.video.psnr_db, range: NON_NEGATIVE, digits: 2 },
  { key: 'audio.spectral_cosine', worse: 'lower', read: (m) => (m.audio ? m.audio.spectral_cosine : undefined), range: SIMILARITY, digits: 6 },
  {
    key: 'audio.rms_ratio_deviation',
    worse: 'higher',
    read: (m) => (m.audio ? (m.audio.rms_ratio === null ? null : Math.abs(m.audio.rms_ratio - 1)) : undefined),
    range: NON_NEGATIVE,
    digits: 4,
  },
  { key: 'audio.snr_db', worse: 'lower', read: worstSnr, range: ANY_DB, digits: 2 },
];

/** The metric of that key, or undefined. */
export function calibratedMetric(key: string): CalibratedMetric | undefined {
  return CALIBRATED_METRICS.find((m) => m.key === key);
}
