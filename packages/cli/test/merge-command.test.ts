/**
 * The shard and merge options of the command line that are refused before
 * any run is read (the measuring paths are in packages/fidelity/test/shard
 * and test/e2e/slurm.test.ts).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { shardFromOptions } from '../src/commands/compare.js';
import { remeasureOption } from '../src/commands/merge.js';
import { main } from '../src/main.js';
import { fixturePartials } from '../../../test/shared/fixtures.js';
import { capture } from './capture.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-cli-merge-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const SHARD_VARS = Object.keys(process.env).filter((k) => k.startsWith('SLURM_') || k === 'JOB_COMPLETION_INDEX');
const saved = Object.fromEntries(SHARD_VARS.map((k) => [k, process.env[k]]));
afterEach(() => {
  for (const k of Object.keys(process.env)) if (k.startsWith('SLURM_') || k === 'JOB_COMPLETION_INDEX') delete process.env[k];
  Object.assign(process.env, saved);
});

async function refusal(args: string[]): Promise<{ code: number; codes: string[]; messages: string[] }> {
  const io = capture();
  const code = await main([...args, '--json'], io);
  const doc = JSON.parse(io.stdout()) as { ok: boolean; errors: { code: string; message: string }[] };
  expect(doc.ok).toBe(false);
  return { code, codes: doc.errors.map((e) => e.code), messages: doc.errors.map((e) => e.message) };
}

const RUNS = [path.join(tmp, 'base'), path.join(tmp, 'cand')];

describe('fidelity compare --shard', () => {
  it('needs --partial, and takes neither --out nor --fail-on-threshold (USAGE)', async () => {
    expect(await refusal(['compare', ...RUNS, '--shard', '0/2'])).toMatchObject({ code: 2, codes: ['USAGE'] });
    expect(await refusal(['compare', ...RUNS, '--shard', '0/2', '--partial', path.join(tmp, 'p'), '--out', path.join(tmp, 'o')])).toMatchObject({ code: 2, codes: ['USAGE'] });
    expect(await refusal(['compare', ...RUNS, '--shard', '0/2', '--partial', path.join(tmp, 'p'), '--fail-on-threshold'])).toMatchObject({ code: 2, codes: ['USAGE'] });
    expect(await refusal(['compare', ...RUNS, '--partial', path.join(tmp, 'p')])).toMatchObject({ code: 2, codes: ['USAGE'] });
    expect(await refusal(['compare', ...RUNS, '--shards', '3', '--out', path.join(tmp, 'o')])).toMatchObject({ code: 2, codes: ['USAGE'] });
    // --alpha is the level of the noise verdicts merge gives: on a shard it would change nothing.
    const alpha = await refusal(['compare', ...RUNS, '--shard', '0/2', '--partial', path.join(tmp, 'p'), '--alpha', '0.01']);
    expect(alpha).toMatchObject({ code: 2, codes: ['USAGE'] });
    expect(alpha.messages[0]).toContain('give --calibration (and --alpha) to fidelity merge');
  });

  it('refuses a malformed K/N (USAGE)', async () => {
    for (const bad of ['2/2', 'x', '1/0', '-1/2']) {
      expect(await refusal(['compare', ...RUNS, '--shard', bad, '--partial', path.join(tmp, 'p')]), bad).toMatchObject({ code: 2, codes: ['USAGE'] });
    }
  });

  it('--shard auto without a scheduler is SHARD_ENV_MISSING, and a bad one SHARD_ENV_INCONSISTENT (exit 2)', async () => {
    for (const k of Object.keys(process.env)) if (k.startsWith('SLURM_') || k === 'JOB_COMPLETION_INDEX') delete process.env[k];
    expect(await refusal(['compare', ...RUNS, '--shard', 'auto', '--partial', path.join(tmp, 'p')])).toMatchObject({ code: 2, codes: ['SHARD_ENV_MISSING'] });
    process.env.JOB_COMPLETION_INDEX = '2';
    const k8s = await refusal(['compare', ...RUNS, '--shard', 'auto', '--partial', path.join(tmp, 'p')]);
    expect(k8s).toMatchObject({ code: 2, codes: ['SHARD_ENV_INCONSISTENT'] });
    expect(k8s.messages[0]).toContain('--shards');
  });

  it('reads the shard from Slurm and Kubernetes variables', () => {
    const partial = path.join(tmp, 'p');
    expect(shardFromOptions({ shard: 'auto', partial }, { SLURM_ARRAY_TASK_ID: '3', SLURM_ARRAY_TASK_MIN: '1', SLURM_ARRAY_TASK_MAX: '4', SLURM_ARRAY_TASK_COUNT: '4' })).toEqual({ index: 2, count: 4 });
    expect(shardFromOptions({ shard: 'auto', shards: '5', partial }, { JOB_COMPLETION_INDEX: '4' })).toEqual({ index: 4, count: 5 });
    expect(shardFromOptions({ shard: '1/3', partial }, {})).toEqual({ index: 1, count: 3 });
    expect(shardFromOptions({ out: 'x' }, {})).toBeNull();
  });
});

describe('fidelity merge', () => {
  it('is listed in the help', async () => {
    const io = capture();
    expect(await main(['--help'], io)).toBe(0);
    expect(io.stdout()).toContain('fidelity merge <baseline> <candidate>');
  });

  it('needs the runs, --partials and --out (USAGE)', async () => {
    expect(await refusal(['merge', RUNS[0]!, '--partials', tmp, '--out', path.join(tmp, 'o')])).toMatchObject({ code: 2, codes: ['USAGE'] });
    expect(await refusal(['merge', ...RUNS, '--out', path.join(tmp, 'o')])).toMatchObject({ code: 2, codes: ['USAGE'] });
    expect(await refusal(['merge', ...RUNS, '--partials', tmp])).toMatchObject({ code: 2, codes: ['USAGE'] });
  });

  it('says so when a partial was given where a run belongs (--partials a b)', async () => {
    const b = path.join(tmp, 'partials', '1');
    mkdirSync(b, { recursive: true });
    writeFileSync(path.join(b, 'partial.json'), '{}');
    const r = await refusal(['merge', ...RUNS, '--partials', path.join(tmp, 'partials', '0'), b, '--out', path.join(tmp, 'o')]);
    expect(r).toMatchObject({ code: 2, codes: ['USAGE'] });
    expect(r.messages[0]).toContain(b);
  });

  it('refuses a --partials folder that holds no partial (PARTIAL_UNREADABLE), writing nothing', async () => {
    const empty = path.join(tmp, 'empty');
    mkdirSync(empty);
    const out = path.join(tmp, 'never');
    expect(await refusal(['merge', ...RUNS, '--partials', empty, '--out', out])).toMatchObject({ code: 2, codes: ['PARTIAL_UNREADABLE'] });
  });
});

describe('fidelity merge --remeasure', () => {
  it('takes a whole number or all; anything else is USAGE before any run is read', async () => {
    for (const bad of ['-1', '1.5', 'some', '']) {
      expect(await refusal(['merge', ...RUNS, '--partials', tmp, '--out', path.join(tmp, 'o'), '--remeasure', bad]), bad).toMatchObject({ code: 2, codes: ['USAGE'] });
    }
  });

  it('takes any whole number up to 2^53 - 1 (1000000000 included); a larger one is USAGE naming the limit', async () => {
    expect(remeasureOption('1000000000')).toBe(1_000_000_000);
    expect(remeasureOption('0')).toBe(0);
    expect(remeasureOption(String(Number.MAX_SAFE_INTEGER))).toBe(Number.MAX_SAFE_INTEGER);
    expect(remeasureOption('all')).toBe('all');
    const r = await refusal(['merge', ...RUNS, '--partials', tmp, '--out', path.join(tmp, 'o'), '--remeasure', '9007199254740992']);
    expect(r).toMatchObject({ code: 2, codes: ['USAGE'] });
    expect(r.messages[0]).toBe('--remeasure 9007199254740992 is more than 9007199254740991, the largest whole number it takes; to re-measure every pair give --remeasure all');
  });

  it('says in --json and in the summary how many pairs merge re-measured', async () => {
    const fixtures = path.join(new URL('../../../fixtures/runs/', import.meta.url).pathname);
    const runs = [path.join(fixtures, 'h200'), path.join(fixtures, 'b200')];
    // The two shards' partials are the run's shared ones (compare --shard K/2 --threads 2 of these runs, test/shared/fixtures.ts):
    // what is said here is merge's, whoever wrote the partials; merge only reads them.
    const shards = (await fixturePartials(['b200'], 2)).dir;
    const json = capture();
    expect(await main(['merge', ...runs, '--partials', shards, '--out', path.join(tmp, 'merged'), '--remeasure', '3', '--json', '--threads', '2'], json), json.stderr()).toBe(0);
    expect((JSON.parse(json.stdout()) as { measurement_origin: unknown }).measurement_origin).toEqual({ pairs: 9, measured_here: 6, taken_from_shards: 3 });
    // Into the bundle the first merge wrote, with options that change nothing here: each is said, as compare says it.
    const text = capture();
    const merged = path.join(tmp, 'merged');
    expect(await main(['merge', ...runs, '--partials', shards, '--out', merged, '--threads', '2', '--repeatability', '--alpha', '0.01'], text), text.stderr()).toBe(0);
    expect(text.stdout()).toContain('Measured: 2 of 9 pairs re-measured by merge (identical)');
    expect(text.stderr().split('\n').filter(Boolean)).toEqual([
      `fidelity merge: replaced the bundle that was in ${merged}`,
      'fidelity merge: --repeatability measured nothing: every case of the plan has one repetition, so the baseline has no repetitions of its own to compare with each other',
      'fidelity merge: --alpha 0.01 changed nothing: without a noise sample (--calibration) no pair has a noise verdict for it to be the level of',
    ]);
  }, 120_000);

  it("merges shards run with --decode-timeout: merge measures with the limit their partials carry, or --decode-timeout's", async () => {
    const fixtures = path.join(new URL('../../../fixtures/runs/', import.meta.url).pathname);
    const runs = [path.join(fixtures, 'h200'), path.join(fixtures, 'b200')];
    const shard = path.join(tmp, 'limited', '0');
    // 1 ms: every child is killed, so every measured pair and clip is DECODE_TIMEOUT, on the shard and in merge alike.
    const io = capture();
    expect(await main(['compare', ...runs, '--shard', '0/1', '--partial', shard, '--decode-timeout', '0.001', '--threads', '2'], io), io.stderr()).toBe(0);
    const partial = JSON.parse(readFileSync(path.join(shard, 'partial.json'), 'utf8')) as { decode_timeout_ms: number | null; pairs: { outcome: { ok: boolean; failure?: { code: string } } | null }[] };
    expect(partial.decode_timeout_ms).toBe(1);
    expect(partial.pairs.some((p) => p.outcome?.failure?.code === 'DECODE_TIMEOUT')).toBe(true);
    for (const extra of [[], ['--decode-timeout', '0.001']]) {
      const merged = capture();
      const code = await main(['merge', ...runs, '--partials', shard, '--out', path.join(tmp, 'limited-merged'), '--remeasure', 'all', '--threads', '2', ...extra], merged);
      expect(code, `${extra.join(' ')}: ${merged.stdout()}${merged.stderr()}`).toBe(0);
    }
  }, 180_000);
});
