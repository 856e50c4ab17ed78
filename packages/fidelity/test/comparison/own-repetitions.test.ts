/**
 * The baseline's own repetitions measured (compare's and merge's `repeatability`; docs/report.md,
 * "Repeated requests"), on runs that repeat 3 cases twice and whose baseline's own repetitions of
 * one case differ (repetition-runs.ts). A policy stricter than the example (min SSIM >= 0.999)
 * makes B200's light noise on that case fail, so the pages list it with the baseline's own figure
 * beside it.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyBundle } from '../../src/bundle-check/verify.js';
import { caseText } from '../../src/ci/format.js';
import { junitXml, xmlAttr } from '../../src/ci/junit.js';
import { jobSummary, mdCode } from '../../src/ci/summary.js';
import { compare } from '../../src/compare.js';
import { judgePair } from '../../src/comparison/assemble.js';
import { measureMediaJobs, mediaSpecOf } from '../../src/comparison/measure.js';
import { FidelityError } from '../../src/errors.js';
import type { MediaPlanSpec } from '../../src/media/plan-conformance.js';
import { num } from '../../src/pages/format.js';
import { DEFAULT_POLICY } from '../../src/policy/default.js';
import type { Policy } from '../../src/schemas/policy.js';
import { Report, type CaseView } from '../../src/schemas/report.js';
import { merge } from '../../src/shard/merge.js';
import { snapshot } from '../../../../test/e2e/helpers.js';
import { DIFFERING, IDENTICAL, repetitionRuns } from './repetition-runs.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-own-repetitions-'));
const at = (...p: string[]) => path.join(tmp, ...p);
/** One generated_at for every bundle, so that merge's can be compare's byte for byte. */
const generatedAt = new Date(Date.UTC(2025, 11, 1));
/** The example policy with a min SSIM floor the rerun's noise and B200's light noise both fall below. */
const STRICT: Policy = { ...DEFAULT_POLICY, name: 'strict-test', checks: DEFAULT_POLICY.checks.map((c) => (c.name === 'min_ssim' ? { ...c, threshold: 0.999 } : c)) };
let runs: { base: string; cand: string };
let on: Report;
let off: Report;

const caseOf = (report: Report, id: string): CaseView => report.comparisons[0]!.cases.find((c) => c.case_id === id)!;
const read = (dir: string): Report => Report.parse(JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8')));

beforeAll(async () => {
  runs = await repetitionRuns(at('runs'), 3);
  on = (await compare(runs.base, [runs.cand], { out: at('on'), threads: 2, policy: STRICT, generatedAt, repeatability: true })).report;
  off = (await compare(runs.base, [runs.cand], { out: at('off'), threads: 2, policy: STRICT, generatedAt })).report;
}, 600_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('compare({ repeatability })', () => {
  it('measures a repetition whose bytes differ against repetition 0, with the figures of measuring those two files as a pair', async () => {
    const view = caseOf(on, DIFFERING);
    expect(view.own_repetitions).toEqual({ baseline: 'differ', candidate: 'identical' });
    const measured = view.own_repetitions_measured!;
    expect(measured.repetitions).toHaveLength(1);
    const rep = measured.repetitions[0]!;
    expect(rep).toMatchObject({ repetition: 1, slot_id: 'measurement-r001-c001', against_repetition: 0, against_slot_id: 'measurement-r000-c001', reasons: [] });
    // The two files measured on their own, in the pool, and judged by the same policy.
    const spec = mediaSpecOf(JSON.parse(readFileSync(path.join(runs.base, 'plan.json'), 'utf8')) as MediaPlanSpec);
    const job = { id: 'own', baseline: async () => path.join(runs.base, 'media', 'measurement-r000-c001.mp4'), candidate: async () => path.join(runs.base, 'media', 'measurement-r001-c001.mp4') };
    const outcome = (await measureMediaJobs([job], spec.video.frames, { threads: 1, metrics: on.metrics!.list, plan: spec })).get('own')!;
    expect(outcome.ok).toBe(true);
    const verdict = judgePair(outcome, STRICT);
    expect(rep.checks).toEqual(verdict.checks);
    expect(rep.status).toBe(verdict.status);
    // The rerun's noise: below the strict floor, well above the example's 0.92.
    const ssim = rep.checks.find((c) => c.name === 'min_ssim')!;
    expect(ssim.value!).toBeGreaterThan(0.92);
    expect(ssim.value!).toBeLessThan(0.999);
    expect(rep.status).toBe('failed');
    expect(outcome.ok && outcome.measurement.video.ssim!.min).toBe(ssim.value);
    // One repetition measured: its figures are the worst, check by check, in the policy's order.
    expect(measured.worst).toEqual(rep.checks.filter((c) => c.outcome === 'pass' || c.outcome === 'fail').map((c) => ({ check: c.name, value: c.value, repetition: 1, slot_id: rep.slot_id })));
    expect(measured.worst.map((w) => w.check)).toEqual(['min_ssim', 'video_psnr_db', 'spectral_cosine', 'rms_ratio_deviation']);
  }, 120_000);

  it('does not measure bit-identical repetitions: they say so, with no figures', () => {
    const view = caseOf(on, IDENTICAL);
    expect(view.own_repetitions!.baseline).toBe('identical');
    expect(view.own_repetitions_measured).toEqual({
      repetitions: [{ repetition: 1, slot_id: 'measurement-r001-c000', against_repetition: 0, against_slot_id: 'measurement-r000-c000', status: 'identical', reasons: [], checks: [] }],
      worst: [],
    });
  });

  it('is a diagnosis: the pairs, summaries and case verdicts are those of a report without it, which has no such field', () => {
    for (const c of off.comparisons) for (const v of c.cases) expect(v).not.toHaveProperty('own_repetitions_measured');
    const stripped = structuredClone(on);
    for (const c of stripped.comparisons) for (const v of c.cases) delete v.own_repetitions_measured;
    expect(stripped).toEqual(off);
    expect(on.comparisons[0]!.cases.every((v) => v.own_repetitions_measured !== undefined)).toBe(true);
  });

  it('shows the figure beside the cross-hardware finding on both pages, with the same number', async () => {
    // The pages with the new lines pass verify-bundle's scan (links, policy, markup) as every bundle must.
    expect((await verifyBundle(at('on'))).ok).toBe(true);
    const worst = caseOf(on, DIFFERING).own_repetitions_measured!.worst.find((w) => w.check === 'min_ssim')!.value!;
    const figure = num(worst, 6, '');
    const text = (file: string): string => readFileSync(at('on', file), 'utf8').replace(/<[^>]+>/g, '').replace(/&#39;/g, "'");
    const en = text('index.html');
    expect(en).toMatch(new RegExp(`spoken-greeting-s29 on B200: failed in 2 of 2 repetitions, [^\\n]*H200's own repetitions: differ: min SSIM ${figure.replace('.', '\\.')}`));
    expect(en).toContain(`H200's own repetitions, each against its repetition 0`);
    const zh = text('index.zh.html');
    expect(zh).toContain(`H200 自身的各次重复：不同：最小 SSIM ${figure}`);
    expect(zh).toContain('H200 自身的各次重复，各自对比其第 0 次重复');
    // Without the option the line says only that they differ.
    expect(readFileSync(at('off', 'index.html'), 'utf8').replace(/<[^>]+>/g, '').replace(/&#39;/g, "'")).toContain("H200's own repetitions: differ");
    expect(readFileSync(at('off', 'index.html'), 'utf8')).not.toContain('own repetitions: differ: ');
  });

  it('puts the worst figures in the JUnit and job summary case line', () => {
    const line = caseText(caseOf(on, DIFFERING));
    const worst = caseOf(on, DIFFERING).own_repetitions_measured!.worst;
    expect(line).toContain(`baseline's own repetitions differ: min_ssim ${Number(worst[0]!.value!.toPrecision(6))}, video_psnr_db `);
    expect(caseText(caseOf(on, IDENTICAL))).toMatch(/baseline's own repetitions identical$/);
    expect(caseText(caseOf(off, DIFFERING))).toMatch(/baseline's own repetitions differ$/);
    // The JUnit case property and the job summary's case row carry that line.
    expect(junitXml(on)).toContain(`<property name="case.${DIFFERING}" value="${xmlAttr(`failed: ${line}`)}"/>`);
    expect(jobSummary(on, null)).toContain(`| ${mdCode('B200')} | ${mdCode(DIFFERING)} | failed | ${line} |`);
  });
});

describe('repeatability and scale-out', () => {
  it('is refused with a shard, before anything is written', async () => {
    const error = await compare(runs.base, [runs.cand], { out: at('partial-refused'), shard: { index: 0, count: 2 }, repeatability: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FidelityError);
    expect((error as FidelityError).code).toBe('INVALID_ARGUMENT');
    expect((error as FidelityError).message).toContain('options.repeatability');
    expect(existsSync(at('partial-refused'))).toBe(false);
  });

  it("merge({ repeatability }) of 2 shards writes compare's bundle byte for byte", async () => {
    for (const k of [0, 1]) await compare(runs.base, [runs.cand], { out: at('parts', String(k)), shard: { index: k, count: 2 }, threads: 1, policy: STRICT });
    await merge(runs.base, [runs.cand], { partials: [at('parts')], out: at('merged'), remeasure: 'all', threads: 1, policy: STRICT, generatedAt, repeatability: true });
    expect(snapshot(at('merged'))).toEqual(snapshot(at('on')));
    expect(read(at('merged'))).toEqual(on);
  }, 300_000);
});
