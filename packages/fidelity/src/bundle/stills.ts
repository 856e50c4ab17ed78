/**
 * One decoded frame as a small PNG for the report. Frames wider than 640 px
 * are scaled down: the stills are for looking, the measurements are in
 * report.json, and a bundle of 20 pairs must stay portable.
 */
import sharp from 'sharp';
import { invalidParameter } from '../errors.js';
import { STILL_MAX_WIDTH } from './assets-geometry.js';

export async function writeStillPng(frame: { width: number; height: number; rgb: Uint8Array }, file: string, maxWidth = STILL_MAX_WIDTH): Promise<void> {
  if (frame.rgb.length !== frame.width * frame.height * 3) {
    throw invalidParameter('frame.rgb', `${frame.width * frame.height * 3} rgb24 bytes`, `${frame.rgb.length} bytes`);
  }
  await sharp(frame.rgb, { raw: { width: frame.width, height: frame.height, channels: 3 } })
    .resize({ width: maxWidth, withoutEnlargement: true })
    .png({ compressionLevel: 9, adaptiveFiltering: true })
    .toFile(file);
}
