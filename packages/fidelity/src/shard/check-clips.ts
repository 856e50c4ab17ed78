/**
 * What merge checks of a measured pair's clip analyses beyond their verdicts (docs/scale-out.md,
 * "Trust"): each analysis agrees with itself (its fractions are the frames its runs cover, its
 * runs well formed), with the merging build (a corrupt-frame count is null exactly where this ffmpeg
 * cannot report it) and with its pair (audio analysed where the pair has audio); and one file's
 * sealed bytes carry one analysis in every pair that uses them. Each problem names the field; the
 * caller names the partial and the pair.
 */
import type { ClipAnalysis, ClipAudio, ClipVideo, IndexRange } from '../schemas/clip.js';

const shown = (v: unknown): string => JSON.stringify(v);

/** count / n as the analysis computes it (metrics/clip-video.ts `over`): null over zero. */
const over = (count: number, n: number): number | null => (n > 0 ? count / n : null);

/**
 * Why `runs` are not sorted, disjoint ranges within [0, last] of at least `minSpan` steps; null when
 * they are. Runs of frames (or samples) are maximal, so they never touch; runs of steps
 * (`steps`: frozen runs, whose ranges are of frames) may share no frame but may touch.
 */
function runsProblem(runs: readonly IndexRange[], last: number, minSpan: number, steps = false): string | null {
  let end = -2;
  for (const [a, b] of runs) {
    if (b - a < minSpan || b > last) return `[${a}, ${b}] is not a run within 0..${last}`;
    if (a <= end + (steps ? 0 : 1)) return `[${a}, ${b}] overlaps ${steps ? '' : 'or touches '}the run before it`;
    end = b;
  }
  return null;
}

/** Frames (or steps) the runs cover: `b - a + 1` each, or `b - a` for step runs. */
const covered = (runs: readonly IndexRange[], steps: boolean): number => runs.reduce((sum, [a, b]) => sum + b - a + (steps ? 0 : 1), 0);

/** The video figures against each other: blank and frozen fractions from their runs, the rest bounded by them. */
function videoProblems(at: string, v: ClipVideo, out: string[]): void {
  const n = v.frame_count;
  const steps = n - 1;
  const blankRuns = runsProblem(v.blank_runs, n - 1, 0);
  if (blankRuns) out.push(`${at}.video.blank_runs: ${blankRuns}`);
  // A frozen run [i, j] covers the steps (i, i+1) .. (j-1, j): at least one step.
  const frozenRuns = runsProblem(v.frozen_runs, n - 1, 1, true);
  if (frozenRuns) out.push(`${at}.video.frozen_runs: ${frozenRuns}`);
  if (blankRuns || frozenRuns) return;
  const blank = over(covered(v.blank_runs, false), n);
  if (v.blank_fraction !== blank) out.push(`${at}.video.blank_fraction is ${shown(v.blank_fraction)}, but its blank_runs cover ${shown(blank)} of the frames`);
  // Black and white frames are the blank ones (no frame is both): their counts add up to the runs'.
  const count = (f: number | null): number => Math.round((f ?? 0) * n);
  const black = count(v.black_fraction);
  const white = count(v.white_fraction);
  if (v.black_fraction !== over(black, n) || v.white_fraction !== over(white, n) || black + white !== covered(v.blank_runs, false)) {
    out.push(`${at}.video.black_fraction ${shown(v.black_fraction)} and white_fraction ${shown(v.white_fraction)} are not the ${covered(v.blank_runs, false)} blank frame(s) of ${n}`);
  }
  const frozen = over(covered(v.frozen_runs, true), steps);
  if (v.frozen_fraction !== frozen) out.push(`${at}.video.frozen_fraction is ${shown(v.frozen_fraction)}, but its frozen_runs cover ${shown(frozen)} of the frame steps`);
  // A duplicate (byte-equal) step has MAE 0, so it is frozen too; a mean MAE of 0 makes every step a duplicate.
  if (steps < 1) {
    if (v.duplicate_fraction !== null || v.mean_adjacent_frame_mae !== null) out.push(`${at}.video.duplicate_fraction and mean_adjacent_frame_mae must be null for ${n} frame(s)`);
    return;
  }
  const dup = Math.round((v.duplicate_fraction ?? -1) * steps);
  if (v.duplicate_fraction !== over(dup, steps) || dup > covered(v.frozen_runs, true)) {
    out.push(`${at}.video.duplicate_fraction is ${shown(v.duplicate_fraction)}, which is not a count of duplicate steps within the ${covered(v.frozen_runs, true)} frozen one(s)`);
  }
  const mae = v.mean_adjacent_frame_mae;
  if (mae === null || (mae === 0) !== (dup === steps) || (frozen === 1 && mae > 1 / 1024)) {
    out.push(`${at}.video.mean_adjacent_frame_mae is ${shown(mae)}, which ${shown(v.duplicate_fraction)} duplicate and ${shown(frozen)} frozen steps rule out`);
  }
}

/** The audio figures against each other: one value per channel, silent channels from their RMS, silence fractions at least what the silent runs cover. */
function audioProblems(at: string, a: ClipAudio, out: string[]): void {
  const perChannel = { rms_channels: a.rms_channels, rms_dbfs_channels: a.rms_dbfs_channels, peak_channels: a.peak_channels, dc_offset_channels: a.dc_offset_channels, clipping_fraction_channels: a.clipping_fraction_channels, silence_fraction_channels: a.silence_fraction_channels };
  for (const [key, values] of Object.entries(perChannel)) {
    if (values.length !== a.channel_count) return void out.push(`${at}.audio.${key} has ${values.length} values for ${a.channel_count} channel(s)`);
  }
  const silent = a.rms_channels.flatMap((r, c) => (r !== null && r <= 1e-4 ? [c] : []));
  if (shown(a.silent_channels) !== shown(silent)) out.push(`${at}.audio.silent_channels is ${shown(a.silent_channels)}, but its rms_channels give ${shown(silent)}`);
  const runs = runsProblem(a.silent_runs, a.sample_count - 1, 0);
  if (runs) return void out.push(`${at}.audio.silent_runs: ${runs}`);
  // A silent run is silent on every channel: each channel's silent samples include those it covers.
  const quiet = covered(a.silent_runs, false);
  const low = a.silence_fraction_channels.findIndex((f) => a.sample_count > 0 && !((f ?? 0) * a.sample_count >= quiet - 0.5));
  if (low >= 0) out.push(`${at}.audio.silence_fraction_channels[${low}] is ${shown(a.silence_fraction_channels[low])}, but its silent_runs cover ${quiet} of ${a.sample_count} samples on every channel`);
}

/** What the pair knows that its clips must agree with. */
export interface ClipContext {
  /** Whether the merging ffmpeg reports corrupt frames (media/decoder-log.ts logsCorruptFrames): counts are null exactly where it does not. */
  countsCorrupt: boolean;
  /** The pair's own audio measurement: null, the pair has no audio; undefined, the metric set measures none (nothing to hold the clips to). */
  pairAudio: { sample_rate: number; channels: readonly unknown[] } | null | undefined;
}

/** Why one side's analysis contradicts itself, the merging build or its pair; `at` is `clips.baseline` or `clips.candidate`. */
export function clipAnalysisProblems(at: string, clip: ClipAnalysis, context: ClipContext): string[] {
  const out: string[] = [];
  videoProblems(at, clip.video, out);
  if (clip.audio) audioProblems(at, clip.audio, out);
  const counts: [string, number | null][] = [[`${at}.video.corrupt_frame_count`, clip.video.corrupt_frame_count]];
  if (clip.audio) counts.push([`${at}.audio.corrupt_frame_count`, clip.audio.corrupt_frame_count]);
  for (const [field, count] of counts) {
    if ((count === null) === context.countsCorrupt) {
      out.push(
        count === null
          ? `${field} is null (not counted), but this ffmpeg build reports corrupt frames`
          : `${field} is ${count}, but this ffmpeg build cannot report corrupt frames (it must be null)`,
      );
    }
  }
  const pair = context.pairAudio;
  if (pair !== undefined) {
    if (pair !== null && clip.audio === null) out.push(`${at}.audio is null (no audio stream), but the pair's audio is measured`);
    else if (pair === null && clip.audio !== null) out.push(`${at}.audio is analysed, but the pair has no audio`);
    else if (pair && clip.audio && (clip.audio.sample_rate !== pair.sample_rate || clip.audio.channel_count !== pair.channels.length)) {
      out.push(`${at}.audio is ${clip.audio.channel_count} channel(s) at ${clip.audio.sample_rate} Hz, but the pair's audio is ${pair.channels.length} at ${pair.sample_rate} Hz`);
    }
  }
  return out;
}

/** The first field (a dotted path) where two analyses differ; null when they are the same. */
export function firstDifference(a: unknown, b: unknown, at = ''): string | null {
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    for (const key of keys) {
      const field = Array.isArray(a) ? `${at}[${key}]` : at ? `${at}.${key}` : key;
      const d = firstDifference((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], field);
      if (d !== null) return d;
    }
    return null;
  }
  return Object.is(a, b) ? null : at;
}

/** An analysis as compared between pairs: without `sha256`, which only the report adds. */
export function analysisOf(clip: ClipAnalysis): Omit<ClipAnalysis, 'sha256'> {
  const { sha256: _sha, ...rest } = clip;
  void _sha;
  return rest;
}
