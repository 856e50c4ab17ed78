import { existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generatedAtFromEnv, metricsFromOptions, progressPrinter } from '../src/commands/compare.js';
import { main } from '../src/main.js';
import { capture } from './capture.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-cli-compare-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('fidelity compare (refusals that need no media)', () => {
  it('is listed in the help with verify-bundle and demo', async () => {
    const io = capture();
    expect(await main(['--help'], io)).toBe(0);
    for (const name of ['fidelity compare <baseline> <candidate>', 'fidelity verify-bundle <dir>', 'fidelity demo']) expect(io.stdout()).toContain(name);
  });

  it('needs two runs and --out (exit 2, USAGE)', async () => {
    const one = capture();
    expect(await main(['compare', 'a', '--out', path.join(tmp, 'x')], one)).toBe(2);
    expect(one.stderr()).toMatch(/^error USAGE: /);
    const noOut = capture();
    expect(await main(['compare', 'a', 'b', '--json'], noOut)).toBe(2);
    expect(JSON.parse(noOut.stdout())).toEqual({ ok: false, errors: [{ code: 'USAGE', message: 'compare needs --out <dir>' }] });
  });

  it('refuses missing runs with their codes in one JSON document, and leaves an absent --out absent', async () => {
    const out = path.join(tmp, 'never', 'bundle');
    const io = capture();
    const code = await main(['compare', path.join(tmp, 'no-such-run'), path.join(tmp, 'no-such-run-2'), '--out', out, '--json'], io);
    expect(code).toBe(2);
    const doc = JSON.parse(io.stdout()) as { ok: boolean; errors: { code: string; message: string }[] };
    expect(doc.ok).toBe(false);
    expect(doc.errors.map((e) => e.code)).toEqual(['RUN_INVALID', 'SOURCE_NOT_FOUND', 'RUN_INVALID', 'SOURCE_NOT_FOUND']);
    expect(io.stderr()).toBe('');
    // Each run is quoted as typed, not as its last segment ("no-such-run"): the user recognises the path given.
    const typed = JSON.stringify(path.join(tmp, 'no-such-run'));
    expect(doc.errors[0]!.message).toBe(`${typed} failed verification (1 problem below)`);
    expect(doc.errors[1]!.message).toBe(`${typed} does not exist`);
    expect(existsSync(path.join(tmp, 'never'))).toBe(false);
  });

  it('refuses a non-empty --out that is not a bundle before doing any work, touching nothing', async () => {
    const out = path.join(tmp, 'occupied');
    mkdirSync(out);
    writeFileSync(path.join(out, 'keep.txt'), 'mine');
    const io = capture();
    expect(await main(['compare', 'a', 'b', '--out', out], io)).toBe(2);
    expect(io.stderr()).toMatch(/^error OUT_NOT_EMPTY: /);
    expect(readdirSync(out)).toEqual(['keep.txt']);
    expect(readFileSync(path.join(out, 'keep.txt'), 'utf8')).toBe('mine');
  });

  it('refuses a --summary or --junit that is an input by file identity or beside one, before any run is read, and writes nothing', async () => {
    const runs = path.join(tmp, 'identity');
    mkdirSync(path.join(runs, 'h200'), { recursive: true });
    writeFileSync(path.join(runs, 'h200', 'ci.json'), '{}');
    writeFileSync(path.join(runs, 'b.zip'), 'zip');
    writeFileSync(path.join(runs, 'b.zip.sha256'), `sha256:${'0'.repeat(64)}  b.zip\n`);
    linkSync(path.join(runs, 'b.zip'), path.join(tmp, 'zip-link'));
    linkSync(path.join(runs, 'h200', 'ci.json'), path.join(tmp, 'ci-link'));
    const args = [path.join(runs, 'h200'), path.join(runs, 'b.zip'), '--out', path.join(tmp, 'id-out'), '--fail-on-threshold'];
    for (const extra of [['--summary', path.join(tmp, 'zip-link')], ['--summary', path.join(tmp, 'ci-link')], ['--summary', path.join(runs, 'b.zip.sha256')], ['--junit', path.join(runs, 'b.zip.sha256')]]) {
      const io = capture();
      expect(await main(['compare', ...args, ...extra], io)).toBe(2);
      expect(io.stderr()).toMatch(/^error CI_OUTPUT_INVALID: /);
    }
    expect([readFileSync(path.join(runs, 'b.zip'), 'utf8'), readFileSync(path.join(runs, 'b.zip.sha256'), 'utf8'), readFileSync(path.join(runs, 'h200', 'ci.json'), 'utf8')]).toEqual(['zip', `sha256:${'0'.repeat(64)}  b.zip\n`, '{}']);
    expect(existsSync(path.join(tmp, 'id-out'))).toBe(false);
  });

  it('refuses --junit and --summary names and paths past the limits before any work (OUT_PATH_INVALID)', async () => {
    for (const file of [path.join(tmp, 'j'.repeat(300)), path.join(tmp, `${'n'.repeat(220)}.xml`), path.join(tmp, ...Array.from({ length: 50 }, () => 'd'.repeat(99))), `${path.join(tmp, 'dir', 'new.xml')}/`]) {
      for (const option of ['--junit', '--summary']) {
        const io = capture();
        expect(await main(['compare', 'no-such-a', 'no-such-b', '--out', path.join(tmp, 'limits-out'), option, file, '--json'], io)).toBe(2);
        expect((JSON.parse(io.stdout()) as { errors: { code: string }[] }).errors.map((e) => e.code)).toEqual(['OUT_PATH_INVALID']);
      }
    }
    expect(existsSync(path.join(tmp, 'dir'))).toBe(false);
    expect(existsSync(path.join(tmp, 'limits-out'))).toBe(false);
  });

  it('refuses an invalid policy file with POLICY_INVALID', async () => {
    const policy = path.join(tmp, 'policy.json');
    writeFileSync(policy, JSON.stringify({ schema_version: 1, name: 'x', calibration_status: 'uncalibrated', description: '', checks: [] }));
    const io = capture();
    expect(await main(['compare', 'a', 'b', '--out', path.join(tmp, 'p'), '--policy', policy, '--json'], io)).toBe(2);
    const doc = JSON.parse(io.stdout()) as { errors: { code: string; where?: { path?: string } }[] };
    expect(doc.errors.map((e) => [e.code, e.where?.path])).toEqual([['POLICY_INVALID', 'checks']]);
  });
});

describe('--metrics', () => {
  it('reads a set name or a comma-separated list; default without it', () => {
    expect(metricsFromOptions({})).toEqual({ set: 'default', list: ['ssim', 'ssim_ffmpeg', 'psnr_y', 'psnr_db', 'mae', 'audio'] });
    expect(metricsFromOptions({ metrics: 'ffmpeg' })).toEqual({ set: 'ffmpeg', list: ['ssim_ffmpeg', 'psnr_y'] });
    expect(metricsFromOptions({ metrics: 'all' }).list).toContain('ssim_rgb7');
    expect(metricsFromOptions({ metrics: 'inferencex' })).toEqual({ set: 'inferencex', list: ['psnr_db', 'mae', 'audio'] });
    expect(metricsFromOptions({ metrics: 'ssim,psnr_y' })).toEqual({ set: null, list: ['ssim', 'psnr_y'] });
    for (const bad of ['vmaf', 'ssim,,psnr_y', 'ssim,ssim', '']) expect(() => metricsFromOptions({ metrics: bad })).toThrow(expect.objectContaining({ code: 'USAGE' }));
  });

  it('refuses an unknown metric (exit 2, USAGE) and is in the help', async () => {
    const io = capture();
    expect(await main(['compare', 'a', 'b', '--out', path.join(tmp, 'm'), '--metrics', 'ssim,vmaf', '--json'], io)).toBe(2);
    const doc = JSON.parse(io.stdout()) as { errors: { code: string; message: string }[] };
    expect(doc.errors.map((e) => e.code)).toEqual(['USAGE']);
    expect(doc.errors[0]!.message).toContain('vmaf');
    expect(existsSync(path.join(tmp, 'm'))).toBe(false);
    const help = capture();
    expect(await main(['compare', '--help'], help)).toBe(0);
    expect(help.stdout()).toContain('--metrics');
  });

  it('refuses a --policy check on a metric the set does not compute, before reading any run (exit 2)', async () => {
    const policy = path.join(tmp, 'ssim-policy.json');
    writeFileSync(
      policy,
      JSON.stringify({
        schema_version: 1,
        name: 'ssim-only',
        calibration_status: 'uncalibrated',
        description: '',
        checks: [{ name: 'min_ssim', metric: 'video.ssim.min', comparator: '>=', threshold: 0.9, source: 'test' }],
      }),
    );
    const io = capture();
    expect(await main(['compare', path.join(tmp, 'no-run'), path.join(tmp, 'no-run-2'), '--out', path.join(tmp, 'q'), '--policy', policy, '--metrics', 'ffmpeg', '--json'], io)).toBe(2);
    const doc = JSON.parse(io.stdout()) as { errors: { code: string; where?: { path?: string } }[] };
    expect(doc.errors.map((e) => [e.code, e.where?.path])).toEqual([['POLICY_METRIC_NOT_COMPUTED', 'checks[0].metric']]);
  });
});

describe('progress', () => {
  const events = [
    { stage: 'verify', done: 0, total: 2, run: 'h200' },
    { stage: 'measure', pairsDone: 0, pairsTotal: 2, framesDone: 0, framesTotal: 24 },
    { stage: 'measure', pairsDone: 0, pairsTotal: 2, framesDone: 6, framesTotal: 24 },
    { stage: 'measure', pairsDone: 1, pairsTotal: 2, framesDone: 12, framesTotal: 24 },
    { stage: 'bundle', step: 'media', done: 0, total: 3 },
  ] as const;

  it('prints nothing unless asked', () => {
    const io = capture();
    const p = progressPrinter(io, false);
    expect(p.onProgress).toBeUndefined();
    p.finish();
    expect(io.stderr()).toBe('');
  });

  it('prints one line per stage or whole-pair change when stderr is not a terminal', () => {
    const io = capture(false);
    const p = progressPrinter(io, true);
    for (const e of events) p.onProgress!(e);
    p.finish();
    expect(io.stderr().split('\n').filter(Boolean)).toEqual([
      'verifying runs 0/2 (h200)',
      'measuring pairs 0/2, frames 0/24',
      'measuring pairs 1/2, frames 12/24',
      'writing bundle: media 0/3',
    ]);
    expect(io.stdout()).toBe('');
  });

  it('redraws one line in place on a terminal and clears it at the end', () => {
    const io = capture(true);
    const p = progressPrinter(io, true);
    for (const e of events) p.onProgress!(e);
    p.finish();
    expect(io.stderr()).not.toContain('\n');
    expect(io.stderr().startsWith('\r\x1b[Kverifying runs 0/2')).toBe(true);
    expect(io.stderr().endsWith('\r\x1b[K')).toBe(true);
  });
});

describe('SOURCE_DATE_EPOCH', () => {
  it('fixes generated_at when it is a whole number of seconds, and refuses any other value', () => {
    expect(generatedAtFromEnv({ SOURCE_DATE_EPOCH: '1764450000' })?.toISOString()).toBe('2025-11-29T21:00:00.000Z');
    expect(generatedAtFromEnv({})).toBeUndefined();
    expect(generatedAtFromEnv({ SOURCE_DATE_EPOCH: '' })).toBeUndefined();
    expect(() => generatedAtFromEnv({ SOURCE_DATE_EPOCH: 'soon' })).toThrow(expect.objectContaining({ code: 'SOURCE_DATE_EPOCH_INVALID' }));
  });

  it('makes compare exit 2 with SOURCE_DATE_EPOCH_INVALID before reading any run', async () => {
    const saved = process.env.SOURCE_DATE_EPOCH;
    process.env.SOURCE_DATE_EPOCH = '1.5e9';
    try {
      const io = capture();
      expect(await main(['compare', path.join(tmp, 'no-run-a'), path.join(tmp, 'no-run-b'), '--out', path.join(tmp, 'epoch'), '--json'], io)).toBe(2);
      expect((JSON.parse(io.stdout()) as { errors: { code: string }[] }).errors.map((e) => e.code)).toEqual(['SOURCE_DATE_EPOCH_INVALID']);
    } finally {
      if (saved === undefined) delete process.env.SOURCE_DATE_EPOCH;
      else process.env.SOURCE_DATE_EPOCH = saved;
    }
  });
});
