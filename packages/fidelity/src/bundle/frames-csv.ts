/**
 * Per-frame metrics as CSV, for spreadsheets and scripts. Numbers are
 * written as JavaScript prints doubles (shortest round-trip form), so the
 * file is deterministic and loses nothing; an identical frame's PSNR is an
 * empty cell, never "inf".
 */
import type { VideoMetrics } from '../schemas/measurement.js';
import type { PairReport } from '../schemas/report.js';

const METRIC_COLUMNS = ['ssim', 'ssim_ffmpeg_y', 'ssim_ffmpeg_u', 'ssim_ffmpeg_v', 'ssim_ffmpeg_all', 'ssim_rgb7', 'psnr_y'] as const;

function cell(value: number | null | undefined): string {
  return value === null || value === undefined ? '' : String(value);
}

function csvText(value: string): string {
  return /[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

function frameCells(video: VideoMetrics, frame: number): string[] {
  return [
    cell(video.ssim.per_frame[frame]),
    cell(video.ssim_ffmpeg.y.per_frame[frame]),
    cell(video.ssim_ffmpeg.u.per_frame[frame]),
    cell(video.ssim_ffmpeg.v.per_frame[frame]),
    cell(video.ssim_ffmpeg.all.per_frame[frame]),
    cell(video.ssim_rgb7.per_frame[frame]),
    cell(video.psnr_y.per_frame[frame]),
  ];
}

export function pairFramesCsv(video: VideoMetrics): string {
  const rows = [['frame', ...METRIC_COLUMNS].join(',')];
  for (let f = 0; f < video.ssim.per_frame.length; f++) rows.push([String(f), ...frameCells(video, f)].join(','));
  return `${rows.join('\n')}\n`;
}

/** Every measured frame of every pair of one comparison, in pair order. */
export function comparisonFramesCsv(pairs: readonly PairReport[]): string {
  const rows = [['slot_id', 'case_id', 'repetition', 'frame', ...METRIC_COLUMNS].join(',')];
  for (const pair of pairs) {
    if (!pair.video) continue;
    for (let f = 0; f < pair.video.ssim.per_frame.length; f++) {
      rows.push([pair.slot_id, csvText(pair.case_id), String(pair.repetition), String(f), ...frameCells(pair.video, f)].join(','));
    }
  }
  return `${rows.join('\n')}\n`;
}
