/** Small builders for nvidia-smi style CSV text; times are integer epoch milliseconds. */

export const T0_MS = 1_764_450_000_000; // 2025/11/29 21:00:00.000 UTC
export const T0 = T0_MS / 1000;
export const HEADER = 'timestamp, index, power.draw [W]';

export function nvTime(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 4)}/${iso.slice(5, 7)}/${iso.slice(8, 10)} ${iso.slice(11, 23)}`;
}

export interface Row {
  ms: number;
  gpu: number;
  /** A number becomes `123.45 W`; a string is written as it is (`[N/A]`, garbage). */
  w: number | string;
}

export function cell(w: number | string): string {
  return typeof w === 'number' ? `${w.toFixed(2)} W` : w;
}

export function csvOf(rows: readonly Row[], header = HEADER): string {
  return `${[header, ...rows.map((r) => `${nvTime(r.ms)}, ${r.gpu}, ${cell(r.w)}`)].join('\n')}\n`;
}

/** Rows every stepMs from fromMs to toMs (inclusive) for each GPU, interleaved as nvidia-smi writes them. */
export function series(gpus: number, fromMs: number, toMs: number, stepMs: number, watts: (ms: number, gpu: number) => number | string): Row[] {
  const rows: Row[] = [];
  for (let ms = fromMs; ms <= toMs; ms += stepMs) for (let gpu = 0; gpu < gpus; gpu++) rows.push({ ms, gpu, w: watts(ms, gpu) });
  return rows;
}

export const window10 = { start_unix: T0, end_unix: T0 + 10 };
