/**
 * Ids as every output shows them. A case id or a slot id comes from a run archive, written by whoever
 * built it: two ids that differ only by a character that shows nothing (a zero-width space, a bidi
 * mark, a no-break space) would read the same on the pages, in the terminal, in the job summary and
 * in JUnit, so each output shows such a character as its escape.
 */

/**
 * What {@link visibleId} escapes: format characters (Unicode Cf: zero-width space and joiners, bidi
 * marks and controls, the BOM, tags), controls (Cc), surrogates without their pair (Cs), line and
 * paragraph separators (Zl, Zp) and every space separator (Zs) but the plain space; and a backslash
 * before `u`, so an escape in the output is always one made here.
 */
const INVISIBLE = /[\p{Cf}\p{Cc}\p{Cs}\p{Zl}\p{Zp}]|[^\P{Zs} ]|\\(?=u)/gu;

function escape(ch: string): string {
  if (ch === '\\') return '\\\\';
  const code = ch.codePointAt(0)!;
  return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * `id` with every character that shows nothing, or moves what follows, written as its escape:
 * `\u200b` (`\u{e0001}` above U+FFFF); every other character as it is. The one form of an id on the
 * pages (English and Chinese), in the terminal, in the job summary and in JUnit.
 *
 * @example visibleId('greeting\u200b-s11') === 'greeting\\u200b-s11'
 */
export function visibleId(id: string): string {
  return id.replace(INVISIBLE, escape);
}
