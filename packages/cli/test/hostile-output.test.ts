/**
 * Archive text reaches the terminal through the CLI: gpu_model, job, a failed
 * record's error, GPU ids from the telemetry, file names. Whatever escape
 * sequences they hold must arrive as visible escapes, never as control
 * characters; --json stays valid JSON with the same values. And a finite but
 * absurd power reading never prints "Infinity".
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../src/main.js';
import { escapeControls, inline } from '../src/text.js';
import { capture } from './capture.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-hostile-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const T0 = 1_764_450_000;
const ESC = '\x1b';
const BEL = '\x07';
const CSI8 = '\u009b';
const RLO = '\u202e';

/** Any raw control character but newline and tab, any C1 control, any bidi control: none may reach the terminal. */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

const GPU_MODEL = `H200${ESC}]0;owned${BEL}${ESC}[2J${CSI8}31m${RLO}evil`;
const JOB = `smoke ${ESC}[8mhidden${ESC}[0m`;
const ERROR = `timed out ${ESC}]8;;https://evil.example/${BEL}click${ESC}]8;;${BEL}\nvalid run archive: forged line`;

function nvTime(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 4)}/${iso.slice(5, 7)}/${iso.slice(8, 10)} ${iso.slice(11, 23)}`;
}

/** Two GPUs (named by uuid) reading `watts` every second around a 10 s window. */
function gpuCsv(watts: (second: number, gpu: number) => string): string {
  const lines = ['timestamp, uuid, power.draw [W]'];
  for (let s = -0.5; s <= 10.5; s += 1) {
    for (const gpu of [0, 1]) lines.push(`${nvTime((T0 + s) * 1000)}, GPU-${gpu}${ESC}[31m, ${watts(s, gpu)} W`);
  }
  return `${lines.join('\n')}\n`;
}

/** A small valid run folder whose text fields carry escape sequences. */
function makeRun(name: string, extra: Record<string, string> = {}): string {
  const dir = path.join(tmp, name);
  const files: Record<string, Buffer> = {};
  const put = (rel: string, text: string) => (files[rel] = Buffer.from(text));
  const cases = [
    { case_id: 'greeting-s11', prompt: 'A person says hello', seed: 11 },
    { case_id: 'greeting-s29', prompt: 'A person says hello', seed: 29 },
  ];
  put('ci.json', JSON.stringify({
    schema_version: 1,
    server_url: 'https://github.com',
    repository: 'example-org/video-serving-bench',
    workflow: 'h3-serving',
    job: JOB,
    run_id: 4242,
    run_attempt: 1,
    head_sha: 'c2f27fe453ef613f4eb0f8d356a6dbd80ffed7dd',
    artifact: { id: 77, name: 'h3-video-4242-1' },
    hardware: { gpu_model: GPU_MODEL, gpus_allocated: 8, gpus_participating: 2 },
  }));
  const plan = JSON.stringify({
    plan_id: 'hostile-output-v1',
    model: { id: 'example/model', revision: 'r1' },
    video: { width: 64, height: 64, fps: 24, frames: 24 },
    audio: { sample_rate: 32000, channels: 2 },
    warmup_runs: 0,
    repetitions: 1,
    cases,
  });
  put('plan.json', plan);
  const base = { prompt: cases[0]!.prompt, repetition: 0 };
  const records = [
    { slot_id: 'measurement-r000-c000', kind: 'measurement', case_id: cases[0]!.case_id, seed: 11, ...base, status: 'ok', media: 'media/measurement-r000-c000.mp4', latency_s: 6, window: { start_unix: T0, end_unix: T0 + 6 } },
    { slot_id: 'measurement-r000-c001', kind: 'measurement', case_id: cases[1]!.case_id, seed: 29, ...base, status: 'failed', error: ERROR, media: null, latency_s: null },
  ];
  put('run.json', JSON.stringify({
    run_id: 4242,
    run_attempt: 1,
    plan_sha256: createHash('sha256').update(plan).digest('hex'),
    expected_gpu_count: 2,
    measurement_window: { start_unix: T0, end_unix: T0 + 10 },
    records,
  }));
  put('media/measurement-r000-c000.mp4', 'not decoded by verify');
  for (const [rel, text] of Object.entries(extra)) put(rel, text);
  const sums = Object.keys(files).sort().map((rel) => `${createHash('sha256').update(files[rel]!).digest('hex')}  ${rel}`);
  put('SHA256SUMS', `${sums.join('\n')}\n`);
  for (const [rel, bytes] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), bytes);
  }
  return dir;
}

async function cli(...argv: string[]) {
  const io = capture();
  const code = await main(argv, io);
  return { code, out: io.stdout(), err: io.stderr() };
}

describe('escapeControls', () => {
  it('escapes C0 (but newline and tab), DEL, C1 and bidi controls as \\uXXXX, and leaves other text alone', () => {
    expect(escapeControls(`a${ESC}[31mb${BEL}\tc\nd\u007f${CSI8}${RLO}\u2066e`)).toBe('a\\u001b[31mb\\u0007\tc\nd\\u007f\\u009b\\u202e\\u2066e');
    expect(escapeControls('H200 — 日本語 שלום 👩‍💻')).toBe('H200 — 日本語 שלום 👩‍💻');
    expect(inline('two\nlines\r\tand a tab')).toBe('two\\u000alines\\u000d\\u0009and a tab');
  });

  it('keeps JSON valid and meaning the same', () => {
    const value = { model: GPU_MODEL, error: ERROR };
    const text = escapeControls(JSON.stringify(value));
    expect(text).not.toMatch(RAW_CONTROL);
    expect(JSON.parse(text)).toEqual(value);
  });
});

describe('archive text on the terminal', () => {
  it('fidelity verify: gpu_model, job and a failed record error arrive escaped, on their own line', async () => {
    const run = makeRun('verify');
    const { code, out, err } = await cli('verify', run);
    expect(code, err).toBe(0);
    expect(out + err).not.toMatch(RAW_CONTROL);
    expect(out).toContain('site      H200\\u001b]0;owned\\u0007\\u001b[2J\\u009b31m\\u202eevil');
    expect(out).toContain('smoke \\u001b[8mhidden\\u001b[0m');
    // The error's newline is escaped: no second "valid run archive:" line can be forged.
    expect(out.split('\n').filter((l) => l.startsWith('valid run archive:'))).toHaveLength(1);
    expect(out).toContain('failed measurement-r000-c001: timed out \\u001b]8;;https://evil.example/\\u0007click');
  });

  it('fidelity verify --json: valid JSON whose values are the archive values, with no raw control on stdout', async () => {
    const run = makeRun('verify-json');
    const { code, out } = await cli('verify', run, '--json');
    expect(code).toBe(0);
    expect(out).not.toMatch(RAW_CONTROL);
    const doc = JSON.parse(out);
    expect(doc.run.site).toBe(GPU_MODEL);
    expect(doc.run.job).toBe(JOB);
    expect(doc.failed[0].error).toBe(ERROR);
  });

  it('refusal messages naming a hostile file name are escaped too', async () => {
    const run = makeRun('bad-name');
    writeFileSync(path.join(run, `notes${CSI8}2J${RLO}.txt`), 'stray');
    const { code, out, err } = await cli('verify', run);
    expect(code).toBe(2);
    expect(out + err).not.toMatch(RAW_CONTROL);
    expect(err).toContain('\\u009b2J\\u202e.txt');
  });

  it('fidelity power: GPU ids and gpu_model escaped; a 1e308 W reading is refused as POWER_RANGE, never "Infinity J"', async () => {
    const run = makeRun('power', { 'telemetry/gpu_metrics.csv': gpuCsv((s, gpu) => (s === 4.5 && gpu === 1 ? '1e308' : '100.00')) });
    const human = await cli('power', run);
    expect(human.code, human.err).toBe(0);
    expect(human.out + human.err).not.toMatch(RAW_CONTROL);
    expect(human.out).not.toMatch(/Infinity/);
    expect(human.out).toContain('power: NOT VALID, no energy figures');
    expect(human.out).toContain('reasons: MALFORMED_ROW_IN_WINDOW');
    expect(human.out).toContain('(GPU-0\\u001b[31m)');
    expect(human.out).toContain('(H200\\u001b]0;owned');
    const json = await cli('power', run, '--json');
    expect(json.out).not.toMatch(/Infinity|null.*J/);
    const doc = JSON.parse(json.out);
    expect(doc.power.power_valid).toBe(false);
    expect(doc.power.total_gpu_energy_j).toBeUndefined();
    expect(doc.power_audit.malformed.map((m: { problem: string }) => m.problem)).toEqual(['POWER_RANGE']);
    // The same run at a sane reading integrates: the refusal is the range, not the file.
    const sane = makeRun('power-sane', { 'telemetry/gpu_metrics.csv': gpuCsv(() => '100.00') });
    expect(JSON.parse((await cli('power', sane, '--json')).out).power.total_gpu_energy_j).toBe(2000);
  });
});

describe('the new archive limits on the command line', () => {
  it('--max-entries counts folders too; a bad value is a usage error', async () => {
    const run = makeRun('limits');
    // ci.json, plan.json, run.json, SHA256SUMS, media/ and its file: six entries, five of them files.
    const refused = await cli('verify', run, '--json', '--max-entries', '5');
    expect(refused.code).toBe(2);
    expect(JSON.parse(refused.out).errors.map((e: { code: string }) => e.code)).toEqual(['LIMIT_ENTRIES']);
    expect((await cli('verify', run, '--max-entries', '6')).code).toBe(0);
    const bad = await cli('verify', run, '--json', '--max-compression-ratio', '2.5');
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.out).errors[0].code).toBe('USAGE');
  });
});
