/**
 * The keys of PairReport.files, shared by the writer of each file and the
 * page that links it. frames_csv is made by bundle/pair-files.ts; the others
 * by bundle/assets.ts.
 */
export const PAIR_FILE_KEYS = {
  baselineWorst: 'baseline_worst_webp',
  candidateWorst: 'candidate_worst_webp',
  heatmap: 'ssim_heatmap_png',
  absDiff: 'abs_diff_webp',
  audioWaveform: 'audio_waveform_png',
  audioDiff: 'audio_diff_flac',
  audioDiffNormalized: 'audio_diff_normalized_flac',
  framesCsv: 'frames_csv',
} as const;

/** File names inside the pair's folder. */
export const PAIR_FILE_NAMES = {
  baseline_worst_webp: 'baseline-worst.webp',
  candidate_worst_webp: 'candidate-worst.webp',
  ssim_heatmap_png: 'ssim-heatmap.png',
  abs_diff_webp: 'abs-diff.webp',
  audio_waveform_png: 'audio-waveform.png',
  audio_diff_flac: 'audio-diff.flac',
  audio_diff_normalized_flac: 'audio-diff-normalized.flac',
} as const;

/**
 * The one still of a pair whose video is bit-identical (every frame equal):
 * both worst-frame keys name this file, and there is no abs-diff picture or
 * heat map (they would be all black and flat).
 */
export const IDENTICAL_STILL_NAME = 'worst.webp';

/**
 * How much of the difference signal the difference file holds: enough to hear, small enough to
 * ship. 16-bit PCM costs 128 kB a second for stereo at 32 kHz: at 5 s one WAV (640 kB) was more
 * than twice a pair's share of the bundle bar (10% over its two MP4s, about 280 kB for 8 s
 * 1344x768 clips); at 2 s it is 256 kB as WAV, and a third to a seventh of that as FLAC.
 */
export const AUDIO_DIFF_SECONDS = 2;

/** Where the normalised difference file puts its peak (dBFS): loud, with a little headroom. */
export const AUDIO_NORMALIZED_PEAK_DBFS = -1;

/**
 * The gain of the normalised difference file, from the report's own figures so
 * the page can state it: the largest |candidate − baseline| over every channel
 * is brought to AUDIO_NORMALIZED_PEAK_DBFS. A pair's one difference file is the
 * normalised one when this is a number, the true-level one when it is null.
 * Null when the channels are identical or the difference is already within
 * 6 dB of that, and for `undefined` (audio not computed by the metric set) or null (no audio).
 */
export function audioNormalizationGain(audio: { channels: Array<{ max_abs_diff: number | null }> } | null | undefined): number | null {
  if (!audio) return null;
  let peak = 0;
  for (const c of audio.channels) if (c.max_abs_diff !== null && c.max_abs_diff > peak) peak = c.max_abs_diff;
  if (!(peak > 0)) return null;
  const gain = 10 ** (AUDIO_NORMALIZED_PEAK_DBFS / 20) / peak;
  return gain >= 2 ? gain : null;
}

/** The absolute-difference still multiplies |candidate − baseline| by this (per RGB channel), so a difference of 32 levels is white. Fixed, so pictures of different pairs compare. */
export const ABS_DIFF_GAIN = 8;

/** |b − a| × gain per byte, clipped at 255: the absolute-difference picture of two rgb24 frames. */
export function absDiffRgb(a: Uint8Array, b: Uint8Array, gain = ABS_DIFF_GAIN): Uint8Array {
  const out = new Uint8Array(Math.min(a.length, b.length));
  for (let i = 0; i < out.length; i++) out[i] = Math.min(255, Math.abs(b[i]! - a[i]!) * gain);
  return out;
}
