/**
 * Every reason code the project can emit, in either package, is in the
 * ReasonCodes catalogue (errors.ts) and in a table of docs/reason-codes.md;
 * and the catalogue lists nothing the docs do not explain. Each code's
 * declaration (REASONS) names the docs section that has its row, and a code
 * declared ahead of the version that gives it is said so there. The archive's own
 * codes are also checked, with their origin, in test/archive/codes.test.ts.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REASONS, ReasonCodes, type ReasonDeclaration } from '../src/errors.js';
import { MeasureFailureCodes } from '../src/pool/api.js';
import { AccountingReasons } from '../src/power/accounting.js';
import { PowerReasons } from '../src/power/reasons.js';
import { TimingReasons } from '../src/timing/reasons.js';
import { sourceFiles } from './source-files.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SOURCES = [path.join(ROOT, 'packages', 'fidelity', 'src'), path.join(ROOT, 'packages', 'cli', 'src')];
const docs = readFileSync(path.join(ROOT, 'docs', 'reason-codes.md'), 'utf8');

/** Upper-case literals with an underscore that are not reason codes. Add here, with the reason, if one is ever needed. */
const NOT_CODES = new Set<string>([
  // The name of the environment variable fidelity's ffmpeg children get (media/child-env.ts).
  'OPENBLAS_NUM_THREADS',
]);

const texts = SOURCES.flatMap(sourceFiles).map((f) => readFileSync(f, 'utf8'));

/** `malformed[].problem` values of the power audit: documented, but labels of a row, not reasons of a result. */
function auditProblems(): string[] {
  const csv = readFileSync(path.join(SOURCES[0]!, 'power', 'csv.ts'), 'utf8');
  const type = csv.match(/export type RowProblem = ([^;]+);/)?.[1] ?? '';
  return [...type.matchAll(/'([A-Z_]+)'/g)].map((m) => m[1]!);
}

function codesInSource(): string[] {
  const found = new Set<string>();
  for (const text of texts) {
    // Any SCREAMING_SNAKE literal with an underscore is a code here (the NOT_CODES list names exceptions).
    for (const m of text.matchAll(/'([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)'/g)) found.add(m[1]!);
    // Single-word codes only where a code is expected.
    for (const m of text.matchAll(/(?:FidelityError\(\s*|code:\s*|fail\(\s*|error\(\s*|warn\(\s*|stop\(\s*)'([A-Z][A-Z0-9_]+)'/g)) found.add(m[1]!);
    // archive/identity.ts builds `${prefix}_MISSING` / `${prefix}_INVALID_JSON` for CI, PLAN and RUN.
    if (/`\$\{prefix\}_MISSING`/.test(text)) for (const p of ['CI', 'PLAN', 'RUN']) found.add(`${p}_MISSING`).add(`${p}_INVALID_JSON`);
  }
  for (const list of [Object.keys(PowerReasons), Object.keys(TimingReasons), Object.keys(AccountingReasons), [...MeasureFailureCodes]]) for (const c of list) found.add(c);
  for (const c of [...NOT_CODES, ...auditProblems()]) found.delete(c);
  return [...found].sort();
}

/** Codes that appear as `CODE` in a table row of the docs. */
function documented(): Set<string> {
  const out = new Set<string>();
  for (const line of docs.split('\n')) {
    if (!line.startsWith('|')) continue;
    for (const m of line.matchAll(/`([A-Z][A-Z0-9_]+)`/g)) out.add(m[1]!);
  }
  return out;
}

/** GitHub's anchor of a heading: lower case, punctuation but `-` and `_` dropped, spaces as `-`. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replace(/ /g, '-');
}

/** The docs' sections by anchor: the heading and the codes in the first cell of each of its table rows. */
function sections(): Map<string, { heading: string; codes: Set<string> }> {
  const out = new Map<string, { heading: string; codes: Set<string> }>();
  let current: { heading: string; codes: Set<string> } | undefined;
  for (const line of docs.split('\n')) {
    const h = /^#{2,3} (.+)$/.exec(line);
    if (h) {
      current = { heading: h[1]!, codes: new Set() };
      out.set(slug(h[1]!), current);
    } else if (current && line.startsWith('| `')) {
      for (const m of (line.split('|')[1] ?? '').matchAll(/`([A-Z][A-Z0-9_]+)`/g)) current.codes.add(m[1]!);
    }
  }
  return out;
}

const declarations = Object.entries(REASONS as Record<string, ReasonDeclaration>);

describe('the reason-code catalogue', () => {
  const codes = codesInSource();
  const docTable = documented();

  it('finds codes of every family (the scan itself works)', () => {
    for (const c of ['SEAL_HASH_MISMATCH', 'CI_MISSING', 'USAGE', 'DUPLICATE_RUN', 'OUT_NOT_EMPTY', 'BUNDLE_LINK_BROKEN', 'FAILED_BOTH', 'UNDECODABLE', 'MEDIA_EXTRACT_FAILED', 'GAP_EXCEEDED', 'TIMING_CLOCK_MISMATCH', 'ENERGY_NOT_MEASURED_ON_BASIS']) {
      expect(codes, c).toContain(c);
    }
    expect(codes.length).toBeGreaterThan(130);
  });

  it('holds every code used in the source', () => {
    expect(codes.filter((c) => !(c in ReasonCodes))).toEqual([]);
  });

  it('is fully documented in a table of docs/reason-codes.md, audit row problems included', () => {
    expect([...codes, ...auditProblems()].filter((c) => !docTable.has(c))).toEqual([]);
    expect(Object.keys(ReasonCodes).filter((c) => !docTable.has(c))).toEqual([]);
  });

  it('lists no code the source never uses, but for those declared ahead of the version that gives them', () => {
    expect(declarations.filter(([c, d]) => !codes.includes(c) && d.since === undefined).map(([c]) => c)).toEqual([]);
    // A code declared ahead is not given yet: nothing in the source spells it but its declaration.
    expect(declarations.filter(([c, d]) => d.since !== undefined && codes.includes(c)).map(([c]) => c)).toEqual([]);
  });

  it('names for each code the docs section whose table has its row; a code declared ahead is under a heading that gives its version', () => {
    const bySlug = sections();
    expect(bySlug.size).toBeGreaterThan(20);
    const wrong = declarations.filter(([c, d]) => !bySlug.get(d.doc)?.codes.has(c)).map(([c, d]) => `${c} -> #${d.doc}`);
    expect(wrong).toEqual([]);
    const unsaid = declarations.filter(([, d]) => d.since !== undefined && !bySlug.get(d.doc)!.heading.includes(`given from version ${d.since}`)).map(([c]) => c);
    expect(unsaid).toEqual([]);
  });

  it('gives words in both languages wherever it gives words, and a side only to pair reasons', () => {
    for (const [code, d] of declarations) {
      if (d.words) {
        expect(d.words.en.length, code).toBeGreaterThan(5);
        expect(d.words.zh.length, code).toBeGreaterThan(1);
        expect(d.words.zh, code).not.toBe(d.words.en);
      }
    }
    const pairSection = sections().get(REASONS.FAILED_BOTH.doc)!.codes;
    // Every code of the pair-reasons section names a side; ABORTED (documented under General) is also a pair reason.
    expect([...pairSection].filter((c) => (REASONS as Record<string, ReasonDeclaration>)[c]?.side === undefined)).toEqual([]);
    expect(declarations.filter(([, d]) => d.side !== undefined).length).toBeGreaterThan(pairSection.size);
  });

  it('is ReasonCodes: code -> meaning, in declaration order', () => {
    expect(Object.entries(ReasonCodes)).toEqual(declarations.map(([c, d]) => [c, d.meaning]));
  });

  it('has a description for every code', () => {
    for (const [code, text] of Object.entries(ReasonCodes)) expect(text.length, code).toBeGreaterThan(10);
  });
});
