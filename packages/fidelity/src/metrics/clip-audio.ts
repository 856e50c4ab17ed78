/**
 * The audio half of one clip's own analysis (docs/metrics.md, "Clip validity"), InferenceX's
 * `analyze_media` figures: every decoded sample as float64 of the float32 PCM, per channel, fed
 * chunk by chunk as the pair's audio decoder delivers them (pool/measure-pair.ts), and every decoded
 * frame's timestamp.
 *
 * Only sums are kept (sum x, sum x^2, sum a*b per channel pair, counts), so memory does not grow
 * with the clip. The identical-channel test is computed from those sums, as InferenceX does:
 * max(0, sum a^2 + sum b^2 - 2 sum ab) / n <= 1e-16.
 */
import { FidelityError } from '../errors.js';
import type { ClipAudio, IndexRange } from '../schemas/clip.js';

/** A sample at most this large in magnitude is silence; a channel whose RMS is at most this is silent. */
export const SILENCE_LEVEL = 1e-4;
/** A sample at least this large in magnitude is clipped (the largest 16-bit PCM value, 1 - 1/32768). */
export const CLIP_LEVEL = 1 - 1 / 32768;
/** Two channels whose mean squared difference is at most this are the same channel. */
export const IDENTICAL_MSE = 1e-16;
/** The shortest silent run reported in `silent_runs`, in seconds (a sine crosses zero every cycle). */
export const SILENT_RUN_MIN_SECONDS = 0.1;

/** One decoded audio frame's timing: PTS (null: none) in time-base ticks, and its samples per channel. */
export interface AudioFrameTime {
  pts: number | null;
  samples: number;
}

/** A stream's decoded frames and their time base (seconds per tick). */
export interface AudioTimes {
  timeBase: number;
  frames: readonly AudioFrameTime[];
}

export interface ClipAudioAccumulator {
  /** The next chunk, one array per channel, all the same length. Read, not kept. */
  push(planes: readonly Float32Array[]): void;
  /** The figures, with the stream's frame timings and the frames its decoder flagged corrupt (null: not reported). */
  finish(times: AudioTimes, corruptFrames: number | null): ClipAudio;
}

/**
 * The timestamp figures: the largest |PTS - previous frame's end| (end = PTS + samples / rate, in
 * seconds) over consecutive frames that both have a PTS, and where it is (the first sample of the
 * frame after it); frames without a PTS, and PTS at or below the last one seen.
 */
export function audioTimeFigures(times: AudioTimes, sampleRate: number): Pick<
  ClipAudio,
  'max_timestamp_gap_seconds' | 'max_timestamp_gap_at_sample' | 'missing_timestamps' | 'nonincreasing_timestamps' | 'time_base_seconds' | 'start_seconds' | 'end_seconds'
> {
  const tb = times.timeBase;
  let gap: number | null = null;
  let gapAt: number | null = null;
  let missing = 0;
  let nonincreasing = 0;
  let last: AudioFrameTime | null = null;
  let first: number | null = null;
  let sample = 0;
  for (const f of times.frames) {
    if (f.pts === null) {
      missing++;
    } else {
      first ??= f.pts * tb;
      if (last && last.pts !== null) {
        if (f.pts <= last.pts) nonincreasing++;
        const d = Math.abs(f.pts * tb - (last.pts * tb + last.samples / sampleRate));
        if (gap === null || d > gap) {
          gap = d;
          gapAt = sample;
        }
      }
      last = f;
    }
    sample += f.samples;
  }
  return {
    max_timestamp_gap_seconds: gap,
    max_timestamp_gap_at_sample: gapAt,
    missing_timestamps: missing,
    nonincreasing_timestamps: nonincreasing,
    time_base_seconds: tb,
    start_seconds: first,
    end_seconds: last && last.pts !== null ? last.pts * tb + last.samples / sampleRate : null,
  };
}

/** The clip audio accumulator of a stream of `channels` channels at `sampleRate`. */
export function createClipAudioAccumulator(sampleRate: number, channels: number): ClipAudioAccumulator {
  const sum = new Float64Array(channels);
  const squares = new Float64Array(channels);
  const peak = new Float64Array(channels);
  const clipped = new Float64Array(channels);
  const quiet = new Float64Array(channels);
  // sum a*b for every channel pair i < j, row by row.
  const cross = new Float64Array((channels * (channels - 1)) / 2);
  let n = 0;
  const silentRuns: IndexRange[] = [];
  const minRun = Math.max(1, Math.ceil(SILENT_RUN_MIN_SECONDS * sampleRate));
  let runStart = -1;
  const endRun = (endExclusive: number): void => {
    if (runStart >= 0 && endExclusive - runStart >= minRun) silentRuns.push([runStart, endExclusive - 1]);
    runStart = -1;
  };

  return {
    push(planes) {
      if (planes.length !== channels) throw new FidelityError('INTERNAL', `${planes.length} channels in a ${channels}-channel clip analysis`);
      const len = planes[0]?.length ?? 0;
      for (let c = 0; c < channels; c++) {
        const p = planes[c]!;
        if (p.length !== len) throw new FidelityError('INTERNAL', 'audio channels of different lengths in a clip analysis');
        let s = sum[c]!;
        let q = squares[c]!;
        let m = peak[c]!;
        let cl = clipped[c]!;
        let qu = quiet[c]!;
        for (let i = 0; i < len; i++) {
          const x = p[i]!;
          s += x;
          q += x * x;
          const ax = Math.abs(x);
          if (ax > m) m = ax;
          if (ax >= CLIP_LEVEL) cl++;
          if (ax <= SILENCE_LEVEL) qu++;
        }
        sum[c] = s;
        squares[c] = q;
        peak[c] = m;
        clipped[c] = cl;
        quiet[c] = qu;
      }
      let k = 0;
      for (let a = 0; a < channels; a++) {
        for (let b = a + 1; b < channels; b++) {
          const pa = planes[a]!;
          const pb = planes[b]!;
          let s = cross[k]!;
          for (let i = 0; i < len; i++) s += pa[i]! * pb[i]!;
          cross[k++] = s;
        }
      }
      for (let i = 0; i < len; i++) {
        let silent = true;
        for (let c = 0; c < channels && silent; c++) silent = Math.abs(planes[c]![i]!) <= SILENCE_LEVEL;
        if (silent && runStart < 0) runStart = n + i;
        if (!silent) endRun(n + i);
      }
      n += len;
    },
    finish(times, corruptFrames) {
      endRun(n);
      const per = <T>(f: (c: number) => T): T[] => Array.from({ length: channels }, (_, c) => f(c));
      const rms = per((c) => (n > 0 ? Math.sqrt(squares[c]! / n) : null));
      const pairs: [number, number][] = [];
      let k = 0;
      for (let a = 0; a < channels; a++) {
        for (let b = a + 1; b < channels; b++) {
          const mse = Math.max(0, squares[a]! + squares[b]! - 2 * cross[k++]!) / n;
          if (n > 0 && mse <= IDENTICAL_MSE) pairs.push([a, b]);
        }
      }
      return {
        sample_rate: sampleRate,
        channel_count: channels,
        sample_count: n,
        rms_channels: rms,
        rms_dbfs_channels: rms.map((r) => (r === null || r === 0 ? null : 20 * Math.log10(r))),
        peak_channels: per((c) => (n > 0 ? peak[c]! : null)),
        dc_offset_channels: per((c) => (n > 0 ? sum[c]! / n : null)),
        clipping_fraction_channels: per((c) => (n > 0 ? clipped[c]! / n : null)),
        silence_fraction_channels: per((c) => (n > 0 ? quiet[c]! / n : null)),
        silent_channels: rms.flatMap((r, c) => (r !== null && r <= SILENCE_LEVEL ? [c] : [])),
        identical_channel_pairs: pairs,
        ...audioTimeFigures(times, sampleRate),
        corrupt_frame_count: corruptFrames,
        silent_runs: silentRuns,
      };
    },
  };
}
