/**
 * `fidelity calibrate` and `compare --calibration / --noise` through main():
 * the files written, the exit codes and the reason codes of refusals.
 *
 * The generated runs are the run's shared data (test/shared/fixtures.ts): generated once per
 * test run, outside this file's folder; the refusals below must leave them as they were. Where a
 * test needs only that a calibration is made, not its size (--noise, the guard's replacements),
 * it calibrates the H200 run with repetitions of the suite's smaller shared runs: 4 repetition
 * pairs instead of 10 rerun pairs.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GeneratedRuns } from 'media-fidelity';
import { archivedRuns, generatedRuns } from '../../../test/shared/fixtures.js';
import { main } from '../src/main.js';
import { capture } from './capture.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-cli-calibrate-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let runs: GeneratedRuns;
const dir = (site: string): string => runs.runs.find((r) => r.site === site)!.dir;
/** H200 and B200, 4 cases, 2 repetitions: the H200 run alone forms 4 same-hardware pairs. */
let reps: GeneratedRuns;
const rep = (site: string): string => reps.runs.find((r) => r.site === site)!.dir;

beforeAll(async () => {
  runs = await generatedRuns({ sites: ['H200', 'B200', 'H200R'] });
  reps = await generatedRuns({ size: 'small', sites: ['H200', 'B200'], repetitions: 2, cases: 4 });
});

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = capture();
  const code = await main(args, io);
  return { code, out: io.stdout(), err: io.stderr() };
}

describe('fidelity calibrate', () => {
  it('writes calibration.json and a calibrated policy, and says plainly when n is too small for a verdict', async () => {
    const out = path.join(tmp, 'calibration.json');
    const policy = path.join(tmp, 'policy.json');
    const r = await run(['calibrate', dir('H200'), dir('H200R'), '--out', out, '--policy-out', policy]);
    expect(r.code, r.err).toBe(0);
    const cal = JSON.parse(readFileSync(out, 'utf8')) as { n: number; schema_version: number };
    expect([cal.schema_version, cal.n]).toEqual([1, 10]);
    expect(r.out).toMatch(/n = 10 same-hardware pairs/);
    expect(r.out).toMatch(/smallest possible p is 0\.091/);
    const p = JSON.parse(readFileSync(policy, 'utf8')) as { calibration_status: string; description: string };
    expect(p.calibration_status).toBe('calibrated');
    expect(p.description).toMatch(/n = 10 same-hardware pairs/);
    // Nothing else written beside them (no temp files left; the runs are elsewhere).
    expect(readdirSync(tmp).sort()).toEqual(['calibration.json', 'policy.json']);
  });

  it('refuses a single run without repetitions with CALIBRATION_NO_PAIRS (exit 2) and writes nothing', async () => {
    const out = path.join(tmp, 'none.json');
    const r = await run(['calibrate', dir('H200'), '--out', out, '--json']);
    expect(r.code).toBe(2);
    expect((JSON.parse(r.out) as { errors: { code: string }[] }).errors.map((e) => e.code)).toEqual(['CALIBRATION_NO_PAIRS']);
    expect(existsSync(out)).toBe(false);
  });

  it('needs --out', async () => {
    const r = await run(['calibrate', dir('H200'), dir('H200R'), '--json']);
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/"USAGE"/);
  });
});

describe('compare with a calibration', () => {
  it('--calibration adds the noise verdicts; a changed file is CALIBRATION_INVALID', async () => {
    const cal = path.join(tmp, 'calibration.json');
    const out = path.join(tmp, 'bundle');
    const r = await run(['compare', dir('H200'), dir('B200'), '--out', out, '--calibration', cal]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/noise floor: n = 10 same-hardware pairs/);
    expect(r.out).toMatch(/noise sample too small: n = 10/);
    const report = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as { comparisons: { noise: { n: number } }[] };
    expect(report.comparisons[0]!.noise.n).toBe(10);
    const html = readFileSync(path.join(out, 'index.html'), 'utf8');
    expect(html).toContain('Against the same-hardware noise floor');
    expect(readFileSync(path.join(out, 'index.zh.html'), 'utf8')).toContain('与同硬件噪声基线的比较');

    // The version this tool writes; another one is refused with its own code, a malformed one as invalid.
    const text = readFileSync(cal, 'utf8');
    expect(text).toContain('"definitions_version": 2');
    for (const [version, code] of [['"2"', 'CALIBRATION_INVALID'], ['1', 'CALIBRATION_DEFINITIONS_OUTDATED'], ['7', 'CALIBRATION_MISMATCH_DEFINITIONS']] as const) {
      const broken = path.join(tmp, 'broken.json');
      writeFileSync(broken, text.replace('"definitions_version": 2', `"definitions_version": ${version}`));
      const bad = await run(['compare', dir('H200'), dir('B200'), '--out', path.join(tmp, 'b2'), '--calibration', broken, '--json']);
      expect(bad.code, version).toBe(2);
      expect(bad.out).toContain(`"${code}"`);
      expect(existsSync(path.join(tmp, 'b2'))).toBe(false);
    }
  });

  it('--noise calibrates in the same command; a shard refuses it (merge adds the verdicts)', async () => {
    const out = path.join(tmp, 'bundle-noise');
    const r = await run(['compare', rep('H200'), rep('B200'), '--out', out, '--noise', rep('H200'), '--json']);
    expect(r.code, r.err).toBe(0);
    expect(existsSync(path.join(out, 'calibration.json'))).toBe(true);
    expect((JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as { comparisons: { noise: { n: number } }[] }).comparisons[0]!.noise.n).toBe(4);
    const shard = await run(['compare', dir('H200'), dir('B200'), '--shard', '0/2', '--partial', path.join(tmp, 'p0'), '--noise', dir('H200R'), '--json']);
    expect(shard.code).toBe(2);
    expect(shard.out).toMatch(/merge/);
  });
});

describe('fidelity calibrate guards --out and --policy-out as compare guards --out', () => {
  let zips: GeneratedRuns;
  const zip = (site: string): string => zips.runs.find((r) => r.site === site)!.dir;
  const codes = (r: { out: string }): string[] => (JSON.parse(r.out) as { errors: { code: string }[] }).errors.map((e) => e.code);
  beforeAll(async () => {
    zips = await archivedRuns({ sites: ['H200', 'B200', 'H200R'] }, 'zip');
  });

  it('refuses an --out or --policy-out inside an input run, before measuring, and leaves the run as it was', async () => {
    const ci = path.join(dir('H200'), 'ci.json');
    const before = readFileSync(ci);
    const r = await run(['calibrate', dir('H200'), dir('H200R'), '--out', ci, '--json']);
    expect(r.code).toBe(2);
    expect(codes(r)).toEqual(['OUT_INSIDE_INPUT']);
    expect(readFileSync(ci)).toEqual(before);
    const p = await run(['calibrate', dir('H200'), dir('H200R'), '--out', path.join(tmp, 'elsewhere.json'), '--policy-out', path.join(dir('H200R'), 'policy.json'), '--json']);
    expect(codes(p)).toEqual(['OUT_INSIDE_INPUT']);
    expect(existsSync(path.join(dir('H200R'), 'policy.json'))).toBe(false);
    expect(existsSync(path.join(tmp, 'elsewhere.json'))).toBe(false);
  });

  it('refuses to write over an input zip or the digest beside it', async () => {
    for (const target of [zip('H200'), `${zip('H200R')}.sha256`]) {
      const before = readFileSync(target);
      const r = await run(['calibrate', zip('H200'), zip('H200R'), '--out', target, '--json']);
      expect(r.code, target).toBe(2);
      expect(codes(r)).toEqual(['OUT_INSIDE_INPUT']);
      expect(readFileSync(target)).toEqual(before);
    }
  });

  it('refuses to replace a file that is not a calibration without --force; replaces its own calibration and policy', async () => {
    const d = path.join(tmp, 'guard');
    mkdirSync(d);
    const notes = path.join(d, 'notes.txt');
    writeFileSync(notes, 'my notes');
    const r = await run(['calibrate', dir('H200'), dir('H200R'), '--out', notes, '--json']);
    expect(r.code).toBe(2);
    expect(codes(r)).toEqual(['OUT_EXISTS']);
    expect(readFileSync(notes, 'utf8')).toBe('my notes');
    const policyNotes = await run(['calibrate', dir('H200'), dir('H200R'), '--out', path.join(d, 'c.json'), '--policy-out', notes, '--json']);
    expect(codes(policyNotes)).toEqual(['OUT_EXISTS']);
    expect(existsSync(path.join(d, 'c.json'))).toBe(false);
    const out = path.join(d, 'calibration.json');
    const policy = path.join(d, 'policy.json');
    // The calibrations written here need not be large: the smaller runs' H200 alone (n = 4).
    expect((await run(['calibrate', rep('H200'), '--out', out, '--policy-out', policy])).code).toBe(0);
    // Its own files again, without --force: a rerun writes them anew.
    const again = await run(['calibrate', rep('H200'), '--out', out, '--policy-out', policy]);
    expect(again.code, again.err).toBe(0);
    const forced = await run(['calibrate', rep('H200'), '--out', notes, '--force']);
    expect(forced.code, forced.err).toBe(0);
    expect((JSON.parse(readFileSync(notes, 'utf8')) as { n: number }).n).toBe(4);
    expect(readdirSync(d).sort()).toEqual(['calibration.json', 'notes.txt', 'policy.json']);
  });

  it('--out and --policy-out must be two files, however they are spelled', async () => {
    const d = path.join(tmp, 'same');
    mkdirSync(d);
    symlinkSync(d, path.join(tmp, 'same-link'));
    for (const other of [path.join(d, 'x.json'), path.join(tmp, 'same-link', 'x.json')]) {
      const r = await run(['calibrate', dir('H200'), dir('H200R'), '--out', path.join(d, 'x.json'), '--policy-out', other, '--json']);
      expect(r.code).toBe(2);
      expect(codes(r)).toEqual(['USAGE']);
    }
    expect(readdirSync(d)).toEqual([]);
  });
});
