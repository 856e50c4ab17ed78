/**
 * Run evidence (issue 6) from real run archives to report.json objects and
 * both pages, without measuring any media: the committed fixtures (H200 and
 * B200 with complete telemetry, H100 with a 7 s hole), and copies of them
 * edited and resealed (a truncated CSV, no server timing). Energy is checked
 * against evidence-oracle.ts, an independent reading of the CSV.
 */
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyRun } from '../../src/archive/verify.js';
import type { VerifiedRun } from '../../src/archive/types.js';
import { renderReport } from '../../src/pages/page.js';
import { comparisonReport, evidenceFiles, runEvidence, runReport } from '../../src/comparison/report-model.js';
import { reportSchemaText } from '../../src/bundle/write.js';
import { DEFAULT_POLICY, disclaimerFor } from '../../src/policy/default.js';
import { PowerAudit } from '../../src/power/schemas.js';
import { Report, RunReport } from '../../src/schemas/report.js';
import { duration, kilojoules } from '../../src/pages/format.js';
import type { RunJson } from '../../src/schemas/run-archive.js';
import { nvidiaSmiMs, oracleEnergy, relativeError } from './evidence-oracle.js';

const FIXTURES = fileURLToPath(new URL('../../../../fixtures/runs/', import.meta.url));
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-evidence-'));
const opened: VerifiedRun[] = [];

async function open(dir: string): Promise<VerifiedRun> {
  const result = await verifyRun(dir);
  if (!result.ok) throw new Error(`${dir}: ${result.problems.map((p) => p.code).join(', ')}`);
  opened.push(result.run);
  return result.run;
}

/** Copies a fixture run, lets `edit` change it, and rewrites SHA256SUMS as its producer would. */
function variant(site: string, name: string, edit: (dir: string) => void): string {
  const dir = path.join(tmp, name);
  cpSync(path.join(FIXTURES, site), dir, { recursive: true });
  edit(dir);
  const files: string[] = [];
  const walk = (rel: string): void => {
    for (const entry of readdirSync(path.join(dir, rel)).sort()) {
      const r = rel ? `${rel}/${entry}` : entry;
      if (statSync(path.join(dir, r)).isDirectory()) walk(r);
      else if (r !== 'SHA256SUMS') files.push(r);
    }
  };
  walk('');
  const sums = files.sort().map((f) => `${createHash('sha256').update(readFileSync(path.join(dir, f))).digest('hex')}  ${f}\n`);
  writeFileSync(path.join(dir, 'SHA256SUMS'), sums.join(''));
  return dir;
}

const csvOf = (site: string): string => readFileSync(path.join(FIXTURES, site, 'telemetry', 'gpu_metrics.csv'), 'utf8');
const runJsonOf = (site: string): RunJson => JSON.parse(readFileSync(path.join(FIXTURES, site, 'run.json'), 'utf8')) as RunJson;
const okClips = (run: RunJson): number => run.records.filter((r) => r.kind === 'measurement' && r.status === 'ok').length;

let h200: VerifiedRun;
let b200: VerifiedRun;
let h100: VerifiedRun;

beforeAll(async () => {
  [h200, b200, h100] = [await open(path.join(FIXTURES, 'h200')), await open(path.join(FIXTURES, 'b200')), await open(path.join(FIXTURES, 'h100'))];
});
afterAll(async () => {
  await Promise.all(opened.map((r) => r.close()));
  rmSync(tmp, { recursive: true, force: true });
});

function reportOf(runs: VerifiedRun[]): Report {
  const [base, ...cands] = runs as [VerifiedRun, ...VerifiedRun[]];
  return Report.parse({
    schema_version: 1,
    generated_at: '2026-11-29T22:00:00.000Z',
    tool: { name: 'fidelity', version: '0.0.0-test' },
    decoder: { ffmpeg_version: 'test', sha256: '0'.repeat(64), source: 'test', ffprobe_version: 'test', ffprobe_sha256: '0'.repeat(64) },
    policy: DEFAULT_POLICY,
    disclaimer: disclaimerFor(DEFAULT_POLICY),
    runs: runs.map((r, i) => runReport(r, i === 0 ? 'baseline' : 'candidate')),
    comparisons: cands.map((c) => comparisonReport(base, c, [])),
  });
}

/** The cells of the first table row headed `label`, as markup. */
function rowCells(page: string, label: string): string[] {
  const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const row = page.match(new RegExp(`<tr><th scope="row">${escaped}</th>(.*?)</tr>`))?.[1];
  if (row === undefined) throw new Error(`no row ${label}`);
  return [...row.matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((m) => m[1]!);
}

describe('runs[].power from real telemetry', () => {
  it('integrates the H200 telemetry to the hand-computed energy, per GPU and in total', () => {
    const runJson = runJsonOf('h200');
    const oracle = oracleEnergy(csvOf('h200'), runJson.measurement_window!);
    const { power, power_detail, power_audit } = runEvidence(h200);
    expect(power).toMatchObject({ power_valid: true, reasons: [], expected_gpu_count: 2, observed_gpu_count: 2, valid_clips: 10 });
    expect(relativeError(power!.total_gpu_energy_j!, oracle.total)).toBeLessThan(1e-9);
    const seconds = runJson.measurement_window!.end_unix - runJson.measurement_window!.start_unix;
    expect(relativeError(power!.avg_total_gpu_power_w!, oracle.total / seconds)).toBeLessThan(1e-9);
    // Joules per valid clip divide by the ok measurement records (not warmups).
    expect(okClips(runJson)).toBe(10);
    expect(relativeError(power!.joules_per_valid_clip!, oracle.total / okClips(runJson))).toBeLessThan(1e-9);
    expect(power_detail!.per_gpu.map((g) => g.index)).toEqual([0, 1]);
    for (const g of power_detail!.per_gpu) {
      expect(relativeError(g.energy_j!, oracle.perGpu.get(g.index)!.joules)).toBeLessThan(1e-9);
      expect(g.samples_used).toBe(oracle.perGpu.get(g.index)!.used);
      expect(g.max_gap_s).toBeCloseTo(oracle.perGpu.get(g.index)!.maxGapS, 6);
    }
    expect(power_audit).toBe('power/30054883436-1.json');
  });

  it('divides B200 energy by its 9 ok measurement records (one request failed)', () => {
    const runJson = runJsonOf('b200');
    const oracle = oracleEnergy(csvOf('b200'), runJson.measurement_window!);
    const { power } = runEvidence(b200);
    expect(okClips(runJson)).toBe(9);
    expect(power!.valid_clips).toBe(9);
    expect(relativeError(power!.joules_per_valid_clip!, oracle.total / 9)).toBeLessThan(1e-9);
  });

  it('gives the gapped H100 run power_valid false, GAP_EXCEEDED, and no energy figure anywhere', () => {
    // The oracle sees the hole too: 7 s between two readings, over the 3 s limit.
    const oracle = oracleEnergy(csvOf('h100'), runJsonOf('h100').measurement_window!);
    expect(Math.max(...[...oracle.perGpu.values()].map((g) => g.maxGapS))).toBeGreaterThan(6.9);
    const { power, power_detail, accounting } = runEvidence(h100);
    expect(power).toEqual({ power_valid: false, reasons: ['GAP_EXCEEDED'], expected_gpu_count: 2, observed_gpu_count: 2, valid_clips: 10, max_gap_s: 3, method: 'trapezoid-linear-edges-v1' });
    for (const key of ['total_gpu_energy_j', 'avg_total_gpu_power_w', 'joules_per_valid_clip']) expect(power).not.toHaveProperty(key);
    expect(power_detail!.per_gpu.map((g) => [g.energy_j, g.avg_power_w, g.reasons])).toEqual([
      [null, null, ['GAP_EXCEEDED']],
      [null, null, ['GAP_EXCEEDED']],
    ]);
    const audit = PowerAudit.parse(JSON.parse(evidenceFiles(h100)[0]!.text));
    expect(audit.total_gpu_energy_j).toBeNull();
    expect(audit.per_gpu.every((g) => g.energy_j === null)).toBe(true);
    expect(accounting!.participating).toMatchObject({ energy_j: null, energy_j_per_valid_clip: null, reasons: ['POWER_UNAVAILABLE'] });
  });

  it('writes the audit sidecar: method, window, per-GPU counts, gaps and energy adding up to the total', () => {
    const files = evidenceFiles(h200);
    expect(files.map((f) => f.path)).toEqual(['power/30054883436-1.json']);
    expect(files[0]!.text.endsWith('}\n')).toBe(true);
    const audit = PowerAudit.parse(JSON.parse(files[0]!.text));
    expect(audit.method).toBe('trapezoid-linear-edges-v1');
    expect(audit.window).toEqual(runJsonOf('h200').measurement_window);
    expect(audit.per_gpu.map((g) => [g.index, g.samples_used > 2, g.max_gap_s! <= 3])).toEqual([
      [0, true, true],
      [1, true, true],
    ]);
    const sum = audit.per_gpu.reduce((a, g) => a + g.energy_j!, 0);
    expect(relativeError(sum, runEvidence(h200).power!.total_gpu_energy_j!)).toBeLessThan(1e-12);
    // Deterministic: the same run gives the same bytes.
    expect(evidenceFiles(h200)[0]!.text).toBe(files[0]!.text);
  });

  it('drops a truncated last CSV line, even one that would parse', async () => {
    const csv = csvOf('h200');
    const window = runJsonOf('h200').measurement_window!;
    // 1. The writer was cut off inside the last row (5 s after the window): still valid, same energy, flagged.
    const cut = await open(variant('h200', 'h200-cut', (dir) => writeFileSync(path.join(dir, 'telemetry', 'gpu_metrics.csv'), csv.slice(0, csv.length - 6))));
    const oracle = oracleEnergy(csv, window);
    const cutEvidence = runEvidence(cut);
    expect(cutEvidence.power!.power_valid).toBe(true);
    expect(relativeError(cutEvidence.power!.total_gpu_energy_j!, oracle.total)).toBeLessThan(1e-9);
    expect(cutEvidence.power_detail!.truncated_last_line).toBe(true);
    const audit = PowerAudit.parse(JSON.parse(evidenceFiles(cut)[0]!.text));
    expect(audit.rows.truncated_last_line).toBe(true);
    expect(audit.rows.data_rows).toBe(oracle.rows - 1);

    // 2. The file ends with GPU 1's first reading after the window, cut to "41": had it been read, power
    // would be valid with a 41 W edge; dropped, GPU 1 is no longer bracketed.
    const lines = csv.trimEnd().split('\n');
    const endMs = Math.round(window.end_unix * 1000);
    const afterEnd = lines.findIndex((l, i) => i > 0 && l.split(',')[1]!.trim() === '1' && nvidiaSmiMs(l.split(',')[0]!.trim()) >= endMs);
    expect(afterEnd).toBeGreaterThan(0);
    const cutRow = lines[afterEnd]!.replace(/, [0-9.]+ W$/, ', 41');
    const short = await open(variant('h200', 'h200-short', (dir) => writeFileSync(path.join(dir, 'telemetry', 'gpu_metrics.csv'), [...lines.slice(0, afterEnd), cutRow].join('\n'))));
    const shortEvidence = runEvidence(short);
    expect(shortEvidence.power).toMatchObject({ power_valid: false, reasons: ['WINDOW_NOT_BRACKETED'] });
    expect(shortEvidence.power_detail!.truncated_last_line).toBe(true);
    expect(shortEvidence.power_detail!.per_gpu.map((g) => g.bracketed)).toEqual([true, false]);
  });

  it('is null, with no audit, when the run has no telemetry at all', async () => {
    const bare = await open(variant('h200', 'h200-bare', (dir) => rmSync(path.join(dir, 'telemetry'), { recursive: true })));
    const evidence = runEvidence(bare);
    expect(evidence).toMatchObject({ power: null, power_audit: null, power_detail: null });
    expect(evidenceFiles(bare)).toEqual([]);
    expect(evidence.accounting!.participating.reasons).toEqual(['POWER_UNAVAILABLE']);
    expect(RunReport.parse(runReport(bare, 'baseline')).power).toBeNull();
  });
});

describe('runs[].accounting', () => {
  it('keeps participating GPUs apart from allocated capacity, with per-clip figures on each basis', () => {
    const ci = JSON.parse(readFileSync(path.join(FIXTURES, 'h200', 'ci.json'), 'utf8')) as { hardware: { gpus_allocated: number; gpus_participating: number } };
    const runJson = runJsonOf('h200');
    const seconds = runJson.measurement_window!.end_unix - runJson.measurement_window!.start_unix;
    const { accounting, power } = runEvidence(h200);
    expect(ci.hardware).toMatchObject({ gpus_allocated: 8, gpus_participating: 2 });
    expect(accounting).toMatchObject({ gpus_allocated: 8, gpus_participating: 2, expected_gpu_count: 2, measured_gpu_count: 2, valid_clips: 10, reasons: [] });
    const p = accounting!.participating;
    const a = accounting!.allocated;
    expect(p.gpus).toBe(2);
    expect(p.gpu_seconds).toBeCloseTo(2 * seconds, 9);
    expect(p.gpu_seconds_per_valid_clip).toBeCloseTo((2 * seconds) / 10, 9);
    expect(p.energy_j).toBe(power!.total_gpu_energy_j);
    expect(p.energy_j_per_valid_clip).toBe(power!.total_gpu_energy_j! / 10);
    // Two GPUs were measured out of eight: the allocated basis gets no energy, never a scaled-up one.
    expect(a.gpus).toBe(8);
    expect(a.gpu_seconds_per_valid_clip).toBeCloseTo((8 * seconds) / 10, 9);
    expect(a).toMatchObject({ energy_j: null, energy_j_per_valid_clip: null, reasons: ['ENERGY_NOT_MEASURED_ON_BASIS'] });
  });
});

describe('runs[].timing and comparisons[].timing', () => {
  it('derives every stage per record from the stamps and summarises ok measurement records', () => {
    const runJson = runJsonOf('h200');
    const { timing } = runEvidence(h200);
    expect(timing!.records.map((r) => r.slot_id)).toEqual(runJson.records.map((r) => r.slot_id));
    const measured = runJson.records.filter((r) => r.kind === 'measurement' && r.status === 'ok' && r.server_timing);
    const first = measured[0]!;
    const t = first.server_timing!;
    const mine = timing!.records.find((r) => r.slot_id === first.slot_id)!;
    expect(mine.prequeue_ms).toBeCloseTo((t.http_accepted_ns - t.http_received_ns) / 1e6, 9);
    expect(mine.queue_delay_ms).toBeCloseTo((t.scheduler_dispatch_ns - t.http_accepted_ns) / 1e6, 9);
    expect(mine.execution_ms).toBeCloseTo((t.forward_finished_ns - t.scheduler_dispatch_ns) / 1e6, 9);
    expect(mine.postprocess_ms).toBeCloseTo((t.media_ready_ns - t.forward_finished_ns) / 1e6, 9);
    expect(mine.server_ready_ms).toBeCloseTo((t.media_ready_ns - t.http_received_ns) / 1e6, 9);
    // Ten ok measurements: the median is the mean of the 5th and 6th smallest.
    const exec = measured.map((r) => (r.server_timing!.forward_finished_ns - r.server_timing!.scheduler_dispatch_ns) / 1e6).sort((a, b) => a - b);
    expect(exec).toHaveLength(10);
    expect(timing!.summary.execution_ms!.median).toBeCloseTo((exec[4]! + exec[5]!) / 2, 9);
    expect(timing!.summary.execution_ms!.p90).toBeCloseTo(exec[8]! + 0.1 * (exec[9]! - exec[8]!), 9);
  });

  it('sets baseline and candidate latency side by side, with no outcome anywhere', () => {
    const cmp = comparisonReport(h200, b200, []);
    expect(cmp.timing!.descriptive).toBe(true);
    expect(cmp.timing!.runs.map((r) => r.gpu_model)).toEqual(['H200', 'B200']);
    const exec = cmp.timing!.stages.find((s) => s.stage === 'execution_ms')!;
    expect(exec.values.map((v) => v.median_ms)).toEqual([runEvidence(h200).timing!.summary.execution_ms!.median, runEvidence(b200).timing!.summary.execution_ms!.median]);
    expect(JSON.stringify(cmp.timing)).not.toMatch(/"(outcome|status|pass|passed|failed|threshold)"/);
  });

  it('reports absent timing as unavailable with TIMING_ABSENT, never 0', () => {
    const old = { ...h200, records: h200.records.map((r) => ({ ...r, server_timing: null })) };
    const { timing } = runEvidence(old);
    expect(timing).toMatchObject({ available: false, reasons: ['TIMING_ABSENT'] });
    expect(Object.values(timing!.summary).filter((v) => v !== null && typeof v === 'object')).toEqual([]);
    expect(timing!.records.every((r) => r.server_ready_ms === null && r.reason === 'TIMING_ABSENT')).toBe(true);
  });
});

describe('report.json carries the evidence, and the schema guards it', () => {
  it('parses runs with power, audit path, accounting and timing; refuses a partial energy figure', () => {
    const report = reportOf([h200, b200, h100]);
    expect(report.runs.map((r) => r.power?.power_valid)).toEqual([true, true, false]);
    expect(report.runs.map((r) => r.power_audit)).toEqual(['power/30054883436-1.json', 'power/30061277519-2.json', 'power/30049902211-1.json']);
    const bad = structuredClone(report);
    bad.runs[2]!.power!.total_gpu_energy_j = 1234;
    expect(() => Report.parse(bad)).toThrow(/no energy figure/);
    const missing = structuredClone(report);
    delete missing.runs[0]!.power!.total_gpu_energy_j;
    expect(() => Report.parse(missing)).toThrow(/total_gpu_energy_j/);
  });

  it('still generates report.schema.json, now with the typed evidence', () => {
    const schema = JSON.parse(reportSchemaText()) as { properties: { runs: { items: { properties: Record<string, unknown> } }; comparisons: { items: { properties: Record<string, unknown> } } } };
    const run = schema.properties.runs.items.properties;
    expect(Object.keys(run)).toEqual(expect.arrayContaining(['power', 'power_audit', 'power_detail', 'timing', 'accounting']));
    expect(JSON.stringify(run.timing)).toContain('queue_delay_ms');
    expect(JSON.stringify(run.accounting)).toContain('energy_j_per_valid_clip');
    expect(JSON.stringify(schema.properties.comparisons.items.properties.timing)).toContain('descriptive');
  });
});

describe('the pages show the evidence in both languages', () => {
  let en: string;
  let zh: string;
  beforeAll(() => {
    const report = reportOf([h200, b200, h100]);
    en = renderReport(report, 'en');
    zh = renderReport(report, 'zh');
  });

  it('shows energy, watts and J per clip for valid runs and "unavailable" for the gapped one', () => {
    const [h, b] = [runEvidence(h200).power!, runEvidence(b200).power!];
    expect(rowCells(en, 'Total GPU energy')).toEqual([kilojoules(h.total_gpu_energy_j!), kilojoules(b.total_gpu_energy_j!), '<span class="muted">unavailable</span>']);
    expect(rowCells(en, 'Average total GPU power (W)')).toEqual([h.avg_total_gpu_power_w!.toFixed(1), b.avg_total_gpu_power_w!.toFixed(1), '<span class="muted">unavailable</span>']);
    expect(rowCells(en, 'Energy per valid clip')).toEqual([kilojoules(h.joules_per_valid_clip!), kilojoules(b.joules_per_valid_clip!), '<span class="muted">unavailable</span>']);
    expect(rowCells(zh, 'GPU 总能耗')).toEqual([kilojoules(h.total_gpu_energy_j!), kilojoules(b.total_gpu_energy_j!), '<span class="muted">不可用</span>']);
  });

  it('gives the invalid run its reasons in words and no number', () => {
    const reasons = rowCells(en, 'Reasons');
    expect(reasons.slice(0, 2)).toEqual(['—', '—']);
    expect(reasons[2]).toBe('<code>GAP_EXCEEDED</code> Two consecutive readings of a GPU are further apart than the allowed gap.');
    expect(rowCells(zh, '原因')[2]).toBe('<code>GAP_EXCEEDED</code> 某个 GPU 的两个相邻读数间隔超过了允许的最大间隔。');
    const perGpu = rowCells(en, 'Per GPU');
    expect(perGpu[0]).toMatch(/^GPU 0: [\d\u202f]+\.\d{3} kJ, average \d+\.\d W; \d+ readings used, largest gap 1\.\d{3} s<br\/>GPU 1: /);
    expect(perGpu[2]).toBe('GPU 0: <code>GAP_EXCEEDED</code><br/>GPU 1: <code>GAP_EXCEEDED</code>');
    expect(rowCells(en, 'Power figures valid')).toEqual(['yes', 'yes', 'no: no energy figures']);
  });

  it('links each run’s audit sidecar', () => {
    for (const page of [en, zh]) {
      for (const file of ['power/30054883436-1.json', 'power/30061277519-2.json', 'power/30049902211-1.json']) expect(page).toContain(`href="${file}" download`);
    }
  });

  it('shows both accounting bases, with the reason where energy is unavailable', () => {
    const gpuSeconds = [...en.matchAll(/<tr><th scope="row">GPU-seconds per valid clip<\/th>(.*?)<\/tr>/g)].map((m) => m[1]);
    expect(gpuSeconds).toHaveLength(2);
    expect(en).toContain('On the participating GPUs');
    expect(en).toContain('On the allocated GPUs');
    expect(en).toContain('<code>ENERGY_NOT_MEASURED_ON_BASIS</code> The telemetry measured a different number of GPUs than this basis counts');
    expect(zh).toContain('按已分配的 GPU 计');
    expect(zh).toContain('能耗绝不按比例换算');
  });

  it('sets server timing side by side, says it is descriptive, and lists every record', () => {
    const median = rowCells(en, 'Execution (dispatched → forward finished), median');
    expect(median).toEqual([h200, b200, h100].map((r) => duration(runEvidence(r).timing!.summary.execution_ms!.median)));
    expect(en).toContain('Descriptive only: latency is never judged, there is no pass or fail');
    expect(zh).toContain('延迟从不做判定，没有通过或未通过');
    expect(rowCells(zh, '执行（调度 → 前向计算完成）的中位数')).toEqual(median);
    expect(en).toContain('Every record of H200 30054883436-1');
    // The warmup has no server timing in the fixtures: unavailable, never 0.
    expect(en).toMatch(/<th scope="row"><code>warmup-000<\/code><\/th><td>ok<\/td>(<td><span class="muted">unavailable<\/span><\/td>){5}<td><code>TIMING_ABSENT<\/code><\/td>/);
  });
});
