/**
 * Per-frame metrics as CSV, for spreadsheets and scripts. Numbers are
 * written as JavaScript prints doubles (shortest round-trip form), so the
 * file is deterministic and loses nothing; an identical frame's PSNR is an
 * empty cell, never "inf".
 */
import type { VideoMetrics } from '../schemas/measurement.js';
import type { PairReport } from '../schemas/report.js';

/** Every per-frame column, each with the series it reads; a metric the set did not compute has no column. */
const COLUMNS: readonly { name: string; metric: string; read: (v: VideoMetrics) => readonly (number | null)[] | undefined }[] = [
  { name: 'ssim', metric: 'ssim', read: (v) => v.ssim?.per_frame },
  { name: 'ssim_ffmpeg_y', metric: 'ssim_ffmpeg', read: (v) => v.ssim_ffmpeg?.y.per_frame },
  { name: 'ssim_ffmpeg_u', metric: 'ssim_ffmpeg', read: (v) => v.ssim_ffmpeg?.u.per_frame },
  { name: 'ssim_ffmpeg_v', metric: 'ssim_ffmpeg', read: (v) => v.ssim_ffmpeg?.v.per_frame },
  { name: 'ssim_ffmpeg_all', metric: 'ssim_ffmpeg', read: (v) => v.ssim_ffmpeg?.all.per_frame },
  { name: 'ssim_rgb7', metric: 'ssim_rgb7', read: (v) => v.ssim_rgb7?.per_frame },
  { name: 'psnr_y', metric: 'psnr_y', read: (v) => v.psnr_y?.per_frame },
];

/** The columns of the computed series, and their per-frame values. */
function seriesOf(video: VideoMetrics): { names: string[]; series: (readonly (number | null)[])[] } {
  const present = COLUMNS.map((c) => ({ name: c.name, values: c.read(video) })).filter((c) => c.values !== undefined);
  return { names: present.map((c) => c.name), series: present.map((c) => c.values!) };
}

function cell(value: number | null | undefined): string {
  return value === null || value === undefined ? '' : String(value);
}

function csvText(value: string): string {
  return /[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

export function pairFramesCsv(video: VideoMetrics): string {
  const { names, series } = seriesOf(video);
  const rows = [['frame', ...names].join(',')];
  for (let f = 0; f < video.frames; f++) rows.push([String(f), ...series.map((s) => cell(s[f]))].join(','));
  return `${rows.join('\n')}\n`;
}
