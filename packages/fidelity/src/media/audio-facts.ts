/**
 * The two facts about a file's audio that only its decoder knows: how many
 * samples per channel it decodes (container durations do not count the
 * encoder priming it skips), and the timestamp of the first decoded frame
 * (after the edit list and that priming). Both are compatibility checks
 * (docs/media.md, "Decoding").
 *
 * They come from the decode itself rather than from extra ffprobe / ffmpeg
 * runs: the video decoder's ffmpeg also decodes the audio stream into a
 * `framecrc` output (one short text line per decoded frame: its timestamp in
 * the decoder's clock, 1 / sample rate, and its size in bytes of 32-bit
 * float). `-copyts` keeps the timestamps as the file has them, so the first
 * one compares with the video's packet timestamps. The sample count and the
 * start do not depend on the CPU or the decoder's SIMD path, only the float
 * bits do (which this output never reads).
 */
import type { Readable } from 'node:stream';
import { FidelityError } from '../errors.js';
import type { AudioProbe, Rational } from './probe.js';

/** Samples per channel, and the first frame's timestamp in `timeBase` ticks (null when the decoder gave none, or no frame). */
export interface AudioFacts {
  samples: number;
  startPts: number | null;
  timeBase: Rational;
  /** Every decoded frame's PTS (null: none) and samples per channel, in order: the clip analysis's timestamps. */
  frames: { pts: number | null; samples: number }[];
}

/** The ffmpeg output that reports them: the audio stream (of input `input`) decoded to float, summarised by framecrc on `fd`. */
export function audioFactsOutput(audio: Pick<AudioProbe, 'index'>, fd: number, input = 0): string[] {
  return ['-map', `${input}:${audio.index}`, '-c:a', 'pcm_f32le', '-f', 'framecrc', `pipe:${fd}`];
}

/** One line of a framecrc output: the frame's PTS (null: `N/A`), duration and size, in the stream's time base and bytes. */
export interface SummaryFrame {
  pts: number | null;
  duration: number;
  size: number;
}

/** A framecrc output read whole: its time base and one entry per frame (a few numbers each; no frame data). */
export interface FrameSummary {
  timeBase: Rational | null;
  frames: SummaryFrame[];
}

/**
 * Reads a framecrc output as it streams: lines are `#tb 0: 1/32000` (the time base) and
 * `0, dts, pts, duration, size, checksum`. Only the numbers are kept (a long clip has one line per
 * 1024 audio samples, or per video frame), never the text. The clip analysis reads every frame's
 * timestamp from it (docs/metrics.md, "Clip validity").
 */
export function readFrameSummary(stream: Readable, label: string, what: string): Promise<FrameSummary> {
  return new Promise((resolve, reject) => {
    let carry = '';
    let timeBase: Rational | null = null;
    const frames: SummaryFrame[] = [];
    let bad: string | null = null;
    const line = (text: string): void => {
      if (bad || text.length === 0) return;
      if (text.startsWith('#')) {
        const tb = /^#tb 0: (\d+)\/(\d+)$/.exec(text.trim());
        if (tb) timeBase = { num: Number(tb[1]), den: Number(tb[2]) };
        return;
      }
      const fields = text.split(',').map((f) => f.trim());
      const size = Number(fields[4]);
      const duration = Number(fields[3]);
      if (fields.length < 6 || fields[0] !== '0' || !Number.isInteger(size) || size < 0 || !Number.isInteger(duration)) {
        bad = text;
        return;
      }
      const pts = Number(fields[2]);
      frames.push({ pts: fields[2] !== 'N/A' && Number.isInteger(pts) ? pts : null, duration, size });
    };
    stream.setEncoding('latin1');
    stream.on('data', (chunk: string) => {
      const lines = (carry + chunk).split('\n');
      carry = lines.pop() ?? '';
      for (const l of lines) line(l);
    });
    const done = (): void => {
      line(carry);
      carry = '';
      if (bad) return reject(new FidelityError('UNDECODABLE', `${label}: ffmpeg's ${what} frame summary has a line that cannot be read: ${JSON.stringify(bad)}`));
      if (frames.length > 0 && !timeBase) return reject(new FidelityError('UNDECODABLE', `${label}: ffmpeg's ${what} frame summary has no time base`));
      resolve({ timeBase, frames });
    };
    // A pipe destroyed by the child's kill emits 'close' without 'end': the child's exit says why.
    stream.once('end', done);
    stream.once('close', done);
    stream.once('error', reject);
  });
}

/** The audio facts of a framecrc output of 32-bit float audio with `channels` channels. */
export async function readAudioFacts(stream: Readable, channels: number, label: string): Promise<AudioFacts> {
  const summary = await readFrameSummary(stream, label, 'audio');
  const frameBytes = 4 * channels;
  let bytes = 0;
  for (const f of summary.frames) bytes += f.size;
  if (bytes % frameBytes !== 0) {
    throw new FidelityError('UNDECODABLE', `${label}: decoded audio is ${bytes} bytes, not a whole number of ${channels}-channel samples`);
  }
  return {
    samples: bytes / frameBytes,
    startPts: summary.frames[0]?.pts ?? null,
    timeBase: summary.timeBase ?? { num: 1, den: 1 },
    frames: summary.frames.map((f) => ({ pts: f.pts, samples: f.size / frameBytes })),
  };
}
