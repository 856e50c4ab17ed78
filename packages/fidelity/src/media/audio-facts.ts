/**
 * The two facts about a file's audio that only its decoder knows: how many
 * samples per channel it decodes (container durations do not count the
 * encoder priming it skips), and the timestamp of the first decoded frame
 * (after the edit list and that priming). Both are compatibility checks
 * (metrics.md, "Decoding").
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
}

/** The ffmpeg output that reports them: the audio stream (of input `input`) decoded to float, summarised by framecrc on `fd`. */
export function audioFactsOutput(audio: Pick<AudioProbe, 'index'>, fd: number, input = 0): string[] {
  return ['-map', `${input}:${audio.index}`, '-c:a', 'pcm_f32le', '-f', 'framecrc', `pipe:${fd}`];
}

/**
 * Reads a framecrc output as it streams, keeping only sums: a long clip has
 * one line per 1024 samples, and the text is never held whole. Lines are
 * `#tb 0: 1/32000` (the time base) and `0, dts, pts, duration, size, checksum`.
 */
export function readAudioFacts(stream: Readable, channels: number, label: string): Promise<AudioFacts> {
  return new Promise((resolve, reject) => {
    let carry = '';
    let bytes = 0;
    let startPts: number | null | undefined;
    let timeBase: Rational | null = null;
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
      if (fields.length < 6 || fields[0] !== '0' || !Number.isInteger(size) || size < 0) {
        bad = text;
        return;
      }
      bytes += size;
      if (startPts === undefined) {
        const pts = Number(fields[2]);
        startPts = fields[2] !== 'N/A' && Number.isInteger(pts) ? pts : null;
      }
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
      if (bad) return reject(new FidelityError('UNDECODABLE', `${label}: ffmpeg's audio frame summary has a line that cannot be read: ${JSON.stringify(bad)}`));
      const frameBytes = 4 * channels;
      if (bytes % frameBytes !== 0) {
        return reject(new FidelityError('UNDECODABLE', `${label}: decoded audio is ${bytes} bytes, not a whole number of ${channels}-channel samples`));
      }
      if (startPts !== undefined && startPts !== null && !timeBase) {
        return reject(new FidelityError('UNDECODABLE', `${label}: ffmpeg's audio frame summary has no time base`));
      }
      resolve({ samples: bytes / frameBytes, startPts: startPts ?? null, timeBase: timeBase ?? { num: 1, den: 1 } });
    };
    // A pipe destroyed by the child's kill emits 'close' without 'end': the child's exit says why.
    stream.once('end', done);
    stream.once('close', done);
    stream.once('error', reject);
  });
}
