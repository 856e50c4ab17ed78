/**
 * Counts in sentences. Every output that puts a number before a noun (the terminal, JUnit, the job
 * summary, the pages) picks the noun's form here, so "1 of 1 clip valid" and "2 of 3 clips valid"
 * read right everywhere, and no output writes "clip(s)".
 */

/**
 * The form that agrees with the count `n`: `one` for exactly 1, `many` for any other number (0 as
 * well: "0 clips"). The pages pick their dictionary's `_one` or `_many` sentence with it, so Chinese,
 * which has one form, and English share the rule.
 *
 * @example byCount(1, 'is', 'are') === 'is'
 */
export function byCount<T>(n: number, one: T, many: T): T {
  return n === 1 ? one : many;
}

/**
 * `n` and its English noun in agreement: "1 clip", "0 clips", "3 repetitions". `many` is the
 * plural when it is not `one` with an "s" ("1 match", "2 matches").
 *
 * @example `${valid} of ${counted(analysed, 'clip')} valid` // "1 of 1 clip valid", "3 of 4 clips valid"
 */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${n} ${byCount(n, one, many)}`;
}
