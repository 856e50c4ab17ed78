/**
 * Issue 6 end to end, through the real CLI: power, its audit sidecar, GPU
 * accounting and server timing in report.json and both pages; a truncated
 * telemetry CSV; and repeated requests where only the first repetition of a
 * case fails. Energy is checked against an independent reading of the CSV
 * (packages/fidelity/test/comparison/evidence-oracle.ts), never against the
 * library's own integrator.
 */
import { copyFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oracleEnergy, relativeError } from '../../packages/fidelity/test/comparison/evidence-oracle.js';
import { duration, kilojoules } from '../../packages/fidelity/src/pages/format.js';
import { PowerAudit } from '../../packages/fidelity/src/power/schemas.js';
import { Report } from '../../packages/fidelity/src/schemas/report.js';
import type { RunJson } from '../../packages/fidelity/src/schemas/run-archive.js';
import { generatedRuns } from '../shared/fixtures.js';
import { copyShared } from '../shared/store.js';
import { cli, FIXTURES, reseal, type CliResult } from './helpers.js';

const EPOCH = { SOURCE_DATE_EPOCH: '1764450000' };
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-e2e-evidence-'));
const OUT = path.join(tmp, 'bundle');
const REP_OUT = path.join(tmp, 'bundle-rep');
const CUT = path.join(tmp, 'b200-cut');
let compared: CliResult;
let repeated: CliResult;
let report: Report;
let rep: Report;
let en: string;
let zh: string;

const readJson = (file: string): unknown => JSON.parse(readFileSync(file, 'utf8'));
const runJson = (dir: string): RunJson => readJson(path.join(dir, 'run.json')) as RunJson;
const csvOf = (dir: string): string => readFileSync(path.join(dir, 'telemetry', 'gpu_metrics.csv'), 'utf8');

/** The cells of the first table row headed `label`, as markup. */
function rowCells(page: string, label: string): string[] {
  const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const row = page.match(new RegExp(`<tr><th scope="row">${escaped}</th>(.*?)</tr>`))?.[1];
  if (row === undefined) throw new Error(`no row ${label}`);
  return [...row.matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((m) => m[1]!);
}

beforeAll(async () => {
  // B200 as its CI logger left it when killed mid-write: the last CSV line is cut off.
  cpSync(path.join(FIXTURES, 'b200'), CUT, { recursive: true });
  const csv = csvOf(CUT);
  writeFileSync(path.join(CUT, 'telemetry', 'gpu_metrics.csv'), csv.slice(0, csv.length - 5));
  reseal(CUT);
  compared = await cli(['compare', path.join(FIXTURES, 'h200'), CUT, path.join(FIXTURES, 'h100'), '--out', OUT, '--json'], { env: EPOCH });
  if (compared.code === 0) {
    report = Report.parse(readJson(path.join(OUT, 'report.json')));
    en = readFileSync(path.join(OUT, 'index.html'), 'utf8');
    zh = readFileSync(path.join(OUT, 'index.zh.html'), 'utf8');
  }

  // Two repetitions of four cases; night-market-s29 carries heavy noise on B200. Its second repetition is
  // replaced by the baseline's own clip, so the case fails in repetition 0 and passes in repetition 1.
  // The run's shared runs (test/shared/fixtures.ts), copied: B200 is changed below.
  const runs = await generatedRuns({ size: 'small', sites: ['H200', 'B200'], repetitions: 2, cases: 4 });
  const copies = new Map<string, string>(runs.runs.map((r) => [r.site, copyShared(r.dir, path.join(tmp, 'rep-runs', path.basename(r.dir)))]));
  const dir = (site: string) => copies.get(site)!;
  copyFileSync(path.join(dir('H200'), 'media', 'measurement-r001-c003.mp4'), path.join(dir('B200'), 'media', 'measurement-r001-c003.mp4'));
  reseal(dir('B200'));
  repeated = await cli(['compare', dir('H200'), dir('B200'), '--out', REP_OUT, '--json', '--threads', '2'], { env: EPOCH });
  if (repeated.code === 0) rep = Report.parse(readJson(path.join(REP_OUT, 'report.json')));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('runs[].power in report.json', () => {
  it('writes the bundle', () => {
    expect(compared.stderr).toBe('');
    expect(compared.code).toBe(0);
    expect(report.runs.map((r) => [r.hardware.gpu_model, r.power?.power_valid, r.power?.reasons])).toEqual([
      ['H200', true, []],
      ['B200', true, []],
      ['H100', false, ['GAP_EXCEEDED']],
    ]);
  });

  it('gives the hand-computed energy, average power and joules per valid clip', () => {
    for (const [i, dir] of [[0, path.join(FIXTURES, 'h200')], [1, CUT]] as const) {
      const run = runJson(dir);
      const oracle = oracleEnergy(csvOf(dir), run.measurement_window!);
      const ok = run.records.filter((r) => r.kind === 'measurement' && r.status === 'ok').length;
      const clips = report.runs[i]!.clips!;
      // Every ok record's clip is analysed, so the divisor is the valid clips: the ok records less the invalid ones.
      expect(clips.analysed).toBe(ok);
      const invalid = ok - clips.valid;
      const seconds = run.measurement_window!.end_unix - run.measurement_window!.start_unix;
      const power = report.runs[i]!.power!;
      expect(relativeError(power.total_gpu_energy_j!, oracle.total)).toBeLessThan(1e-9);
      expect(relativeError(power.avg_total_gpu_power_w!, oracle.total / seconds)).toBeLessThan(1e-9);
      expect(power.valid_clips_basis).toBe('valid_clips');
      expect(power.valid_clips).toBe(ok - invalid);
      expect(relativeError(power.joules_per_valid_clip!, oracle.total / (ok - invalid))).toBeLessThan(1e-9);
    }
    // B200: 9 ok records, two of them off the plan (frame count, audio presence: MEDIA_PLAN_MISMATCH), so 7 valid clips.
    expect(report.runs[1]!.clips!.invalid_by_code).toEqual({ MEDIA_PLAN_MISMATCH: 2 });
    expect(report.runs[1]!.power!.valid_clips).toBe(7);
  });

  it('leaves every energy field out of the gapped run, in report.json itself', () => {
    const raw = readJson(path.join(OUT, 'report.json')) as { runs: { power: Record<string, unknown> }[] };
    expect(Object.keys(raw.runs[2]!.power).sort()).toEqual(['expected_gpu_count', 'max_gap_s', 'method', 'observed_gpu_count', 'power_valid', 'reasons', 'valid_clips', 'valid_clips_basis']);
    expect(report.runs[2]!.power_detail!.per_gpu.every((g) => g.energy_j === null && g.avg_power_w === null)).toBe(true);
  });

  it('drops the truncated last CSV line and says so', () => {
    expect(report.runs[1]!.power_detail!.truncated_last_line).toBe(true);
    const audit = PowerAudit.parse(readJson(path.join(OUT, report.runs[1]!.power_audit!)));
    expect(audit.rows.truncated_last_line).toBe(true);
    expect(audit.rows.data_rows).toBe(oracleEnergy(csvOf(CUT), runJson(CUT).measurement_window!).rows);
  });
});

describe('the power audit sidecar', () => {
  it('is in the bundle, sealed, and names the method, the window and each GPU', () => {
    expect(report.runs.map((r) => r.power_audit)).toEqual(['power/30054883436-1.json', 'power/30061277519-2.json', 'power/30049902211-1.json']);
    const sums = readFileSync(path.join(OUT, 'SHA256SUMS'), 'utf8');
    for (const r of report.runs) expect(sums).toContain(`  ${r.power_audit}\n`);
    const audit = PowerAudit.parse(readJson(path.join(OUT, 'power', '30054883436-1.json')));
    expect(audit.method).toBe('trapezoid-linear-edges-v1');
    expect(audit.window).toEqual(runJson(path.join(FIXTURES, 'h200')).measurement_window);
    const oracle = oracleEnergy(csvOf(path.join(FIXTURES, 'h200')), audit.window!);
    for (const g of audit.per_gpu) {
      expect(relativeError(g.energy_j!, oracle.perGpu.get(g.index)!.joules)).toBeLessThan(1e-9);
      expect(g.max_gap_s).toBeCloseTo(oracle.perGpu.get(g.index)!.maxGapS, 6);
      expect(g.samples_used).toBe(oracle.perGpu.get(g.index)!.used);
    }
  });

  it('is covered by verify-bundle: a report.json path to a missing sidecar is a broken link', async () => {
    const ok = await cli(['verify-bundle', OUT]);
    expect(ok.code).toBe(0);
    const copy = path.join(tmp, 'tampered');
    cpSync(OUT, copy, { recursive: true });
    const raw = readJson(path.join(copy, 'report.json')) as { runs: { power_audit: string }[] };
    raw.runs[2]!.power_audit = 'power/nowhere.json';
    writeFileSync(path.join(copy, 'report.json'), `${JSON.stringify(raw, null, 2)}\n`);
    reseal(copy);
    const bad = await cli(['verify-bundle', copy, '--json']);
    expect(bad.code).toBe(2);
    const doc = JSON.parse(bad.stdout) as { errors: { code: string; where?: { path?: string } }[] };
    expect(doc.errors).toEqual([expect.objectContaining({ code: 'BUNDLE_LINK_BROKEN', where: { file: 'report.json', path: 'runs[2].power_audit' } })]);
  });
});

describe('runs[].accounting and server timing in report.json', () => {
  it('reports both GPU bases, energy only where it was measured', () => {
    const a = report.runs[0]!.accounting!;
    const seconds = a.window_s!;
    expect([a.participating.gpus, a.allocated.gpus]).toEqual([2, 8]);
    expect(a.participating.gpu_seconds_per_valid_clip).toBeCloseTo((2 * seconds) / 10, 9);
    expect(a.allocated.gpu_seconds_per_valid_clip).toBeCloseTo((8 * seconds) / 10, 9);
    expect(a.participating.energy_j_per_valid_clip).toBe(report.runs[0]!.power!.joules_per_valid_clip);
    expect(a.allocated).toMatchObject({ energy_j: null, reasons: ['ENERGY_NOT_MEASURED_ON_BASIS'] });
    expect(report.runs[2]!.accounting!.participating.reasons).toEqual(['POWER_UNAVAILABLE']);
  });

  it('summarises timing per run and sets it side by side per comparison, descriptive only', () => {
    for (const r of report.runs) expect(r.timing!.summary.server_ready_ms!.n).toBe(r.slots.ok);
    expect(report.comparisons.map((c) => c.timing!.runs.map((r) => r.gpu_model))).toEqual([
      ['H200', 'B200'],
      ['H200', 'H100'],
    ]);
    const stage = report.comparisons[1]!.timing!.stages.find((s) => s.stage === 'queue_delay_ms')!;
    expect(stage.values.map((v) => v.median_ms)).toEqual([report.runs[0]!.timing!.summary.queue_delay_ms!.median, report.runs[2]!.timing!.summary.queue_delay_ms!.median]);
    expect(JSON.stringify(report.comparisons.map((c) => c.timing))).not.toMatch(/"(outcome|status|threshold)"/);
  });
});

describe('both report pages', () => {
  it('show energy for valid runs and "unavailable" with the reason in words for the gapped one', () => {
    const energy = report.runs.slice(0, 2).map((r) => kilojoules(r.power!.total_gpu_energy_j!));
    expect(rowCells(en, 'Total GPU energy')).toEqual([...energy, '<span class="muted">unavailable</span>']);
    expect(rowCells(zh, 'GPU 总能耗')).toEqual([...energy, '<span class="muted">不可用</span>']);
    expect(rowCells(en, 'Reasons')[2]).toBe('<code>GAP_EXCEEDED</code> Two consecutive readings of a GPU are further apart than the allowed gap.');
    expect(rowCells(zh, '原因')[2]).toContain('某个 GPU 的两个相邻读数间隔超过了允许的最大间隔');
    expect(rowCells(en, 'Per GPU')[1]).toContain('The last CSV line was cut off by the writer and was not used.');
    expect(rowCells(zh, '各 GPU')[1]).toContain('CSV 最后一行被写入程序截断');
  });

  it('link every audit sidecar', () => {
    for (const page of [en, zh]) for (const r of report.runs) expect(page).toContain(`href="${r.power_audit}" download`);
  });

  it('show accounting on both bases and timing side by side, saying latency is never judged', () => {
    expect(rowCells(en, 'GPUs on this basis')).toEqual(['2', '2', '2']);
    expect(en).toContain('On the allocated GPUs');
    expect(zh).toContain('按实际参与的 GPU 计');
    const median = rowCells(en, 'Server-ready latency (received → media ready), median');
    expect(median).toEqual(report.runs.map((r) => duration(r.timing!.summary.server_ready_ms!.median)));
    expect(rowCells(zh, '服务端就绪延迟（接收 → 媒体就绪）的中位数')).toEqual(median);
    expect(en).toContain('Descriptive only: latency is never judged, there is no pass or fail');
    expect(zh).toContain('仅供描述：延迟从不做判定');
  });
});

describe('repeated requests', () => {
  it('checks every repetition as its own pair', () => {
    expect(repeated.code).toBe(0);
    const [cmp] = rep.comparisons;
    expect(cmp!.summary).toEqual({ planned: 8, valid_pairs: 8, passed: 7, failed: 1, invalid: 0 });
    const night = cmp!.pairs.filter((p) => p.case_id === 'night-market-s29').map((p) => [p.slot_id, p.repetition, p.status]);
    expect(night).toEqual([
      ['measurement-r000-c003', 0, 'failed'],
      ['measurement-r001-c003', 1, 'passed'],
    ]);
  });

  it('fails the case when any repetition failed, keeping the worst figure and its repetition', () => {
    const cmp = rep.comparisons[0]!;
    expect(cmp.cases.map((c) => [c.case_id, c.status, c.repetitions])).toEqual([
      ['spoken-greeting-s11', 'passed', 2],
      ['spoken-greeting-s29', 'passed', 2],
      ['night-market-s11', 'passed', 2],
      ['night-market-s29', 'failed', 2],
    ]);
    const first = cmp.pairs.find((p) => p.slot_id === 'measurement-r000-c003')!;
    const second = cmp.pairs.find((p) => p.slot_id === 'measurement-r001-c003')!;
    expect(second.video!.identical).toBe(true);
    const worst = cmp.cases[3]!.worst.find((w) => w.check === 'min_ssim')!;
    expect(worst).toEqual({ check: 'min_ssim', value: first.video!.ssim!.min, repetition: 0, slot_id: 'measurement-r000-c003' });
    expect(worst.value!).toBeLessThan(0.92);
  });

  it('shows the per-case view on both pages', () => {
    const page = readFileSync(path.join(REP_OUT, 'index.html'), 'utf8');
    const pageZh = readFileSync(path.join(REP_OUT, 'index.zh.html'), 'utf8');
    expect(page).toContain('Per case, worst across repetitions');
    expect(page).toMatch(/<code>night-market-s29<\/code><\/th><td class="n">29<\/td><td><span class="badge failed">failed<\/span><\/td><td class="n">2<\/td><td>Minimum per-frame SSIM [0-9.]+ \(repetition 0, <a href="#pair-0-measurement-r000-c003">measurement-r000-c003<\/a>\)/);
    expect(page).toContain('a later pass never hides an earlier failure');
    expect(pageZh).toContain('按用例：各次重复中的最差值');
    expect(pageZh).toMatch(/逐帧 SSIM 最小值 [0-9.]+（重复 0，<a href="#pair-0-measurement-r000-c003">/);
  });
});
