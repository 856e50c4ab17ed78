/**
 * diffReports on the committed reference report (fixtures/reference/report.json, a real
 * comparison of the fixtures) and edited copies of it: what counts as a change, where it is
 * named, what is only context, and every refusal. Real bundles (seal, another thread count,
 * another SOURCE_DATE_EPOCH) are diffed end to end in test/e2e/diff.test.ts.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { diffReports } from '../../src/diff/diff.js';
import type { Report } from '../../src/schemas/report.js';
import { refusal } from '../refusal.js';

const ROOT = path.resolve(import.meta.dirname, '../../../..');
const REFERENCE = path.join(ROOT, 'fixtures', 'reference', 'report.json');
const TEXT = readFileSync(REFERENCE, 'utf8');
const fresh = (): Report => JSON.parse(TEXT) as Report;
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-diff-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const b200 = (r: Report) => r.comparisons.find((c) => c.candidate_gpu_model === 'B200')!;
const h100 = (r: Report) => r.comparisons.find((c) => c.candidate_gpu_model === 'H100')!;
const pair = (r: Report, slot: string, cmp = b200) => cmp(r).pairs.find((p) => p.slot_id === slot)!;
let n = 0;
function file(content: string | Buffer): string {
  const f = path.join(tmp, `r${n++}.json`);
  writeFileSync(f, content);
  return f;
}
/** A folder sealed as a bundle is: report.json and SHA256SUMS over every file. */
function bundle(files: Record<string, string>): string {
  const dir = path.join(tmp, `b${n++}`);
  const lines: string[] = [];
  for (const [name, content] of Object.entries(files).sort(([a], [b]) => (a < b ? -1 : 1))) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), content);
    lines.push(`${createHash('sha256').update(content).digest('hex')}  ${name}\n`);
  }
  writeFileSync(path.join(dir, 'SHA256SUMS'), lines.join(''));
  return dir;
}

describe('diffReports: unchanged', () => {
  it('a report against itself: every value compared, nothing changed; a bare report.json says it was read as it is', async () => {
    const d = await diffReports(REFERENCE, fresh());
    expect(d.unchanged).toBe(true);
    expect(d.changes).toEqual([]);
    expect(d.compared).toMatchObject({ runs: 3, comparisons: 2, pairs: 20 });
    expect(d.compared.values).toBeGreaterThan(4000);
    expect(d.old).toMatchObject({ kind: 'report', sealed: false, files: null, report_sha256: createHash('sha256').update(TEXT).digest('hex') });
    expect(d.new.kind).toBe('object');
    expect(d.context).toEqual([]);
  });

  it('what is not a measured value does not count: generated_at, bundle paths, prose, run identity; the version and decoder are context', async () => {
    const r = fresh();
    r.generated_at = '2030-01-01T00:00:00.000Z';
    r.tool.version = '9.9.9';
    r.decoder.sha256 = 'f'.repeat(64);
    r.decoder.source = 'env';
    r.disclaimer = 'other words';
    for (const c of r.comparisons) {
      c.files = { extra: 'x/y.csv' };
      c.baseline_gpu_model = 'renamed';
      for (const p of c.pairs) {
        p.files = {};
        p.baseline_media = p.baseline_media && `elsewhere/${p.baseline_media}`;
        p.prompt = 'another prompt';
        p.reason_details = p.reason_details.map((d) => ({ ...d, message: '/tmp/fidelity-run-1234/media/x.mp4: other text' }));
        p.candidate_error = p.candidate_error && 'other error text';
      }
    }
    for (const run of r.runs) {
      run.source = { name: 'other.zip', kind: 'zip' };
      run.sources_dir = 'elsewhere';
      run.digest = { checked: true, archive_sha256: 'a'.repeat(64), expected: 'a'.repeat(64) };
      run.warnings = ['DIGEST_NAME_MISMATCH'];
    }
    const d = await diffReports(REFERENCE, r);
    expect(d.unchanged).toBe(true);
    expect(d.context.map((c) => c.path).sort()).toEqual(['decoder.sha256', 'decoder.source', 'tool.version']);
    expect(d.context.find((c) => c.path === 'tool.version')).toEqual({ path: 'tool.version', where: null, old: '0.1.0', new: '9.9.9' });
  });
});

describe('diffReports: changes', () => {
  it('one moved value is a change naming the pair (both runs and the slot) and the metric path, with old, new and delta', async () => {
    const r = fresh();
    const p = pair(r, 'measurement-r000-c001');
    const old = p.video!.psnr_db!;
    p.video!.psnr_db = old + 2 ** -40;
    const d = await diffReports(fresh(), r);
    expect(d.unchanged).toBe(false);
    expect(d.changes).toEqual([
      {
        where: {
          kind: 'pair',
          baseline: { run_id: 30054883436, run_attempt: 1, gpu_model: 'H200' },
          candidate: { run_id: 30061277519, run_attempt: 2, gpu_model: 'B200' },
          slot_id: 'measurement-r000-c001',
          case_id: 'spoken-greeting-s29',
        },
        path: 'video.psnr_db',
        old,
        new: old + 2 ** -40,
        delta: old + 2 ** -40 - old,
      },
    ]);
  });

  it('status, reason codes, check outcomes, audio channels and case views are compared', async () => {
    const r = fresh();
    const p = pair(r, 'measurement-r000-c003');
    p.status = 'passed';
    p.checks.find((k) => k.name === 'min_ssim')!.outcome = 'pass';
    pair(r, 'measurement-r000-c006').reasons = ['FAILED_BOTH'];
    pair(r, 'measurement-r000-c002', h100).audio!.channels[1]!.spectral_cosine = 0.5;
    b200(r).summary.failed = 2;
    const d = await diffReports(fresh(), r);
    const at = d.changes.map((c) => `${c.where.kind === 'pair' ? c.where.slot_id : c.where.kind} ${c.path}`);
    // A comparison's own values come before its pairs'.
    expect(at).toEqual([
      'comparison summary.failed',
      'measurement-r000-c003 status',
      'measurement-r000-c003 checks[min_ssim].outcome',
      'measurement-r000-c006 reasons',
      'measurement-r000-c002 audio.channels[1].spectral_cosine',
    ]);
    expect(d.changes.find((c) => c.path === 'reasons')).toMatchObject({ old: ['FAILED_CANDIDATE'], new: ['FAILED_BOTH'], delta: null });
  });

  it('a per-frame series that moved is one change: the frame that moved most, how many differ and the first', async () => {
    const r = fresh();
    const series = pair(r, 'measurement-r000-c001').video!.ssim!.per_frame;
    const before = [...series];
    series[2] = series[2]! - 1e-6;
    series[7] = series[7]! - 0.01;
    const d = await diffReports(fresh(), r);
    expect(d.changes).toHaveLength(1);
    expect(d.changes[0]).toMatchObject({ path: 'video.ssim.per_frame[7]', old: before[7], new: series[7], series: { frames_old: 12, frames_new: 12, differing: 2, first_frame: 2 } });
  });

  it('--tolerance and --rel-tolerance loosen numbers only, and only as far as asked', async () => {
    const r = fresh();
    const p = pair(r, 'measurement-r000-c001');
    p.video!.mae = p.video!.mae! + 1e-8;
    p.video!.psnr_db = p.video!.psnr_db! * (1 + 1e-7);
    p.case_id = 'renamed';
    const exact = await diffReports(fresh(), r);
    expect(exact.changes.map((c) => c.path)).toEqual(['case_id', 'video.psnr_db', 'video.mae']);
    const abs = await diffReports(fresh(), r, { tolerance: 1e-7 });
    expect(abs.changes.map((c) => c.path)).toEqual(['case_id', 'video.psnr_db']);
    const rel = await diffReports(fresh(), r, { relTolerance: 2e-7 });
    expect(rel.changes.map((c) => c.path)).toEqual(['case_id', 'video.mae']);
    expect((await diffReports(fresh(), r, { tolerance: 1e-7, relTolerance: 2e-7 })).changes.map((c) => c.path)).toEqual(['case_id']);
  });

  it('pairs, runs and metrics on one side only are listed and make the reports differ', async () => {
    const r = fresh();
    h100(r).pairs.pop();
    delete (pair(r, 'measurement-r000-c000').video as Record<string, unknown>).ssim_ffmpeg;
    pair(r, 'measurement-r000-c000').checks.pop();
    r.runs.push({ ...r.runs[2]!, run_id: 1, run_attempt: 1 });
    const d = await diffReports(fresh(), r);
    expect(d.unchanged).toBe(false);
    expect(d.pairs_only).toEqual([{ side: 'old', where: expect.objectContaining({ kind: 'pair', slot_id: 'measurement-r000-c009', case_id: 'ocean-waves-s29' }), path: null }]);
    expect(d.runs_only).toEqual([{ side: 'new', where: { kind: 'run', run: { run_id: 1, run_attempt: 1, gpu_model: 'H100' } }, path: null }]);
    expect(d.metrics_only.map((m) => `${m.side} ${m.path}`)).toEqual(['old video.ssim_ffmpeg', 'old checks[rms_ratio_deviation]']);
  });

  it('a pair invalid on one side has no metrics there: its status changes and its metrics are on one side only', async () => {
    const r = fresh();
    const p = pair(r, 'measurement-r000-c000');
    p.video = null;
    p.audio = null;
    const d = await diffReports(fresh(), r);
    expect(d.metrics_only.map((m) => `${m.side} ${m.path}`)).toEqual(['old video', 'old audio']);
  });

  it('noise p-values are compared when both sides were calibrated; one calibrated side is context', async () => {
    const calibrated = (p: number): Report => {
      const r = fresh();
      b200(r).noise = { alpha: 0.05, n: 6, metrics: ['ssim_min'], verdict_metrics: ['ssim_min'], valid_pairs: 7, beyond_pairs: 1, beyond_by_metric: { ssim_min: 1 }, binomial_p: 0.3, binomial_p_by_metric: { ssim_min: 0.3 }, note: null, sources: [] };
      pair(r, 'measurement-r000-c003').noise = { pair: { p, beyond: p < 0.05, k: 1 }, ssim_min: { p, beyond: p < 0.05, noise_worst: 0.99, n: 6 } } as unknown as NonNullable<Report['comparisons'][number]['pairs'][number]['noise']>;
      return r;
    };
    const one = await diffReports(fresh(), calibrated(0.01));
    expect(one.unchanged).toBe(true);
    expect(one.context).toEqual([{ path: 'noise', where: expect.objectContaining({ kind: 'comparison' }), old: null, new: { n: 6, alpha: 0.05 } }]);
    expect((await diffReports(calibrated(0.01), calibrated(0.01))).unchanged).toBe(true);
    const both = await diffReports(calibrated(0.01), calibrated(0.2));
    expect(both.changes.map((c) => c.path)).toEqual(['noise.pair.p', 'noise.pair.beyond', 'noise.ssim_min.p', 'noise.ssim_min.beyond']);
  });

  it('a different policy is context, and what it changed in the checks is a change', async () => {
    const r = fresh();
    r.policy.name = 'stricter';
    r.policy.checks[0]!.threshold = 0.999;
    for (const c of r.comparisons) for (const p of c.pairs) p.checks[0]!.threshold = 0.999;
    const d = await diffReports(fresh(), r);
    expect(d.context.map((c) => c.path)).toEqual(['policy.name', 'policy.checks[min_ssim].threshold']);
    expect(d.changes).toHaveLength(20);
    expect(new Set(d.changes.map((c) => c.path))).toEqual(new Set(['checks[min_ssim].threshold']));
  });
});

describe('diffReports: the plan', () => {
  it('another plan is named as a difference in how the runs were made (context, per run), not hidden among the values', async () => {
    const r = fresh();
    for (const run of r.runs) {
      run.plan_id = 'longer-clips';
      run.plan_sha256 = 'f'.repeat(64);
    }
    const d = await diffReports(fresh(), r);
    expect(d.changes).toEqual([]);
    expect(d.unchanged).toBe(true);
    const plan = d.context.filter((c) => c.path.startsWith('plan_'));
    expect(plan).toHaveLength(2 * r.runs.length);
    expect(plan[0]).toMatchObject({ path: 'plan_id', where: { kind: 'run' }, new: 'longer-clips' });
    expect(plan.map((c) => c.path)).toContain('plan_sha256');
  });
});

describe('diffReports: bundles and refusals', () => {
  it('reads a bundle only when its seal holds: a changed, missing or extra file is refused with the seal code', async () => {
    const good = bundle({ 'report.json': TEXT, 'index.html': '<!doctype html>' });
    const d = await diffReports(good, REFERENCE);
    expect(d.unchanged).toBe(true);
    expect(d.old).toMatchObject({ kind: 'bundle', sealed: true, files: 2 });

    const changed = bundle({ 'report.json': TEXT, 'index.html': 'x' });
    writeFileSync(path.join(changed, 'index.html'), 'y');
    const e1 = await refusal(diffReports(REFERENCE, changed));
    expect(e1.code).toBe('BUNDLE_FILE_CHANGED');
    expect(e1.problems[0]!.message).toMatch(/^new .*: index\.html changed/);

    const extra = bundle({ 'report.json': TEXT });
    writeFileSync(path.join(extra, 'planted.js'), '');
    expect((await refusal(diffReports(extra, REFERENCE))).code).toBe('BUNDLE_FILE_EXTRA');
    const noSeal = path.join(tmp, 'no-seal');
    mkdirSync(noSeal);
    writeFileSync(path.join(noSeal, 'report.json'), TEXT);
    expect((await refusal(diffReports(noSeal, REFERENCE))).code).toBe('BUNDLE_SEAL_MISSING');
    expect((await refusal(diffReports(bundle({ 'index.html': 'x' }), REFERENCE))).code).toBe('BUNDLE_REPORT_MISSING');
  });

  it('refuses a report.json that is missing, too large, not JSON, strict-JSON faulty, off-schema or ambiguous', async () => {
    const code = async (p: Promise<unknown>) => (await refusal(p)).code;
    expect(await code(diffReports(path.join(tmp, 'absent.json'), REFERENCE))).toBe('DIFF_INPUT_NOT_FOUND');
    expect(await code(diffReports(REFERENCE, REFERENCE, { maxReportBytes: 1000 }))).toBe('DIFF_REPORT_TOO_LARGE');
    expect(await code(diffReports(file('{"schema_version": 1'), REFERENCE))).toBe('DIFF_REPORT_INVALID');
    expect(await code(diffReports(file(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(TEXT)])), REFERENCE))).toBe('DIFF_REPORT_INVALID');
    expect(await code(diffReports(file(TEXT.replace('"schema_version": 1,', '"schema_version": 1,\n  "schema_version": 1,')), REFERENCE))).toBe('DIFF_REPORT_INVALID');
    expect(await code(diffReports(file(`${'['.repeat(100)}${']'.repeat(100)}`), REFERENCE))).toBe('DIFF_REPORT_INVALID');
    const offSchema = fresh() as unknown as { comparisons: { pairs: { status: string }[] }[] };
    offSchema.comparisons[0]!.pairs[0]!.status = 'great';
    const e = await refusal(diffReports(file(JSON.stringify(offSchema)), REFERENCE));
    expect(e.code).toBe('DIFF_REPORT_INVALID');
    expect(e.message).toContain('comparisons.0.pairs.0.status');
    const twice = fresh();
    b200(twice).pairs.push(b200(twice).pairs[0]!);
    expect((await refusal(diffReports(REFERENCE, twice))).message).toContain('repeats slot measurement-r000-c000');
    expect(await code(diffReports(REFERENCE, REFERENCE, { tolerance: -1 }))).toBe('INVALID_ARGUMENT');
    expect(await code(diffReports(REFERENCE, REFERENCE, { relTolerance: Number.NaN }))).toBe('INVALID_ARGUMENT');
  });
});

describe('diffReports: hostile field names and sizes', () => {

  /** The reference with `name: value` as an own field of the first B200 pair (defineProperty: `__proto__` too is an own field, as in a file). */
  function withField(name: string, value: unknown): string {
    const r = fresh();
    Object.defineProperty(pair(r, 'measurement-r000-c000'), name, { value, enumerable: true, configurable: true, writable: true });
    const text = JSON.stringify(r);
    expect(text).toContain(`"${name}":`);
    return file(text);
  }

  it('a field named constructor, toString, hasOwnProperty or __proto__ on one side only is a metric on that side only, whichever side', async () => {
    for (const name of ['constructor', 'toString', 'hasOwnProperty', '__proto__']) {
      const f = withField(name, { x: 1 });
      for (const [a, b, side] of [[f, REFERENCE, 'old'], [REFERENCE, f, 'new']] as const) {
        const d = await diffReports(a, b);
        expect(d.unchanged, `${name} ${side}`).toBe(false);
        expect(d.metrics_only.map((m) => [m.side, m.path, m.where.kind === 'pair' && m.where.slot_id]), `${name} ${side}`).toEqual([[side, name, 'measurement-r000-c000']]);
        expect(d.changes, `${name} ${side}`).toEqual([]);
      }
    }
  });

  it('the same field named constructor or __proto__ on both sides is compared as a value', async () => {
    for (const name of ['constructor', '__proto__']) {
      const a = withField(name, 1);
      const b = withField(name, 2);
      const d = await diffReports(a, b);
      expect(d.changes.map((c) => [c.path, c.old, c.new, c.delta]), name).toEqual([[name, 1, 2, 1]]);
      expect((await diffReports(a, withField(name, 1))).unchanged, name).toBe(true);
    }
  });

  it('a difference beyond the largest double has delta null (never Infinity)', async () => {
    const [a, b] = [fresh(), fresh()];
    pair(a, 'measurement-r000-c002').video!.psnr_db = -1e308;
    pair(b, 'measurement-r000-c002').video!.psnr_db = 1e308;
    const d = await diffReports(a, b);
    const c = d.changes.find((x) => x.path === 'video.psnr_db')!;
    expect([c.old, c.new, c.delta]).toEqual([-1e308, 1e308, null]);
    expect(JSON.parse(JSON.stringify(d)).changes.find((x: { path: string }) => x.path === 'video.psnr_db').delta).toBeNull();
    // A finite difference keeps its delta.
    pair(b, 'measurement-r000-c002').video!.psnr_db = 1e307;
    expect((await diffReports(a, b)).changes.find((x) => x.path === 'video.psnr_db')!.delta).toBe(1e307 + 1e308);
  });

  it('200,000 differing entries and deep nesting in a report value neither overflow the stack nor pass: changes, or DIFF_REPORT_INVALID', async () => {
    const [a, b] = [fresh(), fresh()] as unknown as Record<string, unknown>[];
    const many = (v: number): Record<string, number> => Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`k${i}`, v]));
    (pair(a as unknown as Report, 'measurement-r000-c003') as unknown as Record<string, unknown>).extra = many(0);
    (pair(b as unknown as Report, 'measurement-r000-c003') as unknown as Record<string, unknown>).extra = many(1);
    const d = await diffReports(a as unknown as Report, b as unknown as Report);
    expect(d.changes.length).toBe(200_000);
    expect(d.changes[199_999]).toMatchObject({ path: 'extra.k199999', old: 0, new: 1, delta: 1 });
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = { d: deep };
    const c = fresh() as unknown as Record<string, unknown>;
    (pair(c as unknown as Report, 'measurement-r000-c003') as unknown as Record<string, unknown>).extra = deep;
    expect((await refusal(diffReports(REFERENCE, c as unknown as Report))).code).toBe('DIFF_REPORT_INVALID');
  });
});
