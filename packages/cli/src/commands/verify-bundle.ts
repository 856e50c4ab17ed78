import { counted, verifyBundle } from 'media-fidelity';
import { EXIT, printJson, reportFailure } from '../io.js';
import type { CommandArgs } from './types.js';

/** `fidelity verify-bundle`: what it does once its arguments are parsed; the command table (index.ts) loads this module then. */
export async function runCommand({ positionals, values, io }: CommandArgs): Promise<number> {
  const json = Boolean(values.json);
  if (positionals.length !== 1) {
    const message = 'verify-bundle needs exactly one bundle folder';
    if (json) printJson(io, { ok: false, files: 0, links: 0, errors: [{ code: 'USAGE', message }] });
    else io.err(`error USAGE: ${message}\n`);
    return EXIT.refused;
  }
  try {
    const result = await verifyBundle(positionals[0]!);
    if (json) printJson(io, result);
    else if (result.ok) io.out(`${counted(result.files, 'file')}, ${counted(result.links, 'link')} verified\n`);
    else {
      for (const e of result.errors) io.err(`error ${e.code}: ${e.message}\n`);
      io.err(`bundle NOT intact: ${counted(result.errors.length, 'problem')}; ${counted(result.files, 'file')} hashed, ${counted(result.links, 'link')} checked\n`);
    }
    return result.ok ? EXIT.ok : EXIT.refused;
  } catch (error) {
    return reportFailure(io, error, json);
  }
}
