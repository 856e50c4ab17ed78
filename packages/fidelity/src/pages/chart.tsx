/**
 * The per-frame SSIM chart as inline SVG, built from numbers as elements
 * like the rest of the page: one polyline, the example threshold
 * as a dashed line, the worst frame marked. The y axis starts at 0.9 or just
 * below the lowest value, whichever is lower, so small differences stay
 * visible without hiding large ones.
 */
import type { VNode } from 'preact';
import { num } from './format.js';
import { fill } from './i18n.js';
import type { Messages } from './i18n.js';

const W = 640;
const H = 220;
const LEFT = 50;
const RIGHT = 46;
const TOP = 10;
const BOTTOM = 40;

export function yFloor(values: number[], threshold: number | null): number {
  let lo = 0.9;
  for (const v of values) if (v < lo) lo = v;
  if (threshold !== null && threshold < lo) lo = threshold;
  // A round floor a little under the lowest point, so it does not sit on the axis.
  const floored = Math.floor((lo - 0.005) * 100) / 100;
  return Math.max(Math.min(floored, 0.9), -1);
}

/** About `count` round frame numbers from 0 to last, for the x ticks. */
function frameTicks(last: number, count = 6): number[] {
  if (last <= 0) return [0];
  const raw = last / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((k) => k * mag).find((k) => k >= raw) ?? 10 * mag;
  const out: number[] = [];
  for (let t = 0; t <= last; t += Math.max(1, Math.round(step))) out.push(t);
  if (out[out.length - 1] !== last && last - out[out.length - 1]! > step / 2) out.push(last);
  return out;
}

/** The PSNR axis: 10 dB steps around the finite values; identical frames (null) are drawn at the top. */
function psnrRange(values: Array<number | null>): [number, number] | null {
  const finite = values.filter((v): v is number => v !== null && Number.isFinite(v));
  if (finite.length === 0) return null;
  const lo = Math.floor(Math.min(...finite) / 10) * 10;
  const hi = Math.max(lo + 10, Math.ceil(Math.max(...finite) / 10) * 10);
  return [lo, hi];
}

export interface ChartOptions {
  threshold: number | null;
  worst: number;
  id: string;
  m: Messages;
  band?: number[];
  psnr?: Array<number | null>;
}

export function ssimChart(perFrame: number[], options: ChartOptions): VNode | null {
  const { threshold, worst, id, m } = options;
  if (perFrame.length === 0) return null;
  const band = options.band?.slice(0, perFrame.length) ?? [];
  const lo = yFloor([...perFrame, ...band], threshold);
  const plotW = W - LEFT - RIGHT;
  const plotH = H - TOP - BOTTOM;
  const last = perFrame.length - 1;
  const x = (i: number): number => LEFT + (last === 0 ? plotW / 2 : (i / last) * plotW);
  const y = (v: number): number => TOP + ((1 - v) / (1 - lo)) * plotH;
  const points = perFrame.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
  // Round steps down from 1, at most about six of them.
  const step = [0.005, 0.01, 0.02, 0.025, 0.05, 0.1, 0.2, 0.25, 0.5].find((k) => (1 - lo) / k <= 6) ?? 0.5;
  const ticks: number[] = [];
  for (let k = 0; 1 - k * step >= lo - 1e-9; k++) ticks.push(1 - k * step);
  const tickDigits = step < 0.01 ? 3 : 2;
  const parts: VNode[] = [];
  for (const t of ticks) {
    const ty = y(t).toFixed(1);
    parts.push(<line class="grid" x1={LEFT} y1={ty} x2={W - RIGHT} y2={ty} />);
    parts.push(
      <text class="ssim-t" x={LEFT - 4} y={ty} text-anchor="end" dominant-baseline="middle">
        {num(t, tickDigits, '')}
      </text>,
    );
  }
  parts.push(<line class="axis" x1={LEFT} y1={TOP} x2={LEFT} y2={H - BOTTOM} />);
  parts.push(<line class="axis" x1={LEFT} y1={H - BOTTOM} x2={W - RIGHT} y2={H - BOTTOM} />);
  for (const t of frameTicks(last)) {
    const tx = x(t).toFixed(1);
    parts.push(<line class="axis" x1={tx} y1={H - BOTTOM} x2={tx} y2={H - BOTTOM + 4} />);
    parts.push(
      <text x={tx} y={H - BOTTOM + 15} text-anchor="middle">
        {t}
      </text>,
    );
  }
  parts.push(
    <text class="title" x={(LEFT + W - RIGHT) / 2} y={H - 6} text-anchor="middle">
      {m.frame}
    </text>,
  );
  parts.push(
    <text class="title ssim-t" transform="rotate(-90)" x={-(TOP + plotH / 2)} y="12" text-anchor="middle">
      SSIM
    </text>,
  );
  const pr = options.psnr ? psnrRange(options.psnr) : null;
  if (pr && options.psnr) {
    const [plo, phi] = pr;
    const yp = (v: number): number => TOP + ((phi - Math.min(v, phi)) / (phi - plo)) * plotH;
    for (const t of [plo, (plo + phi) / 2, phi]) {
      parts.push(
        <text class="psnr-t" x={W - RIGHT + 4} y={yp(t).toFixed(1)} text-anchor="start" dominant-baseline="middle">
          {num(t, 0, '')}
        </text>,
      );
    }
    parts.push(
      <text class="title psnr-t" transform="rotate(90)" x={TOP + plotH / 2} y={-(W - 8)} text-anchor="middle">
        {m.chart_psnr_axis}
      </text>,
    );
    const pts = options.psnr.slice(0, perFrame.length).map((v, i) => `${x(i).toFixed(1)},${yp(v === null ? phi : v).toFixed(1)}`);
    parts.push(
      <polyline class="series2" points={pts.join(' ')}>
        <title>{m.chart_psnr}</title>
      </polyline>,
    );
  }
  // The threshold as the policy states it and the checks table shows it ("0.92", never "0.920").
  const thresholdText = threshold === null ? '' : String(threshold);
  if (threshold !== null && threshold >= lo && threshold <= 1) {
    const ty = y(threshold).toFixed(1);
    parts.push(<line class="limit" x1={LEFT} y1={ty} x2={W - RIGHT} y2={ty} />);
    parts.push(
      <text x={W - RIGHT - 2} y={(Number(ty) - 4).toFixed(1)} text-anchor="end">
        {fill(m.chart_threshold, { value: thresholdText })}
      </text>,
    );
  }
  if (band.length > 0) {
    // The same-hardware band: from 1 down to the lowest same-hardware SSIM at each frame.
    const edge = band.map((v, i) => `${x(i).toFixed(1)},${y(Math.max(v, lo)).toFixed(1)}`);
    const top = `${x(band.length - 1).toFixed(1)},${y(1).toFixed(1)} ${x(0).toFixed(1)},${y(1).toFixed(1)}`;
    parts.push(
      <polygon class="band" points={`${edge.join(' ')} ${top}`}>
        <title>{m.chart_band}</title>
      </polygon>,
    );
  }
  parts.push(<polyline class="series" points={points} />);
  const wv = perFrame[worst];
  if (wv !== undefined) {
    const label = fill(m.chart_worst, { frame: worst, value: num(wv, 6, '') });
    parts.push(<line class="worst-line" x1={x(worst).toFixed(1)} y1={TOP} x2={x(worst).toFixed(1)} y2={H - BOTTOM} />);
    parts.push(
      <circle class="worst" cx={x(worst).toFixed(1)} cy={y(wv).toFixed(1)} r="4">
        <title>{label}</title>
      </circle>,
    );
  }
  // Where the videos are: moved by the page script, hidden until then.
  parts.push(<line class="cursor" visibility="hidden" x1={LEFT} y1={TOP} x2={LEFT} y2={H - BOTTOM} />);
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${W} ${H}`} data-x0={LEFT} data-x1={W - RIGHT} role="img" aria-labelledby={`${id}-t ${id}-d`}>
        <title id={`${id}-t`}>{m.chart_title}</title>
        <desc id={`${id}-d`}>{m.chart_desc}</desc>
        {parts}
      </svg>
      <figcaption>
        <span class="legend-row">
          <span class="key">
            <i class="k-ssim"></i>
            {m.chart_ssim}
          </span>
          {pr ? (
            <span class="key">
              <i class="k-psnr"></i>
              {m.chart_psnr}
            </span>
          ) : null}
          {threshold !== null ? (
            <span class="key">
              <i class="k-limit"></i>
              {fill(m.chart_threshold, { value: thresholdText })}
            </span>
          ) : null}
          <span class="key">
            <i class="k-worst"></i>
            {fill(m.chart_worst, { frame: worst, value: num(wv, 6, '') })}
          </span>
          {band.length ? (
            <span class="key">
              <i class="k-band"></i>
              {m.chart_band}
            </span>
          ) : null}
        </span>{' '}
        {m.chart_desc}
      </figcaption>
    </figure>
  );
}
