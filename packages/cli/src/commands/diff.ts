import { diffReports, FidelityError } from 'media-fidelity';
import { EXIT, outputWidth, printJson, reportFailure } from '../io.js';
import { diffText } from './diff-text.js';
import type { CommandArgs } from './types.js';

/** A tolerance option: a number of at least 0 (`1e-9` included); anything else is a usage error. */
export function readTolerance(values: Record<string, unknown>, name: 'tolerance' | 'rel-tolerance'): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const n = typeof raw === 'string' && /^\s*[0-9.]+(e[-+]?\d+)?\s*$/i.test(raw) ? Number(raw) : NaN;
  if (!Number.isFinite(n) || n < 0) throw new FidelityError('USAGE', `Expected a number of at least 0 (e.g. 1e-9) for --${name} but received ${JSON.stringify(raw)}`);
  return n;
}

/** `fidelity diff`: what it does once its arguments are parsed; the command table (index.ts) loads this module then. */
export async function runCommand({ positionals, values, io }: CommandArgs): Promise<number> {
  const json = Boolean(values.json);
  try {
    if (positionals.length !== 2) throw new FidelityError('USAGE', 'diff needs exactly two sides: <old> <new>, each a bundle folder or a report.json file');
    const tolerance = readTolerance(values, 'tolerance');
    const relTolerance = readTolerance(values, 'rel-tolerance');
    const diff = await diffReports(positionals[0]!, positionals[1]!, { ...(tolerance !== undefined ? { tolerance } : {}), ...(relTolerance !== undefined ? { relTolerance } : {}) });
    if (json) printJson(io, { ok: true, ...diff });
    else io.out(diffText(diff, { width: outputWidth(io), all: Boolean(values.all) }));
    return diff.unchanged ? EXIT.ok : EXIT.changed;
  } catch (error) {
    return reportFailure(io, error, json);
  }
}
