/**
 * A picture of the audio of both sides and of their difference, three strips
 * one above the other (baseline, candidate, difference), the first seconds
 * the difference WAV holds. Each column is the min..max of the samples it
 * covers, channels mixed to mono. The difference is drawn times the gain the
 * page states (the normalised WAV's), so a small difference is visible; both
 * sides are drawn at their true level.
 */
import { loadSharp } from './sharp.js';
import { WAVEFORM_STRIP, WAVEFORM_WIDTH } from './waveform-size.js';

const BG = [255, 255, 255] as const;
const MID = [208, 215, 222] as const;
const COLOURS = [
  [9, 105, 218],
  [191, 135, 0],
  [207, 34, 46],
] as const;

function mono(channels: Float32Array[], length: number): Float32Array {
  const out = new Float32Array(length);
  for (const ch of channels) for (let i = 0; i < length; i++) out[i]! += ch[i]! / channels.length;
  return out;
}

/** The three strips as rgb24, WAVEFORM_WIDTH × 3·WAVEFORM_STRIP. */
export function waveformRgb(baseline: Float32Array[], candidate: Float32Array[], diffGain: number, width = WAVEFORM_WIDTH, strip = WAVEFORM_STRIP): Uint8Array {
  const length = Math.min(...baseline.map((c) => c.length), ...candidate.map((c) => c.length));
  const a = mono(baseline, length);
  const b = mono(candidate, length);
  const d = new Float32Array(length);
  for (let i = 0; i < length; i++) d[i] = (b[i]! - a[i]!) * diffGain;
  const height = strip * 3;
  const rgb = new Uint8Array(width * height * 3);
  const set = (x: number, y: number, c: readonly number[]): void => {
    const o = (y * width + x) * 3;
    rgb[o] = c[0]!;
    rgb[o + 1] = c[1]!;
    rgb[o + 2] = c[2]!;
  };
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) set(x, y, BG);
  const half = (strip - 2) / 2;
  [a, b, d].forEach((signal, s) => {
    const top = s * strip;
    const mid = top + Math.round(strip / 2);
    for (let x = 0; x < width; x++) set(x, mid, MID);
    if (length === 0) return;
    for (let x = 0; x < width; x++) {
      const from = Math.floor((x * length) / width);
      const to = Math.max(from + 1, Math.floor(((x + 1) * length) / width));
      let lo = Infinity;
      let hi = -Infinity;
      for (let i = from; i < to && i < length; i++) {
        const v = Math.max(-1, Math.min(1, signal[i]!));
        if (v < lo) lo = v;
        if (v > hi) hi = v;
      }
      if (lo === Infinity) continue;
      const y1 = Math.round(mid - hi * half);
      const y2 = Math.round(mid - lo * half);
      for (let y = Math.max(top, y1); y <= Math.min(top + strip - 1, y2); y++) set(x, y, COLOURS[s]!);
    }
  });
  return rgb;
}

/** The waveform picture (waveformRgb) as PNG bytes. */
export async function waveformPng(baseline: Float32Array[], candidate: Float32Array[], diffGain: number): Promise<Buffer> {
  const rgb = waveformRgb(baseline, candidate, diffGain);
  // To a buffer, written durably by the caller: a failed write keeps its errno (a full disk is OUT_NOT_WRITABLE, not sharp's bare Error).
  const sharp = await loadSharp();
  return sharp(rgb, { raw: { width: WAVEFORM_WIDTH, height: WAVEFORM_STRIP * 3, channels: 3 } })
    .png({ compressionLevel: 9, adaptiveFiltering: true, palette: false })
    .toBuffer();
}
