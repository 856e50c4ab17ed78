/**
 * The difference signal (candidate - baseline) as 16-bit PCM, written as a
 * FLAC file (flac.ts) so that a person can listen to what changed. A pair gets one such file: at its true
 * level when the difference is already loud (near-silence means a small
 * difference, and that is the point), else normalised (assets-keys.ts
 * audioNormalizationGain) so that a small difference is audible, with the
 * gain stated on the page.
 * Differences beyond full scale (possible, since each side spans [-1, 1]) clip.
 */
import { invalidParameter } from '../errors.js';

/** Per channel, the first min(length) samples of (candidate - baseline) × gain, as int16 (clipped at full scale). */
export function differenceSamples(baseline: Float32Array[], candidate: Float32Array[], gain = 1): Int16Array[] {
  if (baseline.length !== candidate.length || baseline.length === 0) {
    throw invalidParameter('channels', 'the same non-zero channel count on both sides', `${baseline.length} and ${candidate.length}`);
  }
  const length = Math.min(...baseline.map((c) => c.length), ...candidate.map((c) => c.length));
  return baseline.map((base, ch) => {
    const cand = candidate[ch]!;
    const out = new Int16Array(length);
    for (let i = 0; i < length; i++) {
      const d = Math.max(-1, Math.min(1, (cand[i]! - base[i]!) * gain));
      out[i] = Math.round(d * 32767);
    }
    return out;
  });
}
