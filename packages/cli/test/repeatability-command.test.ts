/**
 * `compare --repeatability` and `merge --repeatability` through main(): the flag reaches the
 * library (the baseline's own repetitions measured in report.json), a shard refuses it, merge
 * measures them itself and writes compare's report, and the progress names the stage. The
 * measuring itself is tested in packages/fidelity/test/comparison/own-repetitions.test.ts.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from 'media-fidelity';
import { progressPrinter } from '../src/commands/compare.js';
import { main } from '../src/main.js';
import { DIFFERING, IDENTICAL, repetitionRuns } from '../../fidelity/test/comparison/repetition-runs.js';
import { capture } from './capture.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-cli-repeatability-'));
const at = (...p: string[]) => path.join(tmp, ...p);
let runs: { base: string; cand: string };
beforeAll(async () => {
  runs = await repetitionRuns(at('runs'), 2);
}, 300_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = capture();
  const code = await main(args, io);
  return { code, out: io.stdout(), err: io.stderr() };
}

const report = (dir: string): Report => JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8')) as Report;
/** A report without its generated_at, the one field two commands run at different times may differ in. */
const timeless = (dir: string): Report => ({ ...report(dir), generated_at: '' });

describe('--repeatability', () => {
  it('is in the help of compare and merge', async () => {
    for (const command of ['compare', 'merge']) {
      const r = await run([command, '--help']);
      expect(r.code, command).toBe(0);
      expect(r.out, command).toMatch(/--repeatability\s+\S/);
    }
  });

  it('a shard refuses it before reading any run (exit 2, USAGE), and writes no partial', async () => {
    const r = await run(['compare', at('no-run'), at('no-run-2'), '--shard', '0/2', '--partial', at('p-refused'), '--repeatability', '--json']);
    expect(r.code).toBe(2);
    const doc = JSON.parse(r.out) as { ok: boolean; errors: { code: string; message: string }[] };
    expect(doc.errors.map((e) => e.code)).toEqual(['USAGE']);
    expect(doc.errors[0]!.message).toContain('give --repeatability to fidelity merge');
    expect(existsSync(at('p-refused'))).toBe(false);
  });

  it("compare measures the baseline's own repetitions; without the flag the report has none", async () => {
    expect((await run(['compare', runs.base, runs.cand, '--out', at('on'), '--repeatability', '--threads', '2'])).code).toBe(0);
    expect((await run(['compare', runs.base, runs.cand, '--out', at('off'), '--threads', '2'])).code).toBe(0);
    const cases = report(at('on')).comparisons[0]!.cases;
    const differ = cases.find((c) => c.case_id === DIFFERING)!;
    expect(differ.own_repetitions!.baseline).toBe('differ');
    expect(differ.own_repetitions_measured!.repetitions.map((r) => [r.repetition, r.against_repetition, r.status === 'identical'])).toEqual([[1, 0, false]]);
    expect(differ.own_repetitions_measured!.worst.map((w) => w.check)).toContain('min_ssim');
    expect(cases.find((c) => c.case_id === IDENTICAL)!.own_repetitions_measured!.repetitions[0]!.status).toBe('identical');
    for (const c of report(at('off')).comparisons[0]!.cases) expect(c).not.toHaveProperty('own_repetitions_measured');
  }, 300_000);

  it("merge --repeatability measures them from the runs: the report of compare's", async () => {
    expect((await run(['compare', runs.base, runs.cand, '--shard', '0/1', '--partial', at('parts', '0'), '--threads', '2'])).code).toBe(0);
    expect((await run(['merge', runs.base, runs.cand, '--partials', at('parts'), '--out', at('merged'), '--remeasure', 'all', '--repeatability', '--threads', '2'])).code).toBe(0);
    expect(timeless(at('merged'))).toEqual(timeless(at('on')));
  }, 300_000);

  it('names its stage in the progress', () => {
    const io = capture(false);
    const p = progressPrinter(io, true);
    p.onProgress!({ stage: 'repetitions', pairsDone: 0, pairsTotal: 1, framesDone: 0, framesTotal: 12 });
    p.onProgress!({ stage: 'repetitions', pairsDone: 1, pairsTotal: 1, framesDone: 12, framesTotal: 12 });
    p.finish();
    expect(io.stderr().split('\n').filter(Boolean)).toEqual(["measuring the baseline's own repetitions 0/1, frames 0/12", "measuring the baseline's own repetitions 1/1, frames 12/12"]);
  });
});
