/**
 * The keys of PairReport.files, shared by the writer of each file and the
 * page that links it. frames_csv is written by the bundle writer; the others
 * by makePairAssets.
 */
export const PAIR_FILE_KEYS = {
  baselineWorst: 'baseline_worst_png',
  candidateWorst: 'candidate_worst_png',
  heatmap: 'ssim_heatmap_png',
  audioDiff: 'audio_diff_wav',
  framesCsv: 'frames_csv',
} as const;

/** File names inside the pair's folder. */
export const PAIR_FILE_NAMES = {
  baseline_worst_png: 'baseline-worst.png',
  candidate_worst_png: 'candidate-worst.png',
  ssim_heatmap_png: 'ssim-heatmap.png',
  audio_diff_wav: 'audio-diff.wav',
} as const;

/** How much of the difference signal the WAV holds: enough to hear, small enough to ship. */
export const AUDIO_DIFF_SECONDS = 5;
