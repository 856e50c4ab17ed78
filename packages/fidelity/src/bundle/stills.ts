/**
 * One decoded frame as a small lossy WebP for the report. Frames wider than
 * 640 px are scaled down: the stills are for looking, the measurements are
 * in report.json, and a bundle of 20 pairs must stay portable. Worst frames
 * of generated video are noisy, and PNG keeps every bit of that noise
 * (300-500 kB per 640 px still); WebP at quality 80 is 5-15 times smaller and
 * looks the same at that size. The flat-coloured heat map and waveform stay
 * PNG, where lossless is both exact and small.
 */
import { loadSharp } from './sharp.js';
import { invalidParameter } from '../errors.js';
import { STILL_MAX_WIDTH } from './assets-geometry.js';

/** libwebp's quality (0-100) of every still. */
export const STILL_WEBP_QUALITY = 80;
/**
 * libwebp's effort (0-6). Fixed, so the bytes do not depend on a default that
 * may change. 2 takes about half the CPU of libwebp's default 4 for stills a
 * few percent larger (docs/report-pages.md); 6 saves about 2% for 3 times the time.
 */
export const STILL_WEBP_EFFORT = 2;

/** An rgb24 frame as WebP bytes, scaled down to at most `maxWidth` px wide (STILL_MAX_WIDTH). */
export async function stillWebp(frame: { width: number; height: number; rgb: Uint8Array }, maxWidth = STILL_MAX_WIDTH): Promise<Buffer> {
  if (frame.rgb.length !== frame.width * frame.height * 3) {
    throw invalidParameter('frame.rgb', `${frame.width * frame.height * 3} rgb24 bytes`, `${frame.rgb.length} bytes`);
  }
  // To a buffer, written durably by the caller: a failed write keeps its errno (a full disk is OUT_NOT_WRITABLE, not sharp's bare Error).
  const sharp = await loadSharp();
  return sharp(frame.rgb, { raw: { width: frame.width, height: frame.height, channels: 3 } })
    .resize({ width: maxWidth, withoutEnlargement: true })
    .webp({ quality: STILL_WEBP_QUALITY, effort: STILL_WEBP_EFFORT })
    .toBuffer();
}
