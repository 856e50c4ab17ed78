import { describe, expect, it } from 'vitest';
import { formatSeal, isSafeRelativePath, parseSeal } from '../../src/output/seal.js';

const h = (c: string) => c.repeat(64);

describe('bundle seal', () => {
  it('formats sha256sum lines sorted by code unit, whatever the input order', () => {
    const text = formatSeal([
      { path: 'media/b.mp4', sha256: h('b') },
      { path: 'Z.txt', sha256: h('c') },
      { path: 'index.html', sha256: h('a') },
    ]);
    expect(text).toBe(`${h('c')}  Z.txt\n${h('a')}  index.html\n${h('b')}  media/b.mp4\n`);
    expect(parseSeal(text)).toEqual({ entries: [{ path: 'Z.txt', sha256: h('c') }, { path: 'index.html', sha256: h('a') }, { path: 'media/b.mp4', sha256: h('b') }], problems: [] });
  });

  it('flags malformed, unsafe, duplicate and self-listing lines', () => {
    const text = [`${h('A')}  upper.txt`, `${h('a')} one-space.txt`, `${h('a')}  ../up.txt`, `${h('a')}  /abs.txt`, `${h('a')}  ok.txt`, `${h('b')}  ok.txt`, `${h('a')}  SHA256SUMS`, ''].join('\n');
    const { entries, problems } = parseSeal(text);
    expect(entries.map((e) => e.path)).toEqual(['ok.txt']);
    expect(problems.map((p) => [p.code, p.where?.line])).toEqual([
      ['BUNDLE_SEAL_MALFORMED', 1],
      ['BUNDLE_SEAL_MALFORMED', 2],
      ['BUNDLE_SEAL_MALFORMED', 3],
      ['BUNDLE_SEAL_MALFORMED', 4],
      ['BUNDLE_SEAL_MALFORMED', 6],
      ['BUNDLE_SEAL_MALFORMED', 7],
    ]);
  });

  it('requires the final newline', () => {
    expect(parseSeal(`${h('a')}  x`).problems.map((p) => p.code)).toEqual(['BUNDLE_SEAL_MALFORMED']);
  });

  it('accepts only plain relative paths', () => {
    for (const ok of ['a', 'a/b.c', 'media/x.mp4']) expect(isSafeRelativePath(ok)).toBe(true);
    for (const bad of ['', '/a', 'a//b', './a', 'a/../b', 'a\\b', 'C:/x', 'a/']) expect(isSafeRelativePath(bad)).toBe(false);
  });
});
