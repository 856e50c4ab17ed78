/**
 * Which per-frame series the pages chart and summarise, now that a metric
 * set may leave any of them out (metrics/registry.ts): the series the
 * SSIM check reads when it is computed, else the Gaussian SSIM, else
 * FFmpeg's All, else the 7x7 RGB SSIM. The stills show that series' worst
 * frame, else PSNR Y's, else frame 0.
 */
import type { SsimSeries, VideoMetrics } from '../schemas/measurement.js';

/** A charted series and the report path prefix of its figures (the pages name it by that path). */
export interface ChartedSeries {
  series: SsimSeries;
  path: string;
}

function candidates(video: VideoMetrics): ChartedSeries[] {
  const list: ChartedSeries[] = [];
  if (video.ssim) list.push({ series: video.ssim, path: 'video.ssim' });
  if (video.ssim_ffmpeg) {
    list.push({ series: video.ssim_ffmpeg.all, path: 'video.ssim_ffmpeg.all' });
    for (const p of ['y', 'u', 'v'] as const) list.push({ series: video.ssim_ffmpeg[p], path: `video.ssim_ffmpeg.${p}` });
  }
  if (video.ssim_rgb7) list.push({ series: video.ssim_rgb7, path: 'video.ssim_rgb7' });
  return list;
}

/** The series to chart: the one `checkMetric` (the SSIM check's figure, policy/checks.ts) reads when computed, else the first computed SSIM. */
export function chartedSeries(video: VideoMetrics, checkMetric?: string): ChartedSeries | null {
  const list = candidates(video);
  const read = checkMetric ? list.find((c) => checkMetric.startsWith(`${c.path}.`)) : undefined;
  return read ?? list.find((c) => c.path !== 'video.ssim_ffmpeg.y' && c.path !== 'video.ssim_ffmpeg.u' && c.path !== 'video.ssim_ffmpeg.v') ?? null;
}

/** The frame the stills and heat map show. */
export function worstFrameOf(video: VideoMetrics): number {
  return chartedSeries(video)?.series.worst_frame ?? video.psnr_y?.worst_frame ?? 0;
}
