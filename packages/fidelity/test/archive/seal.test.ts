import { describe, expect, it } from 'vitest';
import { Findings } from '../../src/archive/findings.js';
import { parseSeal } from '../../src/archive/seal.js';

const h = 'a'.repeat(64);

function parse(text: string) {
  const findings = new Findings();
  const seal = parseSeal(Buffer.from(text), findings);
  return { paths: [...seal.keys()], problems: findings.errors.map((p) => [p.code, p.where?.line]) };
}

describe('SHA256SUMS parsing', () => {
  it('reads sha256sum output, with or without the final newline', () => {
    expect(parse(`${h}  ci.json\n${h}  media/a b.mp4\n`)).toEqual({ paths: ['ci.json', 'media/a b.mp4'], problems: [] });
    expect(parse(`${h}  ci.json`)).toEqual({ paths: ['ci.json'], problems: [] });
    expect(parse('')).toEqual({ paths: [], problems: [] });
  });

  it('gives each malformed line its own problem, with its line number', () => {
    const text = [
      `${h}  ok.json`,
      '',
      `${h} one-space.json`,
      `${h.toUpperCase()}  upper.json`,
      `${h} *binary.json`,
      `${'a'.repeat(63)}  short.json`,
      `${h}  ./dot.json`,
      `${h}  media//double.mp4`,
      `${h}  media\\back.mp4`,
      `${h}  crlf.json\r`,
      `\\${h}  escaped\\nname`,
      `${h}  tab\tname`,
    ].join('\n');
    const { paths, problems } = parse(text);
    expect(paths).toEqual(['ok.json']);
    expect(problems).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((line) => ['SEAL_MALFORMED_LINE', line]));
  });

  it('absolute and ".." paths, duplicates and the seal itself have their own codes', () => {
    const text = [`${h}  /etc/passwd`, `${h}  C:/x`, `${h}  ../up`, `${h}  media/../../up`, `${h}  a.json`, `${'b'.repeat(64)}  a.json`, `${h}  SHA256SUMS`].join('\n');
    expect(parse(text).problems).toEqual([
      ['SEAL_ABSOLUTE_PATH', 1],
      ['SEAL_ABSOLUTE_PATH', 2],
      ['SEAL_PATH_TRAVERSAL', 3],
      ['SEAL_PATH_TRAVERSAL', 4],
      ['SEAL_DUPLICATE_LINE', 6],
      ['SEAL_LISTS_ITSELF', 7],
    ]);
  });

  it('refuses bytes that are not UTF-8', () => {
    const findings = new Findings();
    parseSeal(Buffer.concat([Buffer.from(`${h}  `), Buffer.from([0xff, 0xfe]), Buffer.from('\n')]), findings);
    expect(findings.errors.map((p) => p.code)).toContain('SEAL_MALFORMED_LINE');
  });
});
