/** Lines wrapped to a width: at spaces, with a hanging indent, never cutting a word. */
import { describe, expect, it } from 'vitest';
import { wrapLine, wrapText } from '../src/text.js';

describe('wrapLine', () => {
  it('keeps a line that fits as it is, spaces and all', () => {
    expect(wrapLine('  a    b', 10)).toEqual(['  a    b']);
  });

  it('breaks at spaces, keeping the line\'s indent and adding the hanging one', () => {
    expect(wrapLine('  one two three four five', 12, '  ')).toEqual(['  one two', '    three', '    four', '    five']);
    const long = `old: ${'word '.repeat(60).trim()}`;
    const lines = wrapLine(long, 40);
    expect(lines.every((l) => l.length <= 40)).toBe(true);
    expect(lines.join(' ').replace(/\s+/g, ' ')).toBe(long);
    expect(lines.slice(1).every((l) => l.startsWith('    word'))).toBe(true);
  });

  it('keeps a run of spaces inside the text where the line does not break there', () => {
    expect(wrapLine('gpu NVIDIA  H100 and some more words', 20, '')).toEqual(['gpu NVIDIA  H100 and', 'some more words']);
  });

  it('never cuts a word longer than the line: it stands alone', () => {
    const hash = 'f'.repeat(64);
    expect(wrapLine(`sha256 ${hash} and more`, 30)).toEqual(['sha256', `    ${hash}`, '    and more']);
  });
});

describe('wrapText', () => {
  it('wraps every line and keeps the final newline', () => {
    expect(wrapText('aaa bbb ccc\nd\n', 7, ' ')).toBe('aaa bbb\n ccc\nd\n');
    expect(wrapText('aaa bbb', 3, '')).toBe('aaa\nbbb');
  });
});
