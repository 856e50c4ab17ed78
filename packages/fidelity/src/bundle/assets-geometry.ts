/**
 * Sizes and colours of the per-pair images, without the image library: the
 * writer (stills.ts, heatmap.ts) and the page (pages/pair.tsx) both need them,
 * and rendering a page must not load a native image module.
 */

export const STILL_MAX_WIDTH = 640;
export const HEATMAP_BLOCK = 8;
/** The ramp's floor: block SSIM at or below it gets the brightest colour. Fixed so that maps of different pairs compare. */
export const HEATMAP_FLOOR = 0.5;

export interface Size {
  width: number;
  height: number;
}

/** What sharp's resize({ width, withoutEnlargement }) gives: the width capped, the height kept in proportion. */
export function stillSize(frame: Size, maxWidth = STILL_MAX_WIDTH): Size {
  if (frame.width <= maxWidth) return { width: frame.width, height: frame.height };
  return { width: maxWidth, height: Math.max(1, Math.round((frame.height * maxWidth) / frame.width)) };
}

/** Whole blocks only: a partial edge block is left out of the map. */
export function heatmapGrid(frame: Size, block = HEATMAP_BLOCK): { cols: number; rows: number } {
  return { cols: Math.floor(frame.width / block), rows: Math.floor(frame.height / block) };
}

/** Each block scaled up by a whole factor, to about the width of the stills beside it. */
export function heatmapScale(frame: Size, cols: number, maxWidth = STILL_MAX_WIDTH): number {
  return Math.max(1, Math.floor(Math.min(maxWidth, frame.width) / Math.max(1, cols)));
}

export function heatmapSize(frame: Size, block = HEATMAP_BLOCK): Size | null {
  const { cols, rows } = heatmapGrid(frame, block);
  if (cols === 0 || rows === 0) return null;
  const scale = heatmapScale(frame, cols);
  return { width: cols * scale, height: rows * scale };
}

/** Dark where the frames agree, bright where they differ (a perceptually ordered ramp, readable in grey print). */
const RAMP: ReadonlyArray<readonly [number, number, number]> = [
  [0, 0, 4],
  [87, 16, 110],
  [188, 55, 84],
  [249, 142, 9],
  [252, 255, 164],
];

/** The ramp colour for one block SSIM value. */
export function rampColour(value: number, floor = HEATMAP_FLOOR): [number, number, number] {
  const t = Math.min(1, Math.max(0, (1 - value) / (1 - floor)));
  const pos = t * (RAMP.length - 1);
  const i = Math.min(RAMP.length - 2, Math.floor(pos));
  const f = pos - i;
  const lo = RAMP[i]!;
  const hi = RAMP[i + 1]!;
  return [0, 1, 2].map((k) => Math.round(lo[k]! + (hi[k]! - lo[k]!) * f)) as [number, number, number];
}

/** The same ramp as a CSS gradient, for the legend beside the picture. */
export function rampCss(): string {
  const stops = RAMP.map(([r, g, b], i) => `rgb(${r},${g},${b}) ${Math.round((i / (RAMP.length - 1)) * 100)}%`);
  return `linear-gradient(to right, ${stops.join(', ')})`;
}
