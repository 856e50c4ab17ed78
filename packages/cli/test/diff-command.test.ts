// fidelity diff's command line: arguments, exit codes and both output forms, on the committed
// reference report. Bundles (seal, re-exports, a moved value) are diffed end to end in test/e2e/diff.test.ts.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../src/main.js';
import { capture } from './capture.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const REFERENCE = path.join(ROOT, 'fixtures', 'reference', 'report.json');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-cli-diff-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('fidelity diff', () => {
  it('exit 0 and "unchanged" for the same report; --json is one document with ok and unchanged', async () => {
    const human = capture();
    expect(await main(['diff', REFERENCE, REFERENCE], human)).toBe(0);
    expect(human.stdout()).toContain('read as it is: not a bundle, so no seal was checked');
    expect(human.stdout()).toContain('Result: unchanged (exit 0)');
    expect(human.stderr()).toBe('');
    const json = capture();
    expect(await main(['diff', REFERENCE, REFERENCE, '--json'], json)).toBe(0);
    expect(JSON.parse(json.stdout())).toMatchObject({ ok: true, unchanged: true, compared: { runs: 3, comparisons: 2, pairs: 20 } });
  });

  it('exit 1 for a change; the context says what the reports were made with', async () => {
    const r = JSON.parse(readFileSync(REFERENCE, 'utf8')) as { decoder: { sha256: string }; comparisons: { pairs: { status: string }[] }[] };
    r.decoder.sha256 = '0'.repeat(64);
    r.comparisons[1]!.pairs[0]!.status = 'failed';
    const file = path.join(tmp, 'changed.json');
    writeFileSync(file, JSON.stringify(r));
    const io = capture();
    expect(await main(['diff', REFERENCE, file], io)).toBe(1);
    expect(io.stdout()).toMatch(/H200 30054883436-1 vs H100 30049902211-1 measurement-r000-c000 +status +"passed" +"failed"/);
    expect(io.stdout()).toContain(`decoder.sha256: "${JSON.parse(readFileSync(REFERENCE, 'utf8')).decoder.sha256}" -> "${'0'.repeat(64)}"`);
    expect(io.stdout()).toContain('Result: changed: 1 changed value (exit 1)');
  });

  it('usage errors exit 2: not two sides, a bad tolerance, an option diff does not take', async () => {
    for (const args of [['diff', REFERENCE], ['diff', REFERENCE, REFERENCE, '--tolerance', '-1'], ['diff', REFERENCE, REFERENCE, '--rel-tolerance', 'x'], ['diff', REFERENCE, REFERENCE, '--tolerance', ''], ['diff', REFERENCE, REFERENCE, '--threads', '2'], ['diff', REFERENCE, REFERENCE, '--policy', 'p.json']]) {
      const io = capture();
      expect(await main([...args, '--json'], io), args.join(' ')).toBe(2);
      expect(JSON.parse(io.stdout()), args.join(' ')).toMatchObject({ ok: false, errors: [{ code: 'USAGE' }] });
    }
    const ok = capture();
    expect(await main(['diff', REFERENCE, REFERENCE, '--tolerance', '1e-9', '--rel-tolerance', '0.001'], ok)).toBe(0);
  });

  it('a refused side exits 2 with its code', async () => {
    const io = capture();
    expect(await main(['diff', path.join(tmp, 'absent'), REFERENCE], io)).toBe(2);
    expect(io.stderr()).toMatch(/^error DIFF_INPUT_NOT_FOUND: old .*absent: no such file or folder/);
  });

  it('200,000 differing entries print as a table of 200,000 rows (no stack overflow); a delta beyond a double says so', async () => {
    type Raw = { comparisons: { pairs: Record<string, unknown>[] }[] };
    const [a, b] = [JSON.parse(readFileSync(REFERENCE, 'utf8')) as Raw, JSON.parse(readFileSync(REFERENCE, 'utf8')) as Raw];
    const many = (v: number): Record<string, number> => Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`k${i}`, v]));
    a.comparisons[0]!.pairs[0]!.extra = many(0);
    b.comparisons[0]!.pairs[0]!.extra = many(1);
    (a.comparisons[0]!.pairs[1]!.video as Record<string, unknown>).psnr_db = -1e308;
    (b.comparisons[0]!.pairs[1]!.video as Record<string, unknown>).psnr_db = 1e308;
    const [fa, fb] = [path.join(tmp, 'many-a.json'), path.join(tmp, 'many-b.json')];
    writeFileSync(fa, JSON.stringify(a));
    writeFileSync(fb, JSON.stringify(b));
    const io = capture();
    expect(await main(['diff', fa, fb], io)).toBe(1);
    expect(io.stderr()).toBe('');
    expect(io.stdout()).toContain('Changed values (200001):');
    expect(io.stdout()).toMatch(/extra\.k199999 +0 +1 +1\n/);
    expect(io.stdout()).toMatch(/video\.psnr_db +-1e\+308 +1e\+308 +>1\.7976931348623157e\+308\n/);
    expect(io.stdout()).not.toContain('Infinity');
  });

  it('is listed in the help', async () => {
    const io = capture();
    expect(await main(['--help'], io)).toBe(0);
    expect(io.stdout()).toContain('fidelity diff <old> <new> [options]');
  });
});
