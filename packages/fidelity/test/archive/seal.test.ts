import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VerifyResult } from '../../src/archive/types.js';
import { verifyRun } from '../../src/archive/verify.js';
import { render, rm, tempRoot, validDraft, writeDir } from './fixture.js';
import { Findings } from '../../src/archive/findings.js';
import { parseSeal, SEAL_COMMAND } from '../../src/archive/seal.js';

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
      `${h}  media//double.mp4`,
      `${h}  media\\back.mp4`,
      `${h}  crlf.json\r`,
      `\\${h}  escaped\\nname`,
      `${h}  tab\tname`,
    ].join('\n');
    const { paths, problems } = parse(text);
    expect(paths).toEqual(['ok.json']);
    expect(problems).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11].map((line) => ['SEAL_MALFORMED_LINE', line]));
  });

  it('gives "./" prefixes one problem for all their lines, with the command that writes a valid seal', () => {
    const text = [`${h}  ./ci.json`, `${h}  ./media/a.mp4`, `${h}  ./SHA256SUMS`, `${h}  plan.json`].join('\n');
    const findings = new Findings();
    const seal = parseSeal(Buffer.from(text), findings);
    // The files are still looked up (a hash mismatch is still found), under the paths meant.
    expect([...seal.keys()]).toEqual(['ci.json', 'media/a.mp4', 'plan.json']);
    expect(findings.errors.map((p) => [p.code, p.where?.line])).toEqual([['SEAL_MALFORMED_LINE', 1]]);
    const message = findings.errors[0]!.message;
    expect(message).toContain('3 lines of SHA256SUMS (1, 2, 3) name a path with a "./" prefix and SHA256SUMS lists itself');
    expect(message).toContain(SEAL_COMMAND);
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

describe('sealing a run with shell tools', () => {
  // Real sha256sum and GNU find on a real run folder: the command docs/run-archive.md gives, and the one it warns about.
  const sealWith = async (command: string): Promise<VerifyResult> => {
    const draft = validDraft();
    draft.seal = () => null;
    const dir = await writeDir(render(draft), path.join(root, `sealed-${n++}`));
    execFileSync('bash', ['-c', command], { env: { ...process.env, RUN: dir } });
    return verifyRun(dir);
  };
  let root: string;
  let n = 0;
  beforeAll(async () => {
    root = await tempRoot('seal-command');
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('the one-liner of docs/run-archive.md makes a valid seal', async () => {
    const doc = readFileSync(fileURLToPath(new URL('../../../../docs/run-archive.md', import.meta.url)), 'utf8');
    const line = doc.split('\n').find((l) => l.includes(SEAL_COMMAND));
    expect(line, 'docs/run-archive.md gives SEAL_COMMAND').toBeDefined();
    expect(line!.trim()).toBe(`(cd "$RUN" && ${SEAL_COMMAND})`);
    const result = await sealWith(line!.trim());
    expect(result.ok ? [] : result.problems).toEqual([]);
  });

  it('"find . -type f | xargs sha256sum" gets one problem that says what to run instead', async () => {
    const result = await sealWith('cd "$RUN" && find . -type f | xargs sha256sum > SHA256SUMS');
    const problems = result.ok ? [] : result.problems;
    expect(problems.map((p) => p.code)).toEqual(['SEAL_MALFORMED_LINE']);
    // Whether find sees the SHA256SUMS the shell is creating is a race: the self-listing is named only when it happened.
    expect(problems[0]!.message).toMatch(/^\d+ lines of SHA256SUMS \(.*\) name a path with a "\.\/" prefix( and SHA256SUMS lists itself)?, as "find \. -type f \| xargs sha256sum" writes/);
    expect(problems[0]!.message).toContain(SEAL_COMMAND);
  });
});
