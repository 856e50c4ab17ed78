/**
 * The per-frame SSIM chart as inline SVG: one polyline, the example threshold
 * as a dashed line, the worst frame marked. The y axis starts at 0.9 or just
 * below the lowest value, whichever is lower, so small differences stay
 * visible without hiding large ones.
 */
import { esc } from './html-escape.js';
import { num } from './html-format.js';
import { fill } from './i18n.js';
import type { Messages } from './i18n.js';

const W = 640;
const H = 200;
const LEFT = 46;
const RIGHT = 12;
const TOP = 10;
const BOTTOM = 30;

export function yFloor(values: number[], threshold: number | null): number {
  let lo = 0.9;
  for (const v of values) if (v < lo) lo = v;
  if (threshold !== null && threshold < lo) lo = threshold;
  // A round floor a little under the lowest point, so it does not sit on the axis.
  const floored = Math.floor((lo - 0.005) * 100) / 100;
  return Math.max(Math.min(floored, 0.9), -1);
}

export function ssimChart(perFrame: number[], options: { threshold: number | null; worst: number; id: string; m: Messages; band?: number[] }): string {
  const { threshold, worst, id, m } = options;
  if (perFrame.length === 0) return '';
  const band = options.band?.slice(0, perFrame.length) ?? [];
  const lo = yFloor([...perFrame, ...band], threshold);
  const plotW = W - LEFT - RIGHT;
  const plotH = H - TOP - BOTTOM;
  const last = perFrame.length - 1;
  const x = (i: number): number => LEFT + (last === 0 ? plotW / 2 : (i / last) * plotW);
  const y = (v: number): number => TOP + ((1 - v) / (1 - lo)) * plotH;
  const points = perFrame.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
  const ticks = [lo, (lo + 1) / 2, 1];
  const parts: string[] = [];
  for (const t of ticks) {
    const ty = y(t).toFixed(1);
    parts.push(`<line class="grid" x1="${LEFT}" y1="${ty}" x2="${W - RIGHT}" y2="${ty}"/>`);
    parts.push(`<text x="${LEFT - 4}" y="${ty}" text-anchor="end" dominant-baseline="middle">${num(t, 3, '')}</text>`);
  }
  parts.push(`<line class="axis" x1="${LEFT}" y1="${TOP}" x2="${LEFT}" y2="${H - BOTTOM}"/>`);
  parts.push(`<line class="axis" x1="${LEFT}" y1="${H - BOTTOM}" x2="${W - RIGHT}" y2="${H - BOTTOM}"/>`);
  parts.push(`<text x="${LEFT}" y="${H - BOTTOM + 14}" text-anchor="start">0</text>`);
  parts.push(`<text x="${W - RIGHT}" y="${H - BOTTOM + 14}" text-anchor="end">${last}</text>`);
  parts.push(`<text x="${(LEFT + W - RIGHT) / 2}" y="${H - 4}" text-anchor="middle">${esc(m.frame)}</text>`);
  if (threshold !== null && threshold >= lo && threshold <= 1) {
    const ty = y(threshold).toFixed(1);
    parts.push(`<line class="limit" x1="${LEFT}" y1="${ty}" x2="${W - RIGHT}" y2="${ty}"/>`);
    parts.push(`<text x="${W - RIGHT - 2}" y="${(Number(ty) - 4).toFixed(1)}" text-anchor="end">${esc(fill(m.chart_threshold, { value: num(threshold, 3, '') }))}</text>`);
  }
  if (band.length > 0) {
    // The same-hardware band: from 1 down to the lowest same-hardware SSIM at each frame.
    const edge = band.map((v, i) => `${x(i).toFixed(1)},${y(Math.max(v, lo)).toFixed(1)}`);
    const top = `${x(band.length - 1).toFixed(1)},${y(1).toFixed(1)} ${x(0).toFixed(1)},${y(1).toFixed(1)}`;
    parts.push(`<polygon class="band" points="${edge.join(' ')} ${top}"><title>${esc(m.chart_band)}</title></polygon>`);
  }
  parts.push(`<polyline class="series" points="${points}"/>`);
  const wv = perFrame[worst];
  if (wv !== undefined) {
    const label = fill(m.chart_worst, { frame: worst, value: num(wv, 6, '') });
    parts.push(`<circle class="worst" cx="${x(worst).toFixed(1)}" cy="${y(wv).toFixed(1)}" r="3.5"><title>${esc(label)}</title></circle>`);
  }
  return (
    `<figure class="chart"><svg viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="${id}-t ${id}-d">` +
    `<title id="${id}-t">${esc(m.chart_title)}</title><desc id="${id}-d">${esc(m.chart_desc)}</desc>` +
    parts.join('') +
    `</svg><figcaption>${esc(m.chart_desc)}</figcaption></figure>`
  );
}
