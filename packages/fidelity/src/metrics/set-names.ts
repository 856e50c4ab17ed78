/**
 * The metric names and the named sets as plain data, without zod: the CLI's
 * option table quotes them in `--metrics`'s help, and it loads at every start
 * (names.ts re-exports them beside the selection schema that needs zod).
 */

/** Every metric a set may name: the report fields of `video` they fill, and `audio` for all audio metrics. */
export const METRIC_NAMES = ['ssim', 'ssim_ffmpeg', 'ssim_rgb7', 'psnr_y', 'psnr_db', 'mae', 'audio'] as const;
/** One of {@link METRIC_NAMES}. */
export type MetricName = (typeof METRIC_NAMES)[number];

/** The named sets (docs/metrics.md, "Metric sets"), each in {@link METRIC_NAMES} order. */
export const METRIC_SETS = {
  /** What the example policy judges plus the cheap diagnostics. */
  default: ['ssim', 'ssim_ffmpeg', 'psnr_y', 'psnr_db', 'mae', 'audio'],
  /** Everything, with the 7x7 RGB SSIM of scikit-image's defaults. */
  all: ['ssim', 'ssim_ffmpeg', 'ssim_rgb7', 'psnr_y', 'psnr_db', 'mae', 'audio'],
  /** Exactly what FFmpeg's `ssim` and `psnr` filters give (on Y); no rgb24 decode, no audio. */
  ffmpeg: ['ssim_ffmpeg', 'psnr_y'],
  /** InferenceX's pooled RGB PSNR and MAE, and the audio. */
  inferencex: ['psnr_db', 'mae', 'audio'],
} as const satisfies Record<string, readonly MetricName[]>;
/** A name of {@link METRIC_SETS}. */
export type MetricSetName = keyof typeof METRIC_SETS;
