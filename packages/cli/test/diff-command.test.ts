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
    expect(human.stdout().replace(/\n {4}/g, ' ')).toContain('read as it is: not a bundle, so no seal was checked');
    expect(human.stdout()).toContain('Result: unchanged (exit 0)');
    expect(human.stdout().split('\n')[0]).toBe('Made the same way: the same fidelity version, decoder, metric set, policy, plans and calibration.');
    expect(human.stdout()).toContain('\ndifferences: none\n');
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
    expect(io.stdout()).toMatch(/\n {2}H200 30054883436-1 vs H100 30049902211-1 measurement-r000-c000\n {4}status: "passed" -> "failed"\n/);
    // What the reports were made with comes first; a line too long for 100 columns is wrapped at its spaces.
    expect(io.stdout()).toMatch(/^Made differently \(not measured values, but often why values changed\):\n {2}decoder\.sha256: /);
    expect(io.stdout().replace(/\n {6}/g, ' ')).toContain(`decoder.sha256: "${JSON.parse(readFileSync(REFERENCE, 'utf8')).decoder.sha256}" -> "${'0'.repeat(64)}"`);
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

  it('200,000 differing entries print as 200,000 lines with --all, the largest 20 without (no stack overflow); a delta beyond a double says so', async () => {
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
    expect(await main(['diff', fa, fb, '--all'], io)).toBe(1);
    expect(io.stderr()).toBe('');
    expect(io.stdout()).toContain('Changed values (200001), largest first:');
    expect(io.stdout()).toMatch(/\n {4}extra\.k199999: 0 -> 1 \(delta 1\)\n/);
    expect(io.stdout()).toMatch(/\n {4}video\.psnr_db: -1e\+308 -> 1e\+308 \(delta >1\.7976931348623157e\+308\)\n/);
    expect(io.stdout()).not.toContain('Infinity');
    // Without --all: the largest 20 (the move past the largest double first), and how many more there are.
    const top = capture();
    expect(await main(['diff', fa, fb], top)).toBe(1);
    expect(top.stdout()).toMatch(/Changed values \(200001\), the largest 20:\n {2}H200 \S+ vs B200 \S+ measurement-r000-c001\n {4}video\.psnr_db: /);
    expect(top.stdout()).toContain('  ... and 199981 more changed values (--all lists every one; --json gives them as data)');
    expect(top.stdout().split('\n').length).toBeLessThan(80);
  });

  it('leads with how the reports were made differently, then the counts, then the largest changes, wrapped to the terminal', async () => {
    type Raw = { tool: { version: string }; runs: { plan_sha256: string }[]; comparisons: { pairs: { status: string; video?: Record<string, unknown> }[] }[] };
    const r = JSON.parse(readFileSync(REFERENCE, 'utf8')) as Raw;
    r.tool.version = '9.9.9';
    for (const run of r.runs) run.plan_sha256 = 'f'.repeat(64);
    r.comparisons.forEach((c, i) =>
      c.pairs.forEach((p, j) => {
        if (typeof p.video?.mae === 'number') p.video.mae += i === 1 && j === 3 ? 100 : 0.001 * (j + 1);
      }),
    );
    r.comparisons[1]!.pairs[0]!.status = 'failed';
    const file = path.join(tmp, 'other-plan.json');
    writeFileSync(file, JSON.stringify(r));
    for (const columns of [undefined, 60, 200]) {
      const io = { ...capture(), ...(columns === undefined ? {} : { columns }) };
      expect(await main(['diff', REFERENCE, file], io)).toBe(1);
      const out = io.stdout();
      const at = (s: string) => out.indexOf(s);
      expect(out.startsWith('Made differently')).toBe(true);
      expect(at('plan_sha256')).toBeGreaterThan(0);
      expect(at('plan_sha256')).toBeLessThan(at('\nold: '));
      expect(out).toMatch(/\ndifferences: 1\d changed values\n\nChanged values \(1\d\), largest first:\n/);
      expect(at('tool.version')).toBeLessThan(at('\ndifferences: '));
      // The three runs that followed the other plan are one line (wrapped), not three.
      expect(out.match(/plan_sha256/g)).toHaveLength(1);
      // A changed status before any number, then the largest move (mae + 100), then the rest.
      const changes = out.slice(at('\nChanged values'));
      expect(changes.indexOf('status: "passed" -> "failed"')).toBeLessThan(changes.indexOf('(delta 100)'));
      expect(changes.indexOf('(delta 100)')).toBeLessThan(changes.indexOf('(delta 0.01)'));
      const width = columns ?? 100;
      const lines = out.split('\n');
      expect(lines.some((l) => l.length > 50)).toBe(true);
      // Past the width only where one word (a hash) is longer than the room left: without it the line fits.
      expect(lines.filter((l) => l.length > width && l.replace(/ *\S+$/, '').length > width), `columns ${columns}`).toEqual([]);
    }
  });

  it('is listed in the help', async () => {
    const io = capture();
    expect(await main(['--help'], io)).toBe(0);
    expect(io.stdout()).toContain('fidelity diff <old> <new> [options]');
  });
});
