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

/**
 * JSON text with every raw DEL (U+007F) written as the escape `\u007f`. JSON.stringify escapes
 * only U+0000 to U+001F; a bundle's JSON files are text without control characters
 * (bundle/file-kinds.ts, checked by verify-bundle), so a DEL that came escaped in a run's ci.json
 * must leave escaped too. In JSON text a DEL can only stand inside a string, where the escape
 * means the same character: the parsed value is unchanged.
 *
 * @example
 * ```ts
 * escapeDel(JSON.stringify({ job: 'a\u007fb' })); // '{"job":"a\\u007fb"}'
 * ```
 */
export function escapeDel(json: string): string {
  return json.includes('\u007f') ? json.replaceAll('\u007f', '\\u007f') : json;
}
