/**
 * compare() with a metric set, end to end on generated runs: the set is
 * recorded, only its metrics are in report.json, the CSV and the pages, a
 * policy check on a metric the set does not compute is refused before any
 * work, and shards of one set merge to the one-machine bundle while
 * partials of different sets are refused.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyBundle } from '../src/bundle-check/verify.js';
import { compare } from '../src/compare.js';
import type { CompareResult } from '../src/comparison/types.js';
import { FidelityError } from '../src/errors.js';
import { METRIC_SETS } from '../src/metrics/names.js';
import { DEFAULT_POLICY } from '../src/policy/default.js';
import { checkPolicyMetrics, examplePolicyFor } from '../src/policy/metric-set.js';
import { Report } from '../src/schemas/report.js';
import { merge } from '../src/shard/merge.js';
import { ShardPartial } from '../src/shard/schema.js';
import type { GeneratedRuns } from '../src/synth/index.js';
import { smallRuns } from '../../../test/shared/fixtures.js';
import { snapshot } from '../../../test/e2e/helpers.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-metrics-'));
const at = (...p: string[]) => path.join(tmp, ...p);
const saved = process.env.SOURCE_DATE_EPOCH;
let runs: GeneratedRuns;
const dir = (site: string) => runs.runs.find((r) => r.site === site)!.dir;
const bundles: Record<string, CompareResult> = {};


async function refused(p: Promise<unknown>): Promise<FidelityError> {
  const error = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FidelityError);
  return error as FidelityError;
}

beforeAll(async () => {
  process.env.SOURCE_DATE_EPOCH = '1764450000';
  // The shared small runs (two plan cases: an identical pair and a noisy one), read only.
  runs = await smallRuns();
  for (const set of ['ffmpeg', 'default', 'all'] as const) {
    bundles[set] = await compare(dir('H200'), [dir('B200')], { out: at(`bundle-${set}`), threads: 2, metrics: set });
  }
}, 600_000);
afterAll(() => {
  if (saved === undefined) delete process.env.SOURCE_DATE_EPOCH;
  else process.env.SOURCE_DATE_EPOCH = saved;
  rmSync(tmp, { recursive: true, force: true });
});

const measuredPairs = (r: CompareResult) => r.report.comparisons.flatMap((c) => c.pairs).filter((p) => p.video);

describe('compare() with a metric set', () => {
  it('records the set in report.json and writes only its metrics, with the `all` set\'s values', () => {
    for (const [set, result] of Object.entries(bundles)) {
      const report = Report.parse(JSON.parse(readFileSync(at(`bundle-${set}`, 'report.json'), 'utf8')));
      expect(report.metrics).toEqual({ set, list: [...METRIC_SETS[set as keyof typeof METRIC_SETS]] });
      const pairs = measuredPairs(result);
      expect(pairs.length).toBeGreaterThan(0);
      const allPairs = measuredPairs(bundles['all']!);
      pairs.forEach((p, i) => {
        const rgbFields = ['rgb_conversion', 'rgb_matrix', 'rgb_range'];
        const fields = Object.keys(p.video!).filter((k) => !['width', 'height', 'frames', 'identical', 'temporal_offset', ...rgbFields].includes(k)).sort();
        // The temporal offset diagnosis is no metric of a set: every set has it for video that differs, the same bits.
        expect(p.video!.temporal_offset === undefined, set).toBe(p.video!.identical);
        expect(JSON.stringify(p.video!.temporal_offset), set).toBe(JSON.stringify(allPairs[i]!.video!.temporal_offset));
        expect(fields, set).toEqual(METRIC_SETS[set as keyof typeof METRIC_SETS].filter((n) => n !== 'audio').sort());
        // How rgb24 was made, exactly when the set reads it (not for `ffmpeg`).
        expect(rgbFields.map((f) => (p.video as Record<string, unknown>)[f]), set).toEqual(set === 'ffmpeg' ? [undefined, undefined, undefined] : ['fidelity', 'bt601', 'limited']);
        for (const f of fields) expect(JSON.stringify((p.video as Record<string, unknown>)[f])).toBe(JSON.stringify((allPairs[i]!.video as Record<string, unknown>)[f]));
        expect('audio' in p, set).toBe(set !== 'ffmpeg');
        // InferenceX's figures in every set that computes psnr_db, mae and audio, the same bytes as `all`'s.
        expect('inferencex' in p, set).toBe(set !== 'ffmpeg');
        if (set !== 'ffmpeg') expect(JSON.stringify(p.inferencex), set).toBe(JSON.stringify(allPairs[i]!.inferencex));
      });
    }
  });

  it('with the example policy, switches off the checks the set cannot judge', () => {
    const ffmpeg = bundles['ffmpeg']!.report;
    expect(ffmpeg.policy.checks.every((c) => !c.enabled)).toBe(true);
    for (const p of measuredPairs(bundles['ffmpeg']!)) expect(p.checks.map((c) => c.note)).toEqual(['disabled', 'disabled', 'disabled', 'disabled']);
    expect(bundles['default']!.report.policy).toEqual(DEFAULT_POLICY);
    expect(examplePolicyFor(DEFAULT_POLICY, { set: 'inferencex', list: [...METRIC_SETS.inferencex] }).checks.map((c) => c.enabled)).toEqual([false, true, true, true]);
  });

  it('the CSV and the pages show only the computed metrics, and the bundles verify', async () => {
    const csvHeader = (set: string): string => {
      const pair = measuredPairs(bundles[set]!)[0]!;
      return readFileSync(at(`bundle-${set}`, pair.files['frames_csv']!), 'utf8').split('\n')[0]!;
    };
    expect(csvHeader('ffmpeg')).toBe('frame,ssim_ffmpeg_y,ssim_ffmpeg_u,ssim_ffmpeg_v,ssim_ffmpeg_all,psnr_y');
    expect(csvHeader('default')).toBe('frame,ssim,ssim_ffmpeg_y,ssim_ffmpeg_u,ssim_ffmpeg_v,ssim_ffmpeg_all,psnr_y');
    expect(csvHeader('all')).toBe('frame,ssim,ssim_ffmpeg_y,ssim_ffmpeg_u,ssim_ffmpeg_v,ssim_ffmpeg_all,ssim_rgb7,psnr_y');
    const page = (set: string) => readFileSync(at(`bundle-${set}`, 'index.html'), 'utf8');
    expect(page('all')).toContain('SSIM (RGB, 7×7 uniform)');
    expect(page('default')).not.toContain('SSIM (RGB, 7×7 uniform)');
    expect(page('ffmpeg')).not.toContain('SSIM (Gaussian 11×11, Y)');
    expect(page('ffmpeg')).not.toContain('PSNR pooled over RGB');
    expect(page('ffmpeg')).toContain('<dt>Metric set (--metrics)</dt><dd><code>ffmpeg</code> (<code>ssim_ffmpeg</code>, <code>psnr_y</code>)</dd>');
    // Without the Gaussian SSIM, the chart shows FFmpeg's All and says so.
    expect(page('ffmpeg')).toContain('Per-frame SSIM: SSIM (FFmpeg, All)');
    for (const set of Object.keys(bundles)) expect((await verifyBundle(at(`bundle-${set}`))).errors).toEqual([]);
  });

  it('refuses a policy check on a metric the set does not compute, before any run is read', async () => {
    // The runs do not exist: the refusal comes first, and --out is never created.
    const e = await refused(compare(at('nowhere-a'), [at('nowhere-b')], { out: at('never'), metrics: 'ffmpeg', policy: DEFAULT_POLICY }));
    expect(e.code).toBe('POLICY_METRIC_NOT_COMPUTED');
    expect(e.problems.map((p) => p.where?.path)).toEqual(['checks[0].metric', 'checks[1].metric', 'checks[2].metric', 'checks[3].metric']);
    expect(e.message).toContain('video.ssim.min');
    expect(existsSync(at('never'))).toBe(false);
    const rgb7 = { ...DEFAULT_POLICY, checks: [{ ...DEFAULT_POLICY.checks[0]!, metric: 'video.ssim_rgb7.min' }] };
    expect((await refused(compare(at('nowhere-a'), [at('nowhere-b')], { out: at('never'), policy: rgb7 }))).code).toBe('POLICY_METRIC_NOT_COMPUTED');
    // A disabled check reads nothing: accepted; so is the same check with a set that computes it.
    expect(() => checkPolicyMetrics({ ...rgb7, checks: [{ ...rgb7.checks[0]!, enabled: false }] }, { set: 'default', list: [...METRIC_SETS.default] })).not.toThrow();
    expect(() => checkPolicyMetrics(rgb7, { set: 'all', list: [...METRIC_SETS.all] })).not.toThrow();
    expect((await refused(compare(at('nowhere-a'), [at('nowhere-b')], { out: at('never'), metrics: 'ssim,bogus' }))).code).toBe('INVALID_ARGUMENT');
  });

  it('shards of one set carry it and merge to the one-machine bundle; partials of two sets are refused', async () => {
    for (let k = 0; k < 2; k++) await compare(dir('H200'), [dir('B200')], { out: at('p-ffmpeg', String(k)), shard: { index: k, count: 2 }, metrics: 'ffmpeg' });
    const partial = ShardPartial.parse(JSON.parse(readFileSync(at('p-ffmpeg', '0', 'partial.json'), 'utf8')));
    expect(partial.metrics).toEqual({ set: 'ffmpeg', list: ['ssim_ffmpeg', 'psnr_y'] });
    // Every pair re-measured: the bundle is then compare's, byte for byte (docs/scale-out.md, "Trust").
    await merge(dir('H200'), [dir('B200')], { partials: [at('p-ffmpeg')], out: at('merged-ffmpeg'), remeasure: 'all' });
    expect(snapshot(at('merged-ffmpeg'))).toEqual(snapshot(at('bundle-ffmpeg')));

    // Shard 1 again with another set (whose example policy is the same): only the set differs.
    await compare(dir('H200'), [dir('B200')], { out: at('p-mixed', '0'), shard: { index: 0, count: 2 }, metrics: 'ffmpeg' });
    await compare(dir('H200'), [dir('B200')], { out: at('p-mixed', '1'), shard: { index: 1, count: 2 }, metrics: 'ssim_ffmpeg,psnr_y,ssim_rgb7' });
    const e = await refused(merge(dir('H200'), [dir('B200')], { partials: [at('p-mixed')], out: at('merged-mixed') }));
    expect(e.problems.map((p) => p.code)).toEqual(['PARTIAL_METRICS_MISMATCH']);
    expect(e.problems[0]!.message).toMatch(/--metrics ffmpeg in .*--metrics ssim_ffmpeg,ssim_rgb7,psnr_y in /);
    expect(existsSync(at('merged-mixed'))).toBe(false);
  }, 600_000);
});
