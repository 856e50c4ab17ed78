import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkOut, checkOutAgainstInputs, commitAtomically, inspectOut } from '../../src/output/atomic.js';
import { FidelityError } from '../../src/errors.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-atomic-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;
const fresh = () => path.join(tmp, `case-${n++}`);

/** Every file under dir with its content, so "left exactly as it was" is one equality. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (rel: string) => {
    for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = path.join(rel, e.name);
      if (e.isDirectory()) visit(r);
      else out[r] = readFileSync(path.join(dir, r), 'utf8');
    }
  };
  visit('');
  return out;
}

/** The files of a sealed bundle of this tool (report.json naming it, SHA256SUMS listing it), told apart by `tag`. */
const bundleFiles = (tag: string): Record<string, string> => {
  const report = JSON.stringify({ schema_version: 1, tool: { name: 'fidelity' }, tag });
  return { 'report.json': report, SHA256SUMS: `${createHash('sha256').update(report).digest('hex')}  report.json\n` };
};

const writeBundle = async (dir: string, tag: string) => {
  for (const [name, text] of Object.entries(bundleFiles(tag))) writeFileSync(path.join(dir, name), text);
  return tag;
};

async function codeOf(p: Promise<unknown>): Promise<string> {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(FidelityError);
  return (e as FidelityError).code;
}

describe('commitAtomically', () => {
  it('creates an absent --out, with missing parents, and leaves no temp folder', async () => {
    const root = fresh();
    const out = path.join(root, 'a', 'bundle');
    expect(await commitAtomically(out, false, (d) => writeBundle(d, 'one'))).toBe('one');
    expect(snapshot(out)).toEqual(bundleFiles('one'));
    expect(readdirSync(path.join(root, 'a'))).toEqual(['bundle']);
  });

  it('on failure leaves an absent --out absent, and removes the parents it created', async () => {
    const root = fresh();
    mkdirSync(root);
    const out = path.join(root, 'x', 'y', 'bundle');
    const failing = commitAtomically(out, false, async (d) => {
      writeFileSync(path.join(d, 'half.txt'), 'half');
      throw new FidelityError('BOOM', 'failed half way');
    });
    expect(await codeOf(failing)).toBe('BOOM');
    expect(readdirSync(root)).toEqual([]);
  });

  it('on failure leaves an existing bundle byte-for-byte as it was', async () => {
    const out = fresh();
    await commitAtomically(out, false, (d) => writeBundle(d, 'old'));
    const before = snapshot(out);
    await codeOf(commitAtomically(out, false, async () => Promise.reject(new FidelityError('BOOM', 'x'))));
    expect(snapshot(out)).toEqual(before);
    expect(readdirSync(path.dirname(out)).filter((f) => f.includes('fidelity-'))).toEqual([]);
  });

  it('replaces an earlier bundle and an empty folder', async () => {
    const out = fresh();
    await commitAtomically(out, false, (d) => writeBundle(d, 'old'));
    await commitAtomically(out, false, (d) => writeBundle(d, 'new'));
    expect(snapshot(out)).toEqual(bundleFiles('new'));
    const empty = fresh();
    mkdirSync(empty);
    await commitAtomically(empty, false, (d) => writeBundle(d, 'e'));
    expect(snapshot(empty)).toEqual(bundleFiles('e'));
  });

  it('does not replace a bundle that also holds a file its seal does not list, unless forced', async () => {
    const out = fresh();
    await commitAtomically(out, false, (d) => writeBundle(d, 'old'));
    writeFileSync(path.join(out, 'notes.txt'), 'mine');
    expect(await codeOf(commitAtomically(out, false, (d) => writeBundle(d, 'new')))).toBe('OUT_NOT_EMPTY');
    expect(snapshot(out)).toEqual({ ...bundleFiles('old'), 'notes.txt': 'mine' });
    await commitAtomically(out, true, (d) => writeBundle(d, 'new'));
    expect(snapshot(out)).toEqual(bundleFiles('new'));
  });

  it('refuses a non-empty folder that is not a bundle unless forced, touching nothing', async () => {
    const out = fresh();
    mkdirSync(out);
    writeFileSync(path.join(out, 'notes.txt'), 'mine');
    expect(await codeOf(checkOut(out, false))).toBe('OUT_NOT_EMPTY');
    expect(await codeOf(commitAtomically(out, false, (d) => writeBundle(d, 'x')))).toBe('OUT_NOT_EMPTY');
    expect(snapshot(out)).toEqual({ 'notes.txt': 'mine' });
    await commitAtomically(out, true, (d) => writeBundle(d, 'forced'));
    expect(snapshot(out)).toEqual(bundleFiles('forced'));
  });

  it('refuses a file or a symbolic link as --out', async () => {
    const file = fresh();
    writeFileSync(file, 'x');
    expect(await codeOf(inspectOut(file))).toBe('OUT_NOT_DIRECTORY');
    const link = fresh();
    symlinkSync(tmp, link);
    expect(await codeOf(inspectOut(link))).toBe('OUT_NOT_DIRECTORY');
  });

  it('refuses an --out inside an input run or containing one', () => {
    expect(() => checkOutAgainstInputs('/r/run/bundle', ['/r/run'])).toThrow(expect.objectContaining({ code: 'OUT_INSIDE_INPUT' }));
    expect(() => checkOutAgainstInputs('/r', ['/r/runs/h200'])).toThrow(expect.objectContaining({ code: 'OUT_CONTAINS_INPUT' }));
    expect(() => checkOutAgainstInputs('/r/bundle', ['/r/runs/h200', '/r/bundle-runs/x'])).not.toThrow();
    expect(existsSync('/r')).toBe(false);
  });
});
