/**
 * Every policy check, declared once (docs/architecture.md, "Adding a metric
 * or a check"). A check's name is spelled here and nowhere else in the
 * library: the policy schema's enum, the judging, the example policy,
 * calibration (the verdict metrics, `--policy-out`), merge's re-check, the CI
 * files and the pages all read these records. The engine is generic, as
 * ESLint's rule modules and libvmaf's feature table are: adding a check is
 * adding one record to {@link CHECKS}, plus its row in docs/report.md.
 *
 * This file imports only the measurement's type, so the schemas can derive
 * the policy's enum from it without a cycle.
 */
import type { KnownReasonCode } from '../errors.js';
import type { PairMeasurement } from '../schemas/measurement.js';

/** The two comparators a policy check can use. */
export type Comparator = '>=' | '<=';

/** A check's words on the pages: its full label (the checks table) and its short name (one-line summaries). */
export interface CheckWords {
  label: string;
  short: string;
}

/** One policy check: what it reads, how it is judged, its example threshold, its calibration and how it is shown. */
export interface CheckDeclaration {
  /** The figures a policy may point the check at (report.json paths relative to the pair): a sibling of the same family, never an unrelated one, since the name fixes what a null means. */
  readonly figures: RegExp;
  /** The stream the check needs: an audio check is `not_applicable` (`no_audio`) when the pair has no audio. */
  readonly stream: 'video' | 'audio';
  /** The example policy's figure, comparator, threshold and where the threshold comes from (docs/report.md, "Policy and outcomes"). */
  readonly example: { readonly metric: string; readonly comparator: Comparator; readonly threshold: number; readonly source: string };
  /** The judged value from the figure read; the figure itself when absent. */
  readonly value?: (figure: number) => number;
  /**
   * What a null figure means for this check, given whether +infinity passes
   * its threshold; absent: nothing was measured, `inconclusive` (`no_value`).
   */
  readonly whenNull?: (measurement: PairMeasurement, infinityPasses: boolean) => { outcome: 'pass' | 'fail'; note: string };
  /** Whether a null figure of this check is +infinity (PSNR of identical frames): every output writes it as ∞. */
  readonly nullIsInfinite?: boolean;
  /**
   * The calibrated metric (calibrate/metrics.ts) that holds this check's
   * judged values when its figure is the example's; null: calibration does
   * not cover the check. Its worse direction is the comparator's: `>=` means
   * lower is worse, `<=` higher.
   */
  readonly calibrated: string | null;
  /** Whether the calibrated metric stands for the check whatever figure it reads (a derived value), rather than the figure itself. */
  readonly calibratedWhateverFigure?: boolean;
  /** Decimals shown on the pages: SSIM and cosines live near 1, where the 5th and 6th decimals are the information; dB figures get 2, ratios 4. */
  readonly digits: number;
  /** Whether the pair's SSIM chart draws this check's threshold, when the check reads the charted series. */
  readonly chartsThreshold?: boolean;
  /** The words of the two report pages. */
  readonly words: { readonly en: CheckWords; readonly zh: CheckWords };
  /** The reason code a failed pair lists when this check fails (docs/reason-codes.md, "Pair reasons"). */
  readonly failCode: KnownReasonCode;
}

const SSIM_SERIES = '(min|mean|p05|max|harmonic_mean)';

/** Every check, in the order the example policy lists them. */
export const CHECKS = {
  min_ssim: {
    figures: new RegExp(`^video\\.(ssim|ssim_rgb7|ssim_ffmpeg\\.(y|u|v|all))\\.${SSIM_SERIES}$`),
    stream: 'video',
    example: { metric: 'video.ssim.min', comparator: '>=', threshold: 0.92, source: "SGLang's video default" },
    calibrated: 'video.ssim.min',
    digits: 6,
    chartsThreshold: true,
    words: { en: { label: 'Minimum per-frame SSIM', short: 'min SSIM' }, zh: { label: '逐帧 SSIM 最小值', short: '最小 SSIM' } },
    failCode: 'CHECK_FAILED_MIN_SSIM',
  },
  video_psnr_db: {
    figures: /^video\.(psnr_db|psnr_y\.(min|mean|p05|max))$/,
    stream: 'video',
    example: { metric: 'video.psnr_db', comparator: '>=', threshold: 30, source: 'InferenceX example policy' },
    // PSNR is null only where the compared frames are identical: an infinite PSNR, above any floor.
    whenNull: (_m, infinityPasses) => ({ outcome: infinityPasses ? 'pass' : 'fail', note: 'identical' }),
    nullIsInfinite: true,
    calibrated: 'video.psnr_db',
    digits: 2,
    words: { en: { label: 'Pooled video PSNR (dB)', short: 'video PSNR (dB)' }, zh: { label: '整体视频 PSNR（dB）', short: '视频 PSNR（dB）' } },
    failCode: 'CHECK_FAILED_VIDEO_PSNR_DB',
  },
  spectral_cosine: {
    figures: /^audio\.spectral_cosine$/,
    stream: 'audio',
    example: { metric: 'audio.spectral_cosine', comparator: '>=', threshold: 0.95, source: 'InferenceX example policy' },
    calibrated: 'audio.spectral_cosine',
    digits: 6,
    words: { en: { label: 'Spectral cosine, worst channel', short: 'audio spectral cosine' }, zh: { label: '频谱余弦相似度（最差声道）', short: '音频频谱余弦' } },
    failCode: 'CHECK_FAILED_SPECTRAL_COSINE',
  },
  rms_ratio_deviation: {
    figures: /^audio\.rms_ratio$/,
    stream: 'audio',
    example: { metric: 'audio.rms_ratio', comparator: '<=', threshold: 0.1, source: 'InferenceX example policy' },
    value: (ratio) => Math.abs(ratio - 1),
    // Only a silent baseline leaves the ratio undefined: the candidate added energy from nothing, an infinite deviation.
    whenNull: (m) => ({ outcome: 'fail', note: m.audio?.channels.find((c) => c.rms_ratio === null)?.rms_ratio_reason ?? 'baseline_silent' }),
    calibrated: 'audio.rms_ratio_deviation',
    calibratedWhateverFigure: true,
    digits: 4,
    words: { en: { label: '|RMS ratio − 1|, worst channel', short: 'audio |RMS ratio − 1|' }, zh: { label: '|RMS 比 − 1|（最差声道）', short: '音频 |RMS 比 − 1|' } },
    failCode: 'CHECK_FAILED_RMS_RATIO_DEVIATION',
  },
} as const satisfies Record<string, CheckDeclaration>;

/** A check's name: a key of {@link CHECKS}. */
export type CheckKey = keyof typeof CHECKS;

/** Every check's name, in declaration order (the policy schema's enum). */
export const CHECK_NAMES = Object.keys(CHECKS) as [CheckKey, ...CheckKey[]];

/** The declaration of a check name; undefined for a name this tool does not know (a report from elsewhere). */
/**
 * How every output writes a check's null figure: `∞` where null means infinite (PSNR of identical
 * frames, the pairs table's and the per-case table's alike), else `fallback` (nothing measured).
 *
 * @example nullFigureText('video_psnr_db', 'unavailable') === '∞'
 */
export function nullFigureText(name: string, fallback: string): string {
  return checkDeclaration(name)?.nullIsInfinite ? '∞' : fallback;
}

export function checkDeclaration(name: string): CheckDeclaration | undefined {
  return Object.hasOwn(CHECKS, name) ? (CHECKS as Record<string, CheckDeclaration>)[name] : undefined;
}

/** The worse direction of a comparator: a `>=` threshold is a floor, so lower is worse. */
export function worseOf(comparator: Comparator): 'lower' | 'higher' {
  return comparator === '>=' ? 'lower' : 'higher';
}

/**
 * The calibrated metric a check on `figure` is judged by in a noise verdict:
 * the check's own for a derived value, else the figure itself (which
 * calibration may or may not cover).
 */
export function calibratedKeyOf(name: string, figure: string): string {
  const d = checkDeclaration(name);
  return d?.calibrated && d.calibratedWhateverFigure ? d.calibrated : figure;
}
