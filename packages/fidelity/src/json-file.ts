/**
 * Reading a small JSON file a user points at (a policy, a calibration):
 * unreadable, not a regular file, too large or not strict JSON is a refusal
 * with the caller's reason code, never a stack trace and never a wait on a
 * FIFO (side-file.ts). The schema check is the caller's.
 */
import { FidelityError, type ReasonCodes } from './errors.js';
import { parseStrictJson, readSideFile } from './side-file.js';

/** The parsed value and the file's name for messages (never the whole path twice). */
export async function readJsonFile(file: string, code: keyof typeof ReasonCodes, what: string, maxBytes: number): Promise<{ value: unknown; label: string }> {
  const label = file.split(/[\\/]/).pop() ?? file;
  const read = await readSideFile(file, maxBytes);
  if (!read.ok) throw new FidelityError(code, `cannot read ${what} ${JSON.stringify(file)}: it ${read.message}`);
  const parsed = parseStrictJson(read.bytes);
  if (!parsed.ok) throw new FidelityError(code, `${label}: ${parsed.message}`);
  return { value: parsed.value, label };
}
