/**
 * Verification never stops at the first problem: every check writes into one
 * Findings, and the caller decides at the end. Warnings are kept apart so a
 * run can be valid and still say what looked odd.
 */
import type { Problem, ProblemLocation } from '../errors.js';

export class Findings {
  readonly errors: Problem[] = [];
  readonly warnings: Problem[] = [];

  error(code: string, message: string, where?: ProblemLocation): void {
    this.errors.push(problem(code, message, where));
  }

  warn(code: string, message: string, where?: ProblemLocation): void {
    this.warnings.push(problem(code, message, where));
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
