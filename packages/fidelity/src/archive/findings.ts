/**
 * Verification never stops at the first problem: every check writes into one
 * Findings, and the caller decides at the end. Warnings are kept apart so a
 * run can be valid and still say what looked odd.
 */
import type { Problem, ProblemLocation } from '../errors.js';

/** Problems listed per code; the rest of that code are counted in one closing problem ("and K more"). */
export const LISTED_PER_CODE = 20;

export class Findings {
  private readonly listed = { errors: [] as Problem[], warnings: [] as Problem[] };
  private readonly counts = { errors: new Map<string, number>(), warnings: new Map<string, number>() };

  /** Every error, at most LISTED_PER_CODE of one code, then one problem per code saying how many more there were. */
  get errors(): Problem[] {
    return this.view('errors');
  }

  get warnings(): Problem[] {
    return this.view('warnings');
  }

  error(code: string, message: string, where?: ProblemLocation): void {
    this.add('errors', problem(code, message, where));
  }

  warn(code: string, message: string, where?: ProblemLocation): void {
    this.add('warnings', problem(code, message, where));
  }

  private add(kind: 'errors' | 'warnings', p: Problem): void {
    // An archive of 300k links would otherwise make 300k problems (and megabytes of output) of one kind.
    const seen = this.counts[kind].get(p.code) ?? 0;
    this.counts[kind].set(p.code, seen + 1);
    if (seen < LISTED_PER_CODE) this.listed[kind].push(p);
  }

  private view(kind: 'errors' | 'warnings'): Problem[] {
    const more = [...this.counts[kind]].flatMap(([code, count]): Problem[] => {
      const n = count - LISTED_PER_CODE;
      if (n <= 0) return [];
      return [{ code, message: `and ${n} more ${code} problem${n === 1 ? '' : 's'} like the ${LISTED_PER_CODE} above (not listed one by one)` }];
    });
    return more.length ? [...this.listed[kind], ...more] : this.listed[kind];
  }
}

function problem(code: string, message: string, where?: ProblemLocation): Problem {
  if (!where) return { code, message };
  // Undefined keys would show up as `"line": undefined` in inspections and differ from JSON round-trips.
  const clean: ProblemLocation = {};
  if (where.file !== undefined) clean.file = where.file;
  if (where.line !== undefined) clean.line = where.line;
  if (where.path !== undefined) clean.path = where.path;
  return { code, message, where: clean };
}

/** `$.records[2].media`: the JSON path of a zod issue or of a checked field. */
export function jsonPath(path: readonly PropertyKey[]): string {
  let out = '$';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(String(key))) out += `.${String(key)}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

/** Shows untrusted text in a message without letting it run on for pages or break lines. */
export function shown(text: string, max = 120): string {
  const one = JSON.stringify(text.length > max ? `${text.slice(0, max)}...` : text);
  return one;
}
