/** Every reason code the archive code can give is in the catalogue (errors.ts) and documented (docs/reason-codes.md). */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ReasonCodes } from '../../src/errors.js';

const srcDir = new URL('../../src/archive/', import.meta.url);
const docs = readFileSync(new URL('../../../../docs/reason-codes.md', import.meta.url), 'utf8');

function codesInSource(): string[] {
  const found = new Set<string>();
  for (const name of readdirSync(srcDir)) {
    const text = readFileSync(new URL(name, srcDir), 'utf8');
    for (const m of text.matchAll(/(?:error|warn|stop|FidelityError)\(\s*'([A-Z][A-Z0-9_]+)'/g)) found.add(m[1]!);
    for (const m of text.matchAll(/return '([A-Z][A-Z0-9_]+)'/g)) found.add(m[1]!);
    // readJson builds `${prefix}_MISSING` / `${prefix}_INVALID_JSON` for CI, PLAN and RUN.
    if (/`\$\{prefix\}_MISSING`/.test(text)) for (const p of ['CI', 'PLAN', 'RUN']) found.add(`${p}_MISSING`).add(`${p}_INVALID_JSON`);
  }
  return [...found].sort();
}

describe('run archive reason codes', () => {
  const codes = codesInSource();

  it('finds the codes (the scan itself works)', () => {
    expect(codes).toContain('SEAL_HASH_MISMATCH');
    expect(codes).toContain('CI_RUN_ID');
    expect(codes).toContain('RUN_MISSING');
    expect(codes.length).toBeGreaterThan(60);
  });

  it('are all in the ReasonCodes catalogue', () => {
    expect(codes.filter((c) => !(c in ReasonCodes))).toEqual([]);
  });

  it('are all documented in docs/reason-codes.md', () => {
    expect(codes.filter((c) => !docs.includes(`\`${c}\``))).toEqual([]);
  });
});
