/**
 * The one way a duration is written, by the pages and by the CLI (`fidelity power`): server
 * stages span nanoseconds to seconds, and a fixed unit would print the short ones as "0.0 ms".
 * toFixed is exactly specified by ECMAScript (unlike toLocaleString), so the same value always
 * gives the same text and the same bundle bytes.
 */

/**
 * A duration given in milliseconds, in the unit that keeps its digits: ns below 1 µs, µs below
 * 1 ms, ms below 1 s, else s. Four significant figures at most, so 0.0005 ms reads "500 ns",
 * not "0.001 ms". A value that is not a finite number is written as it is.
 *
 * @example
 * formatDuration(0.0007); // '700 ns'
 * formatDuration(5512); // '5.512 s'
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  const abs = Math.abs(ms);
  const [value, unit] = abs < 0.001 ? [ms * 1e6, 'ns'] : abs < 1 ? [ms * 1e3, 'µs'] : abs < 1000 ? [ms, 'ms'] : [ms / 1000, 's'];
  const a = Math.abs(value);
  const digits = unit === 'ns' ? 0 : a >= 100 ? 1 : a >= 10 ? 2 : 3;
  const text = value.toFixed(digits);
  // -0.000 reads as a sign error
  return `${/^-0\.?0*$/.test(text) ? text.slice(1) : text} ${unit}`;
}
