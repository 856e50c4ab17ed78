import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyRun } from '../../src/archive/verify.js';
import type { VerifyResult } from '../../src/archive/types.js';
import { render, rm, sha256, tarItems, tempRoot, validDraft, writeDir, writeFile, writeTarGz, writeZip, zipItems } from './fixture.js';

let root: string;
let zip: string;
let tgz: string;
let dir: string;
beforeAll(async () => {
  root = await tempRoot('digest');
  const files = render(validDraft());
  zip = await writeZip(zipItems(files), path.join(root, 'run.zip'));
  tgz = await writeTarGz(tarItems(files), path.join(root, 'run.tar.gz'));
  dir = await writeDir(files, path.join(root, 'run'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

const codes = (r: VerifyResult) => (r.ok ? [] : r.problems.map((p) => p.code));

describe('the artifact digest beside the archive', () => {
  it('a digest that is not the archive hash is DIGEST_MISMATCH, for zip and tar.gz', async () => {
    for (const source of [zip, tgz]) {
      await writeFile(`${source}.sha256`, `sha256:${sha256('something else')}\n`);
      const result = await verifyRun(source);
      expect(codes(result)).toEqual(['DIGEST_MISMATCH']);
      expect(result.ok ? null : result.problems[0]?.where).toEqual({ file: `${path.basename(source)}.sha256` });
      await rm(`${source}.sha256`);
    }
  });

  it('a sidecar that is not a digest is DIGEST_MALFORMED', async () => {
    const actual = sha256(await readFile(zip));
    for (const text of ['', 'sha256:abc', `md5:${actual}`, `${actual} run.zip`, `${actual}\n\n`, `sha256: ${actual}`]) {
      await writeFile(`${zip}.sha256`, text);
      expect(codes(await verifyRun(zip)), JSON.stringify(text)).toEqual(['DIGEST_MALFORMED']);
    }
    await rm(`${zip}.sha256`);
  });

  it('--require-digest makes a missing digest DIGEST_MISSING, and a folder (which has none) too', async () => {
    expect(codes(await verifyRun(zip, { requireDigest: true }))).toEqual(['DIGEST_MISSING']);
    expect(codes(await verifyRun(tgz, { requireDigest: true }))).toEqual(['DIGEST_MISSING']);
    expect(codes(await verifyRun(dir, { requireDigest: true }))).toEqual(['DIGEST_MISSING']);
    const plain = await verifyRun(dir);
    expect(plain.ok && plain.run.digest).toEqual({ checked: false, archive_sha256: null, expected: null, file: null });
  });

  it('a digest problem does not hide the archive problems', async () => {
    const draft = validDraft();
    draft.run.run_attempt = 3;
    const bad = await writeZip(zipItems(render(draft)), path.join(root, 'bad.zip'));
    await writeFile(`${bad}.sha256`, `${'0'.repeat(64)}\n`);
    expect(codes(await verifyRun(bad)).sort()).toEqual(['DIGEST_MISMATCH', 'RUN_ATTEMPT_MISMATCH']);
  });
});
