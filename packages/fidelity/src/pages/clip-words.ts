/**
 * A clip's defect in words a person reads, made from the clip's own figures in the page's language
 * (docs/report-pages.md, "How the pages word a result"): where it happens as frame numbers and times, and the
 * figure against its limit. Both languages fill the same figures, formatted once here, so the
 * English and the Chinese sentence carry the same numbers. A code without a sentence of its own
 * here keeps the tool's message (reasons.ts), which already names its figures.
 */
import type { ClipAnalysis } from '../schemas/clip.js';
import { SILENCE_LEVEL } from '../metrics/clip-audio.js';
import { FROZEN_MAE } from '../metrics/clip-video.js';
import type { Messages } from './i18n.js';
import { fill } from './i18n.js';
import { reasonText } from './reasons.js';

/** Up to `digits` significant digits, without trailing zeros or an exponent a reader must decode. */
export function figure(x: number, digits = 3): string {
  if (x === 0) return '0';
  const places = Math.max(0, digits - 1 - Math.floor(Math.log10(Math.abs(x))));
  return Number(x.toFixed(Math.min(places, 12))).toString();
}

function blankSentence(clip: ClipAnalysis, m: Messages): string | null {
  const v = clip.video;
  if (v.blank_fraction !== 1) return null;
  const what = v.black_fraction === 1 ? m.clip_black : v.white_fraction === 1 ? m.clip_white : m.clip_black_or_white;
  return fill(m.clip_blank_all, { what, n: v.frame_count });
}

function motionSentence(clip: ClipAnalysis, m: Messages): string | null {
  const v = clip.video;
  if (v.mean_adjacent_frame_mae === null) return null;
  const values = { mae: figure(100 * v.mean_adjacent_frame_mae), limit: figure(100 * FROZEN_MAE) };
  // One frozen run over every frame: the clip is one picture, and the frame numbers say so.
  const [run] = v.frozen_runs;
  if (v.frozen_runs.length === 1 && run && run[0] === 0 && run[1] === v.frame_count - 1) return fill(m.clip_one_picture, { first: run[0], last: run[1], ...values });
  return fill(m.clip_still, values);
}

function silentSentence(clip: ClipAnalysis, m: Messages): string | null {
  const a = clip.audio;
  if (!a || a.channel_count === 0) return null;
  const channels = a.channel_count === 1 ? m.clip_one_channel : a.channel_count === 2 ? m.clip_both_channels : fill(m.clip_every_channel, { n: a.channel_count });
  const rms = a.rms_channels.map((r) => (r === null ? '—' : figure(r))).join(m.clip_list_and);
  return fill(m.clip_silent, { channels, rms, limit: figure(SILENCE_LEVEL) });
}

function gapSentence(clip: ClipAnalysis, m: Messages): string | null {
  const a = clip.audio;
  if (!a || a.max_timestamp_gap_seconds === null || a.max_timestamp_gap_at_sample === null) return null;
  return fill(m.clip_gap, { ms: figure(1000 * a.max_timestamp_gap_seconds), at: figure(a.max_timestamp_gap_at_sample / a.sample_rate), sample: a.max_timestamp_gap_at_sample });
}

/** At most this many runs of frames are named; the rest are counted. */
const RUNS_NAMED = 6;

/**
 * Where a run list happens, as frame numbers: "frame 12", "frames 0–3, 10, 40–47", past
 * `RUNS_NAMED` runs "…, 3 more". Each run `[i, j]` is frames i to j; empty for no runs.
 */
export function framesText(runs: readonly (readonly [number, number])[], m: Messages): string {
  if (runs.length === 0) return '';
  const named = runs.slice(0, RUNS_NAMED).map(([a, b]) => (a === b ? String(a) : `${a}–${b}`));
  if (runs.length > RUNS_NAMED) named.push(fill(m.clip_more_runs, { n: runs.length - RUNS_NAMED }));
  const one = runs.length === 1 && runs[0]![0] === runs[0]![1];
  return fill(one ? m.clip_at_frame : m.clip_at_frames, { list: named.join(', ') });
}

const SENTENCES: Record<string, (clip: ClipAnalysis, m: Messages) => string | null> = {
  CLIP_BLANK: blankSentence,
  CLIP_NO_MOTION: motionSentence,
  CLIP_SILENT: silentSentence,
  CLIP_AUDIO_GAP: gapSentence,
};

/**
 * One clip reason of one clip as prose in the page's language: its own sentence for the defects a
 * person sees or hears (blank, still, silent, an audio jump), else the reason's message as the
 * other reasons show it.
 */
export function clipSentence(code: string, clip: ClipAnalysis, m: Messages): string {
  const own = SENTENCES[code]?.(clip, m);
  if (own) return own;
  const reason = clip.reasons.find((r) => r.code === code);
  return reasonText(code, reason?.message ?? null, m);
}
