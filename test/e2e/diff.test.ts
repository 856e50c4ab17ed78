/**
 * fidelity diff and the CI outputs end to end, through the real CLI on the committed fixtures:
 * a re-export of the same runs (another SOURCE_DATE_EPOCH, another thread count, and shards plus
 * merge) diffs as unchanged; one moved value is a change naming the pair and the metric path; a
 * broken seal is refused. compare and merge write the same JUnit file, which validates against
 * the JUnit schema, and append their summaries to GITHUB_STEP_SUMMARY / --summary; a refusal
 * writes no JUnit file. The shards merged are the run's shared partials of the fixtures
 * (test/shared/fixtures.ts, made by the library as `compare --shard K/2 --partial` makes them).
 * The first compare (two threads, --junit, GITHUB_STEP_SUMMARY) is the run's shared one
 * (fixtureCliCompare), whose --json output the end-to-end compare test judges: its bundle, JUnit
 * file and summary are read here, the summary copied before merge appends to it.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAVE_XMLLINT, validate } from '../../packages/fidelity/test/ci/xmllint.js';
import { copyShared } from '../shared/store.js';
import { fixtureCliCompare, fixturePartials } from '../shared/fixtures.js';
import { cli, FIXTURES, reseal, snapshot, type CliResult } from './helpers.js';

const run = (site: string) => path.join(FIXTURES, site);
const RUNS = [run('h200'), run('b200'), run('h100')];
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-e2e-diff-'));
const at = (...p: string[]) => path.join(tmp, ...p);
const SUMMARY = at('step-summary.md');
/** The shared compare's bundle and JUnit file (read only). */
let A: string;
let A_XML: string;
let a: CliResult;
let b: CliResult;
let merged: CliResult;

beforeAll(async () => {
  // compare ... --threads 2 --junit, at SOURCE_DATE_EPOCH 1764450000, appending to GITHUB_STEP_SUMMARY.
  const shared = (await fixtureCliCompare()).meta;
  [A, A_XML] = [shared.bundle, shared.junit];
  a = { code: shared.code, stdout: shared.stdout, stderr: shared.stderr };
  // Its summary, copied: merge appends to it below.
  copyShared(shared.summary, SUMMARY);
  b = await cli(['compare', ...RUNS, '--out', at('b'), '--threads', '1'], { env: { SOURCE_DATE_EPOCH: '1700000000' } });
  // The two shards' partials, shared with the other files of the run (read only: merge reads them).
  const partials = (await fixturePartials(['b200', 'h100'], 2)).dir;
  merged = await cli(['merge', ...RUNS, '--partials', partials, '--out', at('merged'), '--junit', at('merged.xml'), '--summary', SUMMARY], { env: { SOURCE_DATE_EPOCH: '1764450000' } });
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('fidelity diff', () => {
  it('a re-export with another SOURCE_DATE_EPOCH and thread count is unchanged (exit 0)', async () => {
    expect([a.code, b.code]).toEqual([0, 0]);
    const d = await cli(['diff', A, at('b')]);
    expect(d.code, d.stdout + d.stderr).toBe(0);
    // First how the two were made (here alike), then what was read: each side's line wrapped to 100 columns.
    expect(d.stdout).toMatch(/^Made the same way: /);
    expect(d.stdout.replace(/\n {4}/g, ' ')).toMatch(/^old: bundle .*\(seal holds: \d+ files re-hashed/m);
    expect(d.stdout.split('\n').filter((l) => l.length > 100 && l.replace(/ *\S+$/, '').length > 100)).toEqual([]);
    expect(d.stdout).toContain('compared: 3 runs, 2 comparisons, 20 pairs,');
    expect(d.stdout).toContain('Result: unchanged (exit 0)');
    expect(readFileSync(path.join(A, 'report.json'))).not.toEqual(readFileSync(at('b', 'report.json')));
  });

  it('shards merged into a bundle are unchanged against one compare', async () => {
    expect(merged.code, merged.stderr).toBe(0);
    const d = await cli(['diff', at('merged'), A, '--json']);
    expect(d.code).toBe(0);
    expect(JSON.parse(d.stdout)).toMatchObject({ ok: true, unchanged: true, changes: [], pairs_only: [], metrics_only: [], context: [] });
  });

  it('one moved value is a change (exit 1) naming the pair and the metric path', async () => {
    cpSync(at('b'), at('moved'), { recursive: true });
    const file = at('moved', 'report.json');
    const text = readFileSync(file, 'utf8');
    const moved = text.replace(/"mae": (0\.\d+)/, (_, v: string) => `"mae": ${Number(v) + 1e-12}`);
    expect(moved).not.toBe(text);
    writeFileSync(file, moved);
    reseal(at('moved'));
    const human = await cli(['diff', A, at('moved')]);
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/Changed values \(1\), largest first:\n {2}H200 30054883436-1 vs B200 30061277519-2 measurement-r000-c001\n {4}video\.mae: 0\.\d+ -> 0\.\d+ \(delta \d/);
    expect(human.stdout).toContain('Result: changed: 1 changed value (exit 1)');
    const json = await cli(['diff', A, at('moved'), '--json']);
    expect(json.code).toBe(1);
    const doc = JSON.parse(json.stdout) as { ok: boolean; unchanged: boolean; changes: { where: { slot_id: string; candidate: { run_id: number } }; path: string }[] };
    expect(doc).toMatchObject({ ok: true, unchanged: false });
    expect(doc.changes.map((c) => [c.where.candidate.run_id, c.where.slot_id, c.path])).toEqual([[30061277519, 'measurement-r000-c001', 'video.mae']]);
    // --tolerance loosens it away.
    expect((await cli(['diff', A, at('moved'), '--tolerance', '1e-9'])).code).toBe(0);
  });

  it('a broken seal is refused (exit 2) with the reason code, and a bare report.json is read as it is', async () => {
    cpSync(at('b'), at('broken'), { recursive: true });
    appendFileSync(at('broken', 'index.html'), ' ');
    const human = await cli(['diff', A, at('broken')]);
    expect(human.code).toBe(2);
    expect(human.stdout).toBe('');
    expect(human.stderr).toMatch(/^error BUNDLE_FILE_CHANGED: new .*broken: index\.html changed/);
    const json = await cli(['diff', at('broken'), A, '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, errors: [{ code: 'BUNDLE_FILE_CHANGED' }] });
    // The same report.json, outside its bundle: read as it is, and the output says so.
    const bare = await cli(['diff', A, at('broken', 'report.json')]);
    expect(bare.code).toBe(0);
    // Lines are wrapped to the terminal's width: the sentence is read across them.
    expect(bare.stdout.replace(/\s+/g, ' ')).toContain('read as it is: not a bundle, so no seal was checked');
  });
});

describe('--junit and the job summary', () => {
  it('compare and merge write the same JUnit file, which validates against the JUnit schema', () => {
    const xml = readFileSync(A_XML, 'utf8');
    expect(readFileSync(at('merged.xml'), 'utf8')).toBe(xml);
    expect(xml.match(/<testcase /g)).toHaveLength(20);
    if (!HAVE_XMLLINT) return console.warn('SKIPPED: xmllint schema check (no xmllint)');
    const v = validate(A_XML);
    expect(v.ok, v.output).toBe(true);
  });

  it('the bundle is as without --junit: nothing was added to it', () => {
    expect(Object.keys(snapshot(A))).toEqual(Object.keys(snapshot(at('b'))));
  });

  it('GITHUB_STEP_SUMMARY and --summary are appended to, after what was there', () => {
    const md = readFileSync(SUMMARY, 'utf8');
    expect(md.startsWith('# an earlier step\n\n## fidelity: `H200 run 30054883436-1` against 2 candidates\n')).toBe(true);
    expect(md.match(/^## fidelity: /gm)).toHaveLength(2);
    expect(md).toContain(`- Path: \`${A}\``);
    expect(md).toContain(`- Path: \`${at('merged')}\``);
    expect(md).toContain('| `B200` | 30061277519-2 | 10 | 7 | 4 | 3 | 3 | not calibrated |');
  });

  it('a refusal writes no JUnit file and appends the reason codes to the summary', async () => {
    const summary = at('refused.md');
    const r = await cli(['compare', run('h200'), at('no-such-run'), '--out', at('c'), '--junit', at('c.xml'), '--summary', summary]);
    expect(r.code).toBe(2);
    expect(existsSync(at('c.xml'))).toBe(false);
    expect(existsSync(at('c'))).toBe(false);
    expect(readFileSync(summary, 'utf8')).toMatch(/^\n## fidelity compare: refused\n\n\| code \| message \|\n\| --- \| --- \|\n\| `RUN_INVALID` \|/);
  });

  it('a JUnit file inside --out or an input is refused before any work; a shard takes neither option', async () => {
    const inside = await cli(['compare', ...RUNS, '--out', at('d'), '--junit', at('d', 'junit.xml'), '--json']);
    expect(inside.code).toBe(2);
    expect(JSON.parse(inside.stdout)).toMatchObject({ ok: false, errors: [{ code: 'CI_OUTPUT_INVALID' }] });
    expect(existsSync(at('d'))).toBe(false);
    const input = await cli(['compare', ...RUNS, '--out', at('d'), '--junit', path.join(run('h200'), 'junit.xml')]);
    expect(input.code).toBe(2);
    expect(input.stderr).toContain('error CI_OUTPUT_INVALID');
    const shard = await cli(['compare', ...RUNS, '--shard', '0/2', '--partial', at('p'), '--junit', at('p.xml')]);
    expect(shard.code).toBe(2);
    expect(shard.stderr).toContain('error USAGE: a shard measures only: give --junit and --summary to fidelity merge');
  });
});
