/**
 * calibrate() and compare({ calibration }) on real generated runs: an H200
 * run, its rerun (H200R: nondeterminism-sized differences on some cases) and
 * a B200 candidate, with repetitions. Every verdict in the report is
 * recomputed here from the calibration file's values, by definition.
 *
 * The generated runs are the run's shared data (test/shared/fixtures.ts): generated once per
 * test run, read here (and by packages/cli/test/calibrate-command.test.ts).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calibrate, calibratedPolicy } from '../../src/calibrate/calibrate.js';
import { loadCalibration } from '../../src/calibrate/load.js';
import { CALIBRATED_METRICS } from '../../src/calibrate/metrics.js';
import type { Calibration } from '../../src/calibrate/schema.js';
import { verifyBundle } from '../../src/bundle-check/verify.js';
import { compare } from '../../src/compare.js';
import type { GeneratedRuns } from '../../src/synth/index.js';
import type { Report } from '../../src/schemas/report.js';
import { archivedRuns, generatedRuns, smallRuns } from '../../../../test/shared/fixtures.js';

const inf = (v: number | null): number => (v === null ? Infinity : v);
const oracleP = (v: number | null, s: readonly (number | null)[], worse: string): number =>
  (1 + s.filter((x) => (worse === 'lower' ? inf(x) <= inf(v) : inf(x) >= inf(v))).length) / (s.length + 1);

let root: string;
let reps2: GeneratedRuns; // H200, B200, H200R; 2 repetitions; folders
let folders: GeneratedRuns; // H200, B200, H200R; 1 repetition; folders
let zips: GeneratedRuns; // the same as zip
let tars: GeneratedRuns; // the same as tar.gz
const dir = (g: GeneratedRuns, site: string): string => g.runs.find((r) => r.site === site)!.dir;
let cal: Calibration;

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'fidelity-calibrate-'));
  reps2 = await generatedRuns({ sites: ['H200', 'B200', 'H200R'], repetitions: 2 });
  // The one-repetition runs of the CLI's calibrate tests, and the same packed (H200 and H200R are used).
  folders = await generatedRuns({ sites: ['H200', 'B200', 'H200R'] });
  zips = await archivedRuns({ sites: ['H200', 'B200', 'H200R'] }, 'zip');
  tars = await archivedRuns({ sites: ['H200', 'B200', 'H200R'] }, 'tar.gz');
  cal = (await calibrate([dir(reps2, 'H200R'), dir(reps2, 'H200')], { generatedAt: new Date(0) })).calibration;
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe('calibrate()', () => {
  it('measures every same-hardware pair: 2 runs x 10 cases x 1 repetition pair, plus 2 x 10 rerun pairs', () => {
    expect(cal.n).toBe(40);
    expect(cal.pairs.filter((p) => p.kind === 'repetition')).toHaveLength(20);
    expect(cal.pairs.filter((p) => p.kind === 'rerun')).toHaveLength(20);
    expect(cal.excluded).toEqual([]);
    expect(cal.warmups_ignored).toBe(2);
    expect(cal.hardware).toEqual(['H200 x2']);
    // Older run first, whatever the order given.
    expect(cal.sources.map((s) => s.run_id)).toEqual([...cal.sources.map((s) => s.run_id)].sort((a, b) => a - b));
    for (const m of CALIBRATED_METRICS) {
      const values = cal.metrics[m.key]!.values;
      expect(values, m.key).toHaveLength(40);
      const finite = values.filter((v): v is number => v !== null);
      expect(finite).toEqual([...finite].sort((a, b) => a - b));
      expect(values.slice(finite.length).every((v) => v === null)).toBe(true);
    }
  });

  it('sees the nondeterminism of the rerun: some pairs below SSIM 1, the repetitions identical', () => {
    const ssim = cal.metrics['video.ssim.min']!.values as number[];
    expect(ssim.filter((v) => v < 1).length).toBeGreaterThan(0);
    expect(ssim[0]).toBeGreaterThan(0.95);
    expect(ssim.filter((v) => v === 1).length).toBeGreaterThanOrEqual(20);
    expect(cal.ssim_floor_per_frame).toHaveLength(12);
    expect(Math.min(...cal.ssim_floor_per_frame)).toBe(ssim[0]);
  });

  it('gives the same values as compare() for the same pairs (one code path), on zip and tar.gz runs alike', async () => {
    // One calibration reads the zip baseline and the tar.gz rerun, compare() the same runs as folders:
    // a reader of either archive that changed a single value would make the two differ.
    const fromArchives = (await calibrate([dir(zips, 'H200'), dir(tars, 'H200R')])).calibration;
    expect(fromArchives.n).toBe(10);
    expect(fromArchives.sources.map((s) => s.source.kind).sort()).toEqual(['tar.gz', 'zip']);
    const out = path.join(root, 'cmp-folders');
    const { report } = await compare(dir(folders, 'H200'), [dir(folders, 'H200R')], { out });
    for (const m of CALIBRATED_METRICS) {
      const fromCompare = report.comparisons[0]!.pairs.map((p) => m.read({ video: p.video!, audio: p.audio }));
      const sorted = [...fromCompare].sort((a, b) => inf(a as number | null) - inf(b as number | null));
      expect(fromArchives.metrics[m.key]!.values, m.key).toEqual(sorted);
    }
  });

  it('refuses a run given twice, runs of two workloads, and runs that form no pair', async () => {
    await expect(calibrate([dir(reps2, 'H200'), dir(reps2, 'H200')])).rejects.toMatchObject({ code: 'DUPLICATE_RUN' });
    await expect(calibrate([dir(reps2, 'H200'), dir(zips, 'H200R')])).rejects.toMatchObject({ code: 'PLAN_MISMATCH' });
    await expect(calibrate([dir(zips, 'H200')])).rejects.toMatchObject({ code: 'CALIBRATION_NO_PAIRS' });
  });
});

describe('compare({ calibration })', () => {
  let report: Report;
  let out: string;
  beforeAll(async () => {
    out = path.join(root, 'calibrated');
    report = (await compare(dir(reps2, 'H200'), [dir(reps2, 'B200')], { out, calibration: cal })).report;
  });

  it('gives every valid pair a p-value per metric that matches its definition, and none to invalid pairs', () => {
    const c = report.comparisons[0]!;
    let checked = 0;
    for (const p of c.pairs) {
      if (p.status === 'invalid') {
        expect(p.noise).toBeUndefined();
        continue;
      }
      for (const m of CALIBRATED_METRICS) {
        const v = m.read({ video: p.video!, audio: p.audio });
        const got = p.noise![m.key] as { p: number; beyond: boolean | null; noise_worst: number | null } | undefined;
        if (v === undefined) {
          expect(got).toBeUndefined();
          continue;
        }
        const s = cal.metrics[m.key]!.values;
        expect(got!.p, `${p.slot_id} ${m.key}`).toBe(oracleP(v, s, m.worse));
        expect(got!.beyond).toBe(got!.p <= 0.05);
        checked++;
      }
      // Bonferroni over the metrics the example policy judges that the pair has.
      const judged = ['video.ssim.min', 'video.psnr_db', 'audio.spectral_cosine', 'audio.rms_ratio_deviation'].filter((k) => p.noise![k]);
      const ps = judged.map((k) => (p.noise![k] as { p: number }).p);
      expect(p.noise!.pair.k).toBe(judged.length);
      expect(p.noise!.pair.p).toBeCloseTo(Math.min(1, judged.length * Math.min(...ps)), 15);
    }
    expect(checked).toBeGreaterThan(50);
  });

  it('counts pairs beyond noise per metric, with the binomial tail, and says why no pair verdict is possible at n = 40', () => {
    const noise = report.comparisons[0]!.noise!;
    expect(noise.n).toBe(40);
    expect(noise.alpha).toBe(0.05);
    const valid = report.comparisons[0]!.pairs.filter((p) => p.noise);
    expect(noise.valid_pairs).toBe(valid.length);
    const ssimBeyond = valid.filter((p) => (p.noise!['video.ssim.min'] as { beyond: boolean }).beyond).length;
    expect(noise.beyond_by_metric['video.ssim.min']).toBe(ssimBeyond);
    // Heavy noise and blur on B200 are far outside the rerun's noise.
    expect(ssimBeyond).toBeGreaterThan(0);
    // 4 judged metrics need p <= 0.0125: n >= 79.
    expect(noise.note).toMatch(/n >= 79/);
    expect(noise.beyond_pairs).toBe(0);
  });

  it('seals the calibration into the bundle, which verify-bundle accepts', async () => {
    expect(JSON.parse(await readFile(path.join(out, 'calibration.json'), 'utf8'))).toEqual(cal);
    expect((await readFile(path.join(out, 'SHA256SUMS'), 'utf8')).includes('  calibration.json\n')).toBe(true);
    expect((await verifyBundle(out)).ok).toBe(true);
  });

  it('refuses a calibration of another decoder, workload or hardware class, before measuring', async () => {
    const other = { ...cal, decoder: { ...cal.decoder, sha256: 'f'.repeat(64) } };
    await expect(compare(dir(reps2, 'H200'), [dir(reps2, 'B200')], { out: path.join(root, 'x1'), calibration: other })).rejects.toMatchObject({ code: 'CALIBRATION_MISMATCH_DECODER' });
    await expect(compare(dir(zips, 'H200'), [dir(zips, 'H200R')], { out: path.join(root, 'x2'), calibration: cal })).rejects.toMatchObject({ code: 'CALIBRATION_MISMATCH_PLAN' });
    await expect(compare(dir(reps2, 'B200'), [dir(reps2, 'H200')], { out: path.join(root, 'x3'), calibration: cal })).rejects.toMatchObject({ code: 'CALIBRATION_MISMATCH_HARDWARE' });
    await expect(compare(dir(reps2, 'H200'), [dir(reps2, 'B200')], { out: path.join(root, 'x4'), calibration: { ...cal, definitions_version: 0 } as unknown as Calibration })).rejects.toMatchObject({ code: 'CALIBRATION_INVALID' });
  });

  it('refuses a calibration file made with version 1 definitions (its noise floor is of other numbers), and one of a newer version', async () => {
    expect(cal.definitions_version).toBe(2);
    const file = path.join(root, 'calibration-v1.json');
    await writeFile(file, JSON.stringify({ ...cal, definitions_version: 1 }));
    // What compare --calibration does: the file is read (any version parses), then matched.
    const loaded = await loadCalibration(file);
    expect(loaded.definitions_version).toBe(1);
    const old = compare(dir(reps2, 'H200'), [dir(reps2, 'B200')], { out: path.join(root, 'x5'), calibration: loaded });
    await expect(old).rejects.toMatchObject({ code: 'CALIBRATION_DEFINITIONS_OUTDATED' });
    await expect(old).rejects.toThrow(/definitions version 1, this tool uses 2/);
    await expect(compare(dir(reps2, 'H200'), [dir(reps2, 'B200')], { out: path.join(root, 'x6'), calibration: { ...cal, definitions_version: 3 } })).rejects.toMatchObject({ code: 'CALIBRATION_MISMATCH_DEFINITIONS' });
    // Refused before anything is written.
    expect(existsSync(path.join(root, 'x5'))).toBe(false);
  });
});

describe('a calibrated policy', () => {
  it('sets each threshold to the worst same-hardware value and says where it came from', async () => {
    const policy = calibratedPolicy(cal);
    expect(policy.calibration_status).toBe('calibrated');
    expect(policy.calibration?.n).toBe(40);
    const ssim = policy.checks.find((c) => c.name === 'min_ssim')!;
    expect(ssim.threshold).toBe(cal.metrics['video.ssim.min']!.values[0]);
    const rms = policy.checks.find((c) => c.name === 'rms_ratio_deviation')!;
    expect(rms.threshold).toBe(cal.metrics['audio.rms_ratio_deviation']!.values.at(-1));
    // Every rerun pair is identical in PSNR terms only when no pair differs: here some do, so the floor is finite.
    expect(Number.isFinite(policy.checks.find((c) => c.name === 'video_psnr_db')!.threshold)).toBe(true);
    // What the report takes from the policy does not depend on the runs' size: the smallest H200 and B200 runs do.
    const small = await smallRuns();
    const { report } = await compare(dir(small, 'H200'), [dir(small, 'B200')], { out: path.join(root, 'with-policy'), policy });
    expect(report.policy.calibration_status).toBe('calibrated');
    expect(report.disclaimer).toMatch(/calibrated by fidelity .* from n = 40 same-hardware pairs/);
    expect(report.disclaimer).not.toMatch(/uncalibrated/);
  });
});
