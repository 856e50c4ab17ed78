/**
 * addressesIn finds what the scanner's one-pattern form found, in linear time: checked against that
 * pattern on hand-picked and random strings, and on a 100 kB word, where the pattern takes quadratic time.
 */
import { describe, expect, it } from 'vitest';
import { addressesIn } from '../../src/bundle-check/scan.js';

/** The one-pattern form: the definition of what an address in text is. */
const PATTERN = /(?:[a-zA-Z][a-zA-Z0-9+.-]*:)?\/\/[^\s"'<>`]*|\b(?:javascript|vbscript):[^\s"'<>`]*/g;
const byPattern = (text: string): string[] => [...text.matchAll(PATTERN)].map((m) => m[0]);

describe('addresses in attribute text', () => {
  it('are what the pattern finds, on hand-picked strings', () => {
    const cases = ['a://b', '1a://b', '+://x', 'see https://evil.example/x and //cdn/y', 'a.javascript:alert(1)', 'xjavascript://y', 'vbscript:msgbox', 'http://a//b c://d', 'ab//c', 'x:y://z', ':://', 'javascript:a//b', ''];
    for (const text of cases) expect(addressesIn(text), text).toEqual(byPattern(text));
  });

  it('are what the pattern finds, on random strings of the characters that matter', () => {
    const alphabet = 'aZ1+.-:/ "javscriptbh';
    let seed = 7;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let n = 0; n < 5000; n++) {
      const text = Array.from({ length: Math.floor(next() * 24) }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
      expect(addressesIn(text), JSON.stringify(text)).toEqual(byPattern(text));
    }
  });

  it('reads a 100 kB word once', () => {
    const word = 'A'.repeat(100_000);
    expect(addressesIn(`${word}://x ${word}`)).toEqual([`${word}://x`]);
  });
});
