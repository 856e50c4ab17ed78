/**
 * This process's CPU seconds so far, children included: user + system of the process and of every
 * child it has waited for (/proc/self/stat fields 14 to 17). Linux only: null elsewhere.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { besideReport } from './file-times.js';

/** Clock ticks per second of /proc's times (USER_HZ: 100 on every Linux this runs on). */
const TICKS = 100;

export function cpuSeconds(): number | null {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields.slice(11, 15).reduce((sum, f) => sum + Number(f), 0) / TICKS;
  } catch {
    return null;
  }
}

/**
 * Appends one CPU line (`{ file }` or `{ shared }`, and the seconds between two {@link cpuSeconds}
 * readings) beside `FIDELITY_TEST_TIMES`'s report, as `<report>.cpu.jsonl`; without that variable,
 * or off Linux, nothing.
 */
export function recordCpu(what: { file: string } | { shared: string }, start: number | null, end: number | null): void {
  const report = process.env.FIDELITY_TEST_TIMES;
  if (!report || start === null || end === null) return;
  appendFileSync(besideReport(report, '.cpu.jsonl'), `${JSON.stringify({ ...what, cpu_s: Math.round((end - start) * 100) / 100 })}\n`);
}
