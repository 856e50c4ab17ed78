/**
 * Number formatting for the pages. toFixed is specified exactly by ECMAScript,
 * unlike toLocaleString (which follows the machine's ICU data), so the same
 * report always gives the same bytes.
 */

export function isNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** A fixed-decimals number, or the given placeholder for null, undefined, NaN or an infinity. */
export function num(value: unknown, digits: number, missing: string): string {
  if (!isNumber(value)) return missing;
  const text = value.toFixed(digits);
  // -0.000 reads as a sign error
  return /^-0\.?0*$/.test(text) ? text.slice(1) : text;
}

/** A figure of unknown scale (timing, evidence): integers as they are, others with up to 4 decimals. */
export function auto(value: number): string {
  if (Number.isInteger(value)) return String(value);
  const abs = Math.abs(value);
  const digits = abs >= 100 ? 1 : abs >= 1 ? 3 : 4;
  return num(value, digits, String(value)).replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');
}

/** First and last characters of a long hash, the full value kept for the title attribute. */
export function shortHash(value: string, keep = 12): string {
  return value.length > keep ? value.slice(0, keep) : value;
}

/**
 * A run and its attempt as every output writes it: `30061277519-2`, as the CLI, the JUnit file and
 * the bundle's `sources/<run_id>-<run_attempt>/` folders do (one notation, never `/2` or "attempt 2").
 */
export function runRef(runId: number, attempt: number): string {
  return `${runId}-${attempt}`;
}

/** A duration given in milliseconds: the one formatter the pages and the CLI share (timing/duration.ts). */
export { formatDuration as duration } from '../timing/duration.js';

/**
 * Energy given in joules, as kJ with three decimals and the integer part
 * grouped by thousands with a narrow no-break space (SI style, the same in
 * every language): 395436.87 J reads "395.437 kJ", 12345678 J "12 345.678 kJ".
 */
export function kilojoules(joules: number): string {
  const [int, frac] = num(joules / 1000, 3, String(joules)).split('.') as [string, string | undefined];
  const sign = int.startsWith('-') ? '-' : '';
  const digits = sign ? int.slice(1) : int;
  const grouped = digits.replace(/\B(?=(\d{3})+(?!\d))/g, '\u202f');
  return `${sign}${grouped}${frac === undefined ? '' : `.${frac}`} kJ`;
}
