/**
 * The CI gate of compare / merge (docs/report.md, "Exit codes"): with --fail-on-threshold, 4 when
 * a pair failed a check, else 5 when a planned pair is invalid (whatever its reason code), and
 * --allow-invalid gives today's 0 for invalid pairs alone. Two candidates: a B200 run whose every
 * measurement request failed ("CUDA out of memory", no media: no pair is measured), made from the
 * shared small generated runs (two plan cases: the gate, not the media, is tested), and a copy of
 * the committed H200 fixture in which one slot holds B200's shorter clip (an incompatible pair,
 * every other pair identical).
 */
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompareResult } from 'media-fidelity';
import { gateVerdict } from '../src/commands/compare.js';
import { main } from '../src/main.js';
import { capture } from './capture.js';
import { runDir, smallRuns } from '../../../test/shared/fixtures.js';

const RUNS = fileURLToPath(new URL('../../../fixtures/runs/', import.meta.url));
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-cli-gate-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface RunJson {
  run_id: number;
  records: { slot_id: string; kind: string; status: string; error?: string; media: string | null; latency_s: number | null; window?: unknown; server_timing?: unknown }[];
}

/** Rewrites SHA256SUMS over the run's files, as its producer would after the change. */
function reseal(dir: string): void {
  const files: string[] = [];
  const walk = (rel: string): void => {
    for (const name of readdirSync(path.join(dir, rel)).sort()) {
      const r = rel ? `${rel}/${name}` : name;
      if (statSync(path.join(dir, r)).isDirectory()) walk(r);
      else if (r !== 'SHA256SUMS') files.push(r);
    }
  };
  walk('');
  const lines = files.sort().map((f) => `${createHash('sha256').update(readFileSync(path.join(dir, f))).digest('hex')}  ${f}\n`);
  writeFileSync(path.join(dir, 'SHA256SUMS'), lines.join(''));
}

function editJson<T>(file: string, edit: (value: T) => void): void {
  const value = JSON.parse(readFileSync(file, 'utf8')) as T;
  edit(value);
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** A B200 run with every measurement request failed and its media gone; the warm-up stays ok. */
function allRequestsFailed(b200: string): string {
  const dir = path.join(tmp, 'b200-oom');
  cpSync(b200, dir, { recursive: true });
  editJson<RunJson>(path.join(dir, 'run.json'), (run) => {
    for (const r of run.records) {
      if (r.kind !== 'measurement') continue;
      if (r.media) unlinkSync(path.join(dir, r.media));
      Object.assign(r, { status: 'failed', error: 'CUDA out of memory', media: null, latency_s: null });
      delete r.window;
      delete r.server_timing;
    }
  });
  // The server never answered: no timing lines for the failed requests.
  writeFileSync(path.join(dir, 'telemetry', 'server_timing.jsonl'), '');
  reseal(dir);
  return dir;
}

/** The baseline again under another run id, with c007 replaced by B200's shorter clip (10 of 12 frames). */
function oneIncompatiblePair(): string {
  const dir = path.join(tmp, 'h200-short');
  cpSync(path.join(RUNS, 'h200'), dir, { recursive: true });
  const runId = 30099999999;
  editJson<{ run_id: number; artifact: { name: string } }>(path.join(dir, 'ci.json'), (ci) => {
    ci.run_id = runId;
    ci.artifact.name = ci.artifact.name.replace(/\d+-(\d+)$/, `${runId}-$1`);
  });
  editJson<RunJson>(path.join(dir, 'run.json'), (run) => {
    run.run_id = runId;
  });
  copyFileSync(path.join(RUNS, 'b200', 'media', 'measurement-r000-c007.mp4'), path.join(dir, 'media', 'measurement-r000-c007.mp4'));
  reseal(dir);
  return dir;
}

interface Doc {
  ok: boolean;
  errors?: { code: string; message: string }[];
  comparisons: ({ summary: { planned: number; failed: number; invalid: number }; pairs: { status: string; reasons: string[]; reason_details: { code: string; message: string; side: string | null }[] }[] } & Record<string, unknown>)[];
  gate?: { exit: number; code: string | null; message: string };
}

async function compare(baseline: string, candidate: string, out: string, ...flags: string[]): Promise<{ code: number; doc: Doc }> {
  const io = capture();
  const code = await main(['compare', baseline, candidate, '--out', path.join(tmp, out), '--json', '--threads', '1', ...flags], io);
  return { code, doc: JSON.parse(io.stdout()) as Doc };
}

describe('--fail-on-threshold: a run whose every request failed', () => {
  let h200: string;
  let oom: string;
  beforeAll(async () => {
    const runs = await smallRuns();
    h200 = runDir(runs, 'H200');
    oom = allRequestsFailed(runDir(runs, 'B200'));
  }, 300_000);

  it('exits 5 with GATE_INVALID_PAIRS: nothing was measured, so nothing may pass', async () => {
    const { code, doc } = await compare(h200, oom, 'oom-gate', '--fail-on-threshold');
    expect(doc.errors).toBeUndefined();
    expect(doc.comparisons[0]!.summary).toMatchObject({ planned: 2, failed: 0, invalid: 2 });
    expect(new Set(doc.comparisons[0]!.pairs.map((p) => p.reasons.join()))).toEqual(new Set(['FAILED_CANDIDATE']));
    expect(doc.gate).toEqual({ exit: 5, code: 'GATE_INVALID_PAIRS', message: 'no pair was measured: all 2 planned pairs are invalid (2 with nothing measured to judge them by)' });
    expect(code).toBe(5);
  });

  it('says "no pair was measured" and still exits 5 with --allow-invalid (nothing judged is not a pass); 0 without the gate', async () => {
    const allowed = await compare(h200, oom, 'oom-allowed', '--fail-on-threshold', '--allow-invalid');
    expect(allowed.doc.gate).toEqual({
      exit: 5,
      code: 'GATE_INVALID_PAIRS',
      message: 'no pair was measured: all 2 planned pairs are invalid (2 with nothing measured to judge them by); --allow-invalid passes invalid pairs beside judged ones, not a comparison with nothing judged',
    });
    expect(allowed.code).toBe(5);
    const plain = await compare(h200, oom, 'oom-plain');
    expect(plain.doc.gate).toBeUndefined();
    expect(plain.code).toBe(0);
  });

  it('--json: each pair carries its reasons\' messages beside their codes, and the sides under report.json\'s names', async () => {
    const { doc } = await compare(h200, oom, 'oom-json');
    const c = doc.comparisons[0]!;
    expect(c).toMatchObject({ baseline_gpu_model: 'H200', candidate_gpu_model: 'B200' });
    expect(c).not.toHaveProperty('baseline');
    expect(c).not.toHaveProperty('candidate');
    for (const p of c.pairs) {
      expect(p.reason_details.map((d) => d.code)).toEqual(p.reasons);
      expect(p.reason_details).toEqual([{ code: 'FAILED_CANDIDATE', message: expect.stringContaining('CUDA out of memory'), side: 'candidate' }]);
    }
    const report = JSON.parse(readFileSync(path.join(tmp, 'oom-json', 'report.json'), 'utf8')) as { comparisons: Record<string, unknown>[] };
    for (const key of ['baseline_run_id', 'baseline_run_attempt', 'baseline_gpu_model', 'candidate_run_id', 'candidate_run_attempt', 'candidate_gpu_model']) {
      expect(c[key]).toBe(report.comparisons[0]![key]);
    }
  });

  it('says so in the human output', async () => {
    const io = capture();
    const code = await main(['compare', h200, oom, '--out', path.join(tmp, 'oom-human'), '--threads', '1', '--fail-on-threshold'], io);
    expect(code).toBe(5);
    expect(io.stdout()).toMatch(/^Gate: exit 5 GATE_INVALID_PAIRS: no pair was measured: all 2 planned pairs are invalid/m);
  });

  it('refuses --allow-invalid without --fail-on-threshold (it would change nothing)', async () => {
    const io = capture();
    expect(await main(['compare', h200, oom, '--out', path.join(tmp, 'never'), '--allow-invalid', '--json'], io)).toBe(2);
    expect((JSON.parse(io.stdout()) as Doc).errors).toEqual([{ code: 'USAGE', message: '--allow-invalid relaxes --fail-on-threshold: give both, or neither' }]);
  });
});

describe('--fail-on-threshold: one incompatible pair, every other pair identical', () => {
  it('exits 5', async () => {
    const short = oneIncompatiblePair();
    const gated = await compare(path.join(RUNS, 'h200'), short, 'short-gate', '--fail-on-threshold');
    expect(gated.doc.errors).toBeUndefined();
    const pairs = gated.doc.comparisons[0]!.pairs;
    expect(pairs.filter((p) => p.status === 'invalid').map((p) => p.reasons)).toEqual([['MEDIA_PLAN_MISMATCH', 'INCOMPATIBLE_FRAME_COUNT']]);
    expect(pairs.filter((p) => p.status === 'passed')).toHaveLength(9);
    expect(gated.doc.gate).toMatchObject({ exit: 5, code: 'GATE_INVALID_PAIRS' });
    expect(gated.code).toBe(5);
  }, 300_000);
});

describe('the gate\'s message says whether invalid pairs were measured', () => {
  const count = (pairs: { status: string }[], status: string): number => pairs.filter((p) => p.status === status).length;
  const result = (pairs: { status: string; video: object | null }[]): CompareResult =>
    ({ report: { comparisons: [{ summary: { planned: pairs.length, passed: count(pairs, 'passed'), failed: count(pairs, 'failed'), invalid: count(pairs, 'invalid') }, pairs }] } }) as unknown as CompareResult;
  const blank = { status: 'invalid', video: { psnr_db: {} } };
  const refused = { status: 'invalid', video: null };
  const passed = { status: 'passed', video: {} };
  const failed = { status: 'failed', video: {} };

  it('exit 4\'s line counts the invalid pairs too', () => {
    expect(gateVerdict(result([failed, refused, refused, blank, refused, refused]), { failOnThreshold: true, allowInvalid: false })).toEqual({
      exit: 4,
      code: 'GATE_CHECK_FAILED',
      message: '1 of 6 planned pairs failed a check; 5 more are invalid (1 measured, not judged, 4 with nothing measured to judge them by)',
    });
    expect(gateVerdict(result([failed, passed]), { failOnThreshold: true, allowInvalid: false }).message).toBe('1 of 2 planned pairs failed a check');
  });

  it('--allow-invalid passes invalid pairs beside judged ones, and says how many were judged', () => {
    expect(gateVerdict(result([passed, refused]), { failOnThreshold: true, allowInvalid: true })).toEqual({
      exit: 0,
      code: null,
      message: 'passed: 1 of 2 planned pairs measured and judged, every one passed every check (1 invalid pair allowed by --allow-invalid)',
    });
  });

  it('with no pair judged, --allow-invalid still gives 5: "no pair was judged" when invalid clips were measured', () => {
    expect(gateVerdict(result([blank, refused]), { failOnThreshold: true, allowInvalid: true })).toMatchObject({
      exit: 5,
      code: 'GATE_INVALID_PAIRS',
      message: expect.stringMatching(/^no pair was judged: all 2 planned pairs are invalid \(1 measured, not judged, 1 with nothing measured to judge it by\)/),
    });
  });

  it('a measured pair with an invalid clip is "measured, not judged", a pair with no metrics has nothing to judge it by', () => {
    expect(gateVerdict(result([blank, passed]), { failOnThreshold: true, allowInvalid: false }).message).toBe('no pair failed a check, but 1 of 2 planned pairs is invalid (1 measured, not judged; --allow-invalid accepts that)');
    expect(gateVerdict(result([blank, passed, refused, refused]), { failOnThreshold: true, allowInvalid: false }).message).toBe(
      'no pair failed a check, but 3 of 4 planned pairs are invalid (1 measured, not judged, 2 with nothing measured to judge them by; --allow-invalid accepts that)',
    );
    expect(gateVerdict(result([blank, refused, refused]), { failOnThreshold: true, allowInvalid: false }).message).toBe(
      'no pair was judged: all 3 planned pairs are invalid (1 measured, not judged, 2 with nothing measured to judge them by)',
    );
  });

  it('counts agree in number: one planned pair, one invalid pair', () => {
    expect(gateVerdict(result([refused]), { failOnThreshold: true, allowInvalid: false }).message).toBe('no pair was measured: the 1 planned pair is invalid (1 with nothing measured to judge it by)');
    expect(gateVerdict(result([failed]), { failOnThreshold: true, allowInvalid: false }).message).toBe('1 of 1 planned pair failed a check');
    expect(gateVerdict(result([failed, passed, passed, refused]), { failOnThreshold: true, allowInvalid: false }).message).toBe('1 of 4 planned pairs failed a check; 1 more is invalid (1 with nothing measured to judge it by)');
  });
});
