/**
 * Reading a small JSON file a user points at (a policy, a calibration):
 * unreadable or not JSON is a refusal with the caller's reason code, never a
 * stack trace. The schema check is the caller's.
 */
import { readFile } from 'node:fs/promises';
import { FidelityError, type ReasonCodes } from './errors.js';

/** The parsed value and the file's name for messages (never the whole path twice). */
export async function readJsonFile(file: string, code: keyof typeof ReasonCodes, what: string): Promise<{ value: unknown; label: string }> {
  const label = file.split(/[\\/]/).pop() ?? file;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (cause) {
    throw new FidelityError(code, `cannot read ${what} ${JSON.stringify(file)}: ${(cause as NodeJS.ErrnoException).code ?? (cause as Error).message}`, { cause });
  }
  try {
    return { value: JSON.parse(text), label };
  } catch (cause) {
    throw new FidelityError(code, `${label}: not valid JSON: ${(cause as Error).message}`, { cause });
  }
}
