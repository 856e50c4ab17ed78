/**
 * An independent reading of board energy for the evidence tests, kept apart
 * from src/power on purpose: it knows only the generator's plain nvidia-smi
 * layout (`YYYY/MM/DD HH:MM:SS.fff, <index>, <watts> W`, UTC) and does the
 * arithmetic in integer milliseconds from the window start, so that an error
 * in the library's parser or integrator cannot hide in a shared helper.
 */

export interface OracleGpu {
  joules: number;
  /** Largest step between the readings the integral uses, in seconds. */
  maxGapS: number;
  used: number;
}

export interface OracleEnergy {
  total: number;
  perGpu: Map<number, OracleGpu>;
  /** Data rows read (a last line without a newline is not one). */
  rows: number;
}

/** `2026/11/29 21:40:01.123` (UTC) as epoch milliseconds. */
export function nvidiaSmiMs(text: string): number {
  const m = /^(\d{4})\/(\d{2})\/(\d{2}) (\d{2}):(\d{2}):(\d{2})\.(\d{3})$/.exec(text);
  if (!m) throw new Error(`oracle: unexpected timestamp ${JSON.stringify(text)}`);
  const [, y, mo, d, h, mi, s, ms] = m.map(Number) as number[];
  return Date.UTC(y!, mo! - 1, d!, h!, mi!, s!, ms!);
}

export function oracleEnergy(csv: string, window: { start_unix: number; end_unix: number }): OracleEnergy {
  const lines = csv.split('\n');
  // The writer was cut off: whatever follows the last newline is not a row.
  lines.pop();
  const startMs = Math.round(window.start_unix * 1000);
  const endMs = Math.round(window.end_unix * 1000);
  const byGpu = new Map<number, { t: number; w: number }[]>();
  let rows = 0;
  for (const line of lines.slice(1)) {
    if (line.trim() === '') continue;
    const [ts, index, watts] = line.split(',').map((c) => c.trim());
    rows++;
    const list = byGpu.get(Number(index)) ?? [];
    list.push({ t: nvidiaSmiMs(ts!) - startMs, w: Number.parseFloat(watts!) });
    byGpu.set(Number(index), list);
  }
  const span = endMs - startMs;
  const perGpu = new Map<number, OracleGpu>();
  let total = 0;
  for (const [gpu, samples] of [...byGpu].sort(([a], [b]) => a - b)) {
    samples.sort((a, b) => a.t - b.t);
    const before = samples.filter((s) => s.t <= 0).at(-1);
    const after = samples.find((s) => s.t >= span);
    if (!before || !after) throw new Error(`oracle: GPU ${gpu} does not bracket the window`);
    const used = [before, ...samples.filter((s) => s.t > 0 && s.t < span), after];
    const at = (t: number, a: { t: number; w: number }, b: { t: number; w: number }) => (b.t === a.t ? a.w : a.w + ((b.w - a.w) * (t - a.t)) / (b.t - a.t));
    // Clip the first and last steps to the window by interpolating at its edges.
    const points = used.map((s) => ({ ...s }));
    if (points[0]!.t < 0) points[0] = { t: 0, w: at(0, points[0]!, points[1]!) };
    const n = points.length;
    if (points[n - 1]!.t > span) points[n - 1] = { t: span, w: at(span, points[n - 2]!, points[n - 1]!) };
    let joules = 0;
    for (let i = 1; i < n; i++) joules += ((points[i - 1]!.w + points[i]!.w) / 2) * ((points[i]!.t - points[i - 1]!.t) / 1000);
    let maxGap = 0;
    for (let i = 1; i < used.length; i++) maxGap = Math.max(maxGap, used[i]!.t - used[i - 1]!.t);
    perGpu.set(gpu, { joules, maxGapS: maxGap / 1000, used: used.length });
    total += joules;
  }
  return { total, perGpu, rows };
}

/** |a - b| relative to b: the library and the oracle sum in different orders and units. */
export function relativeError(a: number, b: number): number {
  return Math.abs(a - b) / Math.abs(b);
}
