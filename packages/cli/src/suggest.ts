/**
 * "did you mean": the nearest of the names a command knows to a word it does not. A typo is one or
 * two edits away (a letter dropped, doubled, changed or two swapped: `--fail-on-treshold`,
 * `defualt`); a word further from every name is not a typo, and nothing is suggested for it.
 */

/** Edits between two words: insertions, deletions, substitutions and swaps of adjacent letters (optimal string alignment). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The name nearest to `word` when it is a likely typo of it: at most 2 edits, and fewer than a third
 * of the word's letters (so `--out` is not "corrected" to `--json`). Ties go to the name listed first.
 */
export function closestName(word: string, names: Iterable<string>): string | undefined {
  const limit = Math.min(2, Math.max(1, Math.floor(word.length / 3)));
  let best: { name: string; distance: number } | undefined;
  for (const name of names) {
    const distance = editDistance(word.toLowerCase(), name.toLowerCase());
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/**
 * What `word` was probably meant to be among `names`: the one likely typo ({@link closestName}), or,
 * when `word` is a whole first part of several names (`psnr` of `psnr_y` and `psnr_db`; parts are
 * split at `_` or `-`), each of them. Empty when nothing is near.
 */
export function nearNames(word: string, names: readonly string[]): string[] {
  const typo = closestName(word, names);
  if (typo !== undefined) return [typo];
  const w = word.toLowerCase().replace(/-/g, '_');
  return w === '' ? [] : names.filter((n) => n.toLowerCase().startsWith(`${w}_`) || n.toLowerCase().endsWith(`_${w}`));
}

/** "a", "a or b", "a, b or c". */
export function orList(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)!}`;
}
