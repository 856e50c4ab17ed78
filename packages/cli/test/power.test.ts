import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatDuration } from 'media-fidelity';
import { main } from '../src/main.js';
import type { Io } from '../src/io.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-power-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const T0 = 1_764_450_000; // 2025/11/29 21:00:00 UTC
const CLOCK = 'linux:test-boot:CLOCK_MONOTONIC';

function nvTime(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 4)}/${iso.slice(5, 7)}/${iso.slice(8, 10)} ${iso.slice(11, 23)}`;
}

/** Two GPUs at 100 W, a reading every second from 0.5 s before to 0.5 s after a 10 s window, minus the seconds in `skip`. */
function gpuCsv(skip: (second: number) => boolean = () => false): string {
  const lines = ['timestamp, index, power.draw [W]'];
  for (let s = -0.5; s <= 10.5; s += 1) {
    if (skip(s)) continue;
    for (const gpu of [0, 1]) lines.push(`${nvTime((T0 + s) * 1000)}, ${gpu}, 100.00 W`);
  }
  return `${lines.join('\n')}\n`;
}

function timing(base: number) {
  const ms = 1_000_000;
  return { clock_id: CLOCK, http_received_ns: base, http_accepted_ns: base + 2 * ms, scheduler_dispatch_ns: base + 12 * ms, forward_finished_ns: base + 5012 * ms, media_ready_ns: base + 5512 * ms };
}

/** A small valid run archive (directory), written by hand so the test needs no encoder. */
function makeRun(name: string, telemetry: Record<string, string>): string {
  const dir = path.join(tmp, name);
  const files: Record<string, Buffer> = {};
  const put = (rel: string, text: string | Buffer) => (files[rel] = Buffer.isBuffer(text) ? text : Buffer.from(text));
  const cases = [
    { case_id: 'greeting-s11', prompt: 'A person says hello', seed: 11 },
    { case_id: 'greeting-s29', prompt: 'A person says hello', seed: 29 },
  ];
  put('ci.json', JSON.stringify({
    schema_version: 1,
    server_url: 'https://github.com',
    repository: 'example-org/video-serving-bench',
    workflow: 'h3-serving',
    job: 'power test',
    run_id: 4242,
    run_attempt: 1,
    head_sha: 'c2f27fe453ef613f4eb0f8d356a6dbd80ffed7dd',
    artifact: { id: 77, name: 'h3-video-4242-1' },
    hardware: { gpu_model: 'H200', gpus_allocated: 8, gpus_participating: 2 },
  }));
  const plan = JSON.stringify({
    plan_id: 'power-test-v1',
    model: { id: 'example/model', revision: 'r1' },
    video: { width: 64, height: 64, fps: 24, frames: 24 },
    audio: { sample_rate: 32000, channels: 2 },
    warmup_runs: 1,
    repetitions: 1,
    cases,
  });
  put('plan.json', plan);
  const base = { prompt: cases[0]!.prompt, repetition: 0 };
  const records = [
    { slot_id: 'warmup-000', kind: 'warmup', case_id: cases[0]!.case_id, seed: 11, ...base, status: 'ok', media: 'media/warmup-000.mp4', latency_s: 7 },
    { slot_id: 'measurement-r000-c000', kind: 'measurement', case_id: cases[0]!.case_id, seed: 11, ...base, status: 'ok', media: 'media/measurement-r000-c000.mp4', latency_s: 6, window: { start_unix: T0, end_unix: T0 + 6 }, server_timing: timing(9e12) },
    { slot_id: 'measurement-r000-c001', kind: 'measurement', case_id: cases[1]!.case_id, seed: 29, ...base, status: 'failed', error: 'request timed out', media: null, latency_s: null },
  ];
  put('run.json', JSON.stringify({
    run_id: 4242,
    run_attempt: 1,
    plan_sha256: createHash('sha256').update(plan).digest('hex'),
    expected_gpu_count: 2,
    measurement_window: { start_unix: T0, end_unix: T0 + 10 },
    records,
  }));
  put('media/warmup-000.mp4', 'not decoded by verify: warmup');
  put('media/measurement-r000-c000.mp4', 'not decoded by verify: measurement');
  for (const [rel, text] of Object.entries(telemetry)) put(rel, text);
  const sums = Object.keys(files).sort().map((rel) => `${createHash('sha256').update(files[rel]!).digest('hex')}  ${rel}`);
  put('SHA256SUMS', `${sums.join('\n')}\n`);
  for (const [rel, bytes] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), bytes);
  }
  return dir;
}

async function cli(...argv: string[]) {
  let out = '';
  let err = '';
  const io: Io = { out: (t) => void (out += t), err: (t) => void (err += t), errIsTty: false };
  const code = await main(argv, io);
  return { code, out, err };
}

describe('fidelity power', () => {
  it('prints energy, accounting and timing of a valid run (--json)', async () => {
    const run = makeRun('valid', { 'telemetry/gpu_metrics.csv': gpuCsv() });
    // --ok-records: the ok records counted without decoding (this hand-written archive's media are not MP4s).
    const { code, out } = await cli('power', run, '--json', '--ok-records');
    expect(code).toBe(0);
    const doc = JSON.parse(out);
    expect(doc.power).toMatchObject({ power_valid: true, reasons: [], expected_gpu_count: 2, observed_gpu_count: 2, total_gpu_energy_j: 2000, avg_total_gpu_power_w: 200, joules_per_valid_clip: 2000, valid_clips: 1, valid_clips_basis: 'ok_records' });
    expect(doc.power_audit.per_gpu.map((g: { energy_j: number }) => g.energy_j)).toEqual([1000, 1000]);
    expect(doc.accounting.participating).toMatchObject({ gpus: 2, gpu_seconds: 20, energy_j_per_valid_clip: 2000 });
    expect(doc.accounting.allocated).toMatchObject({ gpus: 8, gpu_seconds: 80, energy_j: null, reasons: ['ENERGY_NOT_MEASURED_ON_BASIS'] });
    expect(doc.timing.summary.server_ready_ms.median).toBe(5512);
    expect(doc.timing.clock_id).toBe(CLOCK);
    // A limit on decoding with nothing decoded changes nothing: said on stderr, stdout stays the document.
    const limited = await cli('power', run, '--json', '--ok-records', '--decode-timeout', '30');
    expect(limited.code).toBe(0);
    expect(JSON.parse(limited.out).power.valid_clips).toBe(1);
    expect(limited.err).toBe('fidelity power: --decode-timeout 30 changed nothing: with --ok-records no clip is decoded\n');
    // One valid clip, one reading gap: the counts agree with their nouns.
    const text = (await cli('power', run, '--ok-records')).out;
    expect(text).toContain('per valid clip: 2000.0 J (1 valid clip)');
    expect(text).toContain('GPU accounting: 2 participating of 8 allocated; 1 valid clip\n');
  });

  it('judges the clips as the report does by default: a clip that cannot be decoded is not a valid clip', async () => {
    const run = makeRun('judged', { 'telemetry/gpu_metrics.csv': gpuCsv() });
    const doc = JSON.parse((await cli('power', run, '--json')).out);
    expect(doc.power).toMatchObject({ power_valid: true, total_gpu_energy_j: 2000, valid_clips: 0, valid_clips_basis: 'valid_clips' });
    expect(doc.power.joules_per_valid_clip).toBeUndefined();
    expect(doc.clips).toMatchObject({ analysed: 1, valid: 0 });
    expect(doc.accounting.valid_clips).toBe(0);
    const text = (await cli('power', run)).out;
    expect(text).toContain('valid clips: 0 of 1 completed clip judged valid (valid_clips_basis valid_clips, as report.json counts them)');
    expect(text).toMatch(/invalid measurement-r000-c000: [A-Z_]+/);
  });

  it('says plainly when power is not valid, and still exits 0', async () => {
    const run = makeRun('gapped', { 'telemetry/gpu_metrics.csv': gpuCsv((s) => s > 3 && s < 8) });
    const { code, out } = await cli('power', run);
    expect(code).toBe(0);
    expect(out).toContain('power: NOT VALID, no energy figures');
    expect(out).toContain('reasons: GAP_EXCEEDED');
    expect(out).not.toMatch(/total .* J/);
    expect(out).toMatch(/allocated \(8 GPUs\): 80\.0 GPU-s/);
    // The pages' duration formatter: 5512 ms is 5.512 s.
    expect(out).toMatch(/server_ready\s+5\.512 s/);
  });

  it('writes every timing figure with the formatter the pages use (one notation for one duration)', async () => {
    const run = makeRun('timing-text', { 'telemetry/gpu_metrics.csv': gpuCsv() });
    const doc = JSON.parse((await cli('power', run, '--json')).out) as { timing: { summary: Record<string, { median: number; p90: number; min: number; max: number } | null> } };
    const { out } = await cli('power', run);
    let rows = 0;
    for (const [stage, st] of Object.entries(doc.timing.summary)) {
      if (!st || typeof st !== 'object' || !('median' in st)) continue;
      const cells = [st.median, st.p90, st.min, st.max].map((x) => formatDuration(x).padStart(12)).join('');
      expect(out, stage).toContain(`  ${stage.replace(/_ms$/, '').padEnd(18)}${cells}\n`);
      rows++;
    }
    expect(rows).toBeGreaterThan(3);
    expect(out).not.toContain('(ms)');
    expect(formatDuration(0.0007)).toBe('700 ns');
  });

  it('follows --max-gap and refuses a bad one', async () => {
    const run = makeRun('gap-option', { 'telemetry/gpu_metrics.csv': gpuCsv((s) => s > 3 && s < 8) });
    const loose = JSON.parse((await cli('power', run, '--json', '--max-gap', '6')).out);
    expect(loose.power.total_gpu_energy_j).toBe(2000);
    const bad = await cli('power', run, '--json', '--max-gap', 'soon');
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.out).errors[0].code).toBe('USAGE');
  });

  it('reports null power for a run without telemetry, and timing as unavailable when absent', async () => {
    const run = makeRun('bare', {});
    const { code, out } = await cli('power', run);
    expect(code).toBe(0);
    expect(out).toContain('power: the run has no telemetry');
    const doc = JSON.parse((await cli('power', run, '--json')).out);
    expect(doc.power).toBeNull();
    // Its one clip is not an MP4 (not a valid clip): NO_VALID_CLIPS beside the missing power.
    expect(doc.accounting.participating.reasons).toEqual(['NO_VALID_CLIPS', 'POWER_UNAVAILABLE']);
  });

  it('exits 2 with the reason codes when the archive is invalid', async () => {
    const run = makeRun('tampered', { 'telemetry/gpu_metrics.csv': gpuCsv() });
    writeFileSync(path.join(run, 'telemetry/gpu_metrics.csv'), gpuCsv().replace('100.00 W', '900.00 W'));
    const { code, out } = await cli('power', run, '--json');
    expect(code).toBe(2);
    const doc = JSON.parse(out);
    expect(doc.ok).toBe(false);
    expect(doc.errors.length).toBeGreaterThan(0);
    expect(doc.errors.every((e: { code: string }) => /^[A-Z_]+$/.test(e.code))).toBe(true);
  });
});
