/**
 * This process's CPU seconds so far, children included: user + system of the process and of every
 * child it has waited for (/proc/self/stat fields 14 to 17). Linux only: null elsewhere.
 */
import { readFileSync } from 'node:fs';

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

/** Where per-file and per-entry CPU lines go: beside `FIDELITY_TEST_TIMES`'s report, or nowhere. */
export function cpuLog(): string | null {
  const report = process.env.FIDELITY_TEST_TIMES;
  return report ? report.replace(/(\.json)?$/, '.cpu.jsonl') : null;
}
