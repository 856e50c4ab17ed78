/**
 * A picture of where two frames differ: SSIM on non-overlapping 8x8 blocks of
 * the Y planes, painted on a colour ramp. It is a visual aid only. The
 * reported `ssim` is the Gaussian-window mean (docs/metrics.md); block SSIM with
 * uniform weights, no overlap and the partial edge blocks left out is a
 * different (coarser) number and must never be quoted as the metric.
 */
import { loadSharp } from './sharp.js';
import { invalidParameter } from '../errors.js';
import { SSIM_C1 as C1, SSIM_C2 as C2 } from '../metrics/ssim-constants.js';
import { HEATMAP_BLOCK, heatmapGrid, heatmapScale, rampColour } from './assets-geometry.js';

export interface BlockSsimMap {
  cols: number;
  rows: number;
  block: number;
  /** Row-major, cols * rows values. */
  values: Float64Array;
}

/**
 * SSIM of each whole block x block tile, population statistics, L = 255.
 * Sums are exact integers (at most 64 * 255^2 per tile), so the variance has
 * no cancellation error.
 */
export function blockSsim(a: Uint8Array, b: Uint8Array, width: number, height: number, block = HEATMAP_BLOCK): BlockSsimMap {
  if (a.length !== width * height || b.length !== width * height) {
    throw invalidParameter('planes', `two ${width}x${height} planes`, `${a.length} and ${b.length} bytes`);
  }
  if (!Number.isInteger(block) || block < 1) throw invalidParameter('block', 'a positive integer', block);
  const { cols, rows } = heatmapGrid({ width, height }, block);
  const values = new Float64Array(cols * rows);
  const n = block * block;
  for (let by = 0; by < rows; by++) {
    for (let bx = 0; bx < cols; bx++) {
      let sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
      for (let y = by * block; y < (by + 1) * block; y++) {
        const row = y * width;
        for (let x = bx * block; x < (bx + 1) * block; x++) {
          const p = a[row + x]!;
          const q = b[row + x]!;
          sx += p; sy += q; sxx += p * p; syy += q * q; sxy += p * q;
        }
      }
      const mx = sx / n;
      const my = sy / n;
      const vx = (n * sxx - sx * sx) / (n * n);
      const vy = (n * syy - sy * sy) / (n * n);
      const cov = (n * sxy - sx * sy) / (n * n);
      values[by * cols + bx] = ((2 * mx * my + C1) * (2 * cov + C2)) / ((mx * mx + my * my + C1) * (vx + vy + C2));
    }
  }
  return { cols, rows, block, values };
}

/** The map as PNG bytes, blocks scaled up by nearest neighbour so they stay crisp. */
export async function heatmapPng(map: BlockSsimMap, frameWidth: number): Promise<Buffer> {
  if (map.cols === 0 || map.rows === 0) throw invalidParameter('map', 'at least one whole block', `${map.cols}x${map.rows}`);
  const rgb = Buffer.alloc(map.cols * map.rows * 3);
  for (let i = 0; i < map.values.length; i++) {
    const [r, g, b] = rampColour(map.values[i]!);
    rgb[i * 3] = r;
    rgb[i * 3 + 1] = g;
    rgb[i * 3 + 2] = b;
  }
  const scale = heatmapScale({ width: frameWidth, height: 0 }, map.cols);
  // To a buffer, written durably by the caller: a failed write keeps its errno (a full disk is OUT_NOT_WRITABLE, not sharp's bare Error).
  const sharp = await loadSharp();
  return sharp(rgb, { raw: { width: map.cols, height: map.rows, channels: 3 } })
    .resize({ width: map.cols * scale, height: map.rows * scale, kernel: 'nearest' })
    .png({ compressionLevel: 9, adaptiveFiltering: true })
    .toBuffer();
}
