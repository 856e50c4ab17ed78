/**
 * The optional telemetry of a run: board power as `nvidia-smi
 * --query-gpu=timestamp,index,power.draw --format=csv -l 1` writes it (UTC
 * timestamps, one row per GPU per second, a few milliseconds apart), and the
 * server's request events. Samples start before and end after the measurement
 * window, so a well-behaved run brackets it; a gap, when asked for, removes
 * samples from the middle of the window.
 */
import { createPrng, round } from './prng.js';
import type { SiteIdentity } from './sites.js';
import type { Timeline } from './timeline.js';

export interface PowerOptions {
  gpus: number;
  /** Seconds without any sample, placed in the middle of the window; 0 for none. */
  gapSeconds: number;
}

/** `2026/11/29 21:40:01.123`: nvidia-smi's layout, in UTC. */
export function nvidiaSmiTimestamp(unix: number): string {
  const d = new Date(Math.round(unix * 1000));
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${d.getUTCFullYear()}/${p(d.getUTCMonth() + 1)}/${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}.${p(d.getUTCMilliseconds(), 3)}`;
}

export function gpuMetricsCsv(site: SiteIdentity, timeline: Timeline, options: PowerOptions): string {
  const rand = createPrng(`${site.site}/power`);
  const { start_unix: start, end_unix: end } = timeline.measurementWindow;
  const first = Math.floor(start) - 5;
  const last = Math.ceil(end) + 5;
  const gapFrom = options.gapSeconds > 0 ? Math.floor((start + end) / 2) : Number.POSITIVE_INFINITY;
  const gapTo = gapFrom + options.gapSeconds - 1;
  const isBusy = (t: number) => timeline.busy.some((b) => t >= b.start && t <= b.end);
  // The logger's phase within each second is fixed for a run, as with a real `-l 1` loop.
  const phase = 0.1 + 0.2 * rand();
  const lines = ['timestamp, index, power.draw [W]'];
  for (let second = first; second <= last; second++) {
    if (second >= gapFrom && second <= gapTo) continue;
    for (let gpu = 0; gpu < options.gpus; gpu++) {
      const at = second + phase + gpu * 0.002 + 0.004 * rand();
      // The second GPU of a TP2 pair draws a little less: it holds no sampler/VAE work.
      const scale = 1 - 0.04 * gpu;
      const watts = isBusy(at) ? site.busyWatts * scale * (0.94 + 0.1 * rand()) : site.idleWatts * (0.97 + 0.06 * rand());
      lines.push(`${nvidiaSmiTimestamp(at)}, ${gpu}, ${round(watts, 2).toFixed(2)} W`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** One JSON object per server event, in time order, correlated to records by request_id (= slot_id). */
export function serverTimingJsonl(timeline: Timeline): string {
  // Array.prototype.sort is stable: events at the same nanosecond keep their request order.
  const events = [...timeline.serverEvents].sort((a, b) => a.t_ns - b.t_ns);
  return events.map((e) => `${JSON.stringify({ clock_id: e.clock_id, t_ns: e.t_ns, event: e.event, request_id: e.request_id })}\n`).join('');
}
