/** "did you mean": a likely typo gets the name it was meant to be; a word far from every name gets nothing. */
import { describe, expect, it } from 'vitest';
import { closestName, editDistance, nearNames, orList } from '../src/suggest.js';
import { main } from '../src/main.js';
import { capture } from './capture.js';

describe('closestName', () => {
  it('counts a swap of two letters as one edit', () => {
    expect(editDistance('defualt', 'default')).toBe(1);
    expect(editDistance('fail-on-treshold', 'fail-on-threshold')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it('suggests a name one or two edits away, nothing for a word that is not a typo', () => {
    expect(closestName('defualt', ['all', 'default', 'ffmpeg'])).toBe('default');
    expect(closestName('fail-on-treshold', ['out', 'fail-on-threshold', 'allow-invalid'])).toBe('fail-on-threshold');
    expect(closestName('out', ['json', 'help'])).toBeUndefined();
    expect(closestName('bogus', ['json', 'help', 'out'])).toBeUndefined();
  });
});

describe('nearNames', () => {
  const METRICS = ['default', 'all', 'ffmpeg', 'inferencex', 'ssim', 'ssim_ffmpeg', 'ssim_rgb7', 'psnr_y', 'psnr_db', 'mae', 'audio'];
  it('a typo gets its one name; a whole part of several names gets each of them; anything else nothing', () => {
    expect(nearNames('defualt', METRICS)).toEqual(['default']);
    expect(nearNames('ssim-ffmpeg', METRICS)).toEqual(['ssim_ffmpeg']);
    expect(nearNames('psnr', METRICS)).toEqual(['psnr_y', 'psnr_db']);
    expect(nearNames('PSNR', METRICS)).toEqual(['psnr_y', 'psnr_db']);
    expect(nearNames('rgb7', METRICS)).toEqual(['ssim_rgb7']);
    expect(nearNames('vmaf', METRICS)).toEqual([]);
    expect(nearNames('', METRICS)).toEqual([]);
  });

  it('lists two or more names with "or"', () => {
    expect(orList(['a'])).toBe('a');
    expect(orList(['a', 'b'])).toBe('a or b');
    expect(orList(['a', 'b', 'c'])).toBe('a, b or c');
  });
});

describe('the command line says what was meant', () => {
  it('a mistyped option: one short line with "did you mean", not the whole help (exit 2)', async () => {
    const io = capture();
    expect(await main(['compare', 'a', 'b', '--out', 'x', '--fail-on-treshold'], io)).toBe(2);
    expect(io.stderr()).toBe('error USAGE: fidelity compare does not take --fail-on-treshold; did you mean --fail-on-threshold? (fidelity compare --help lists the options it takes)\n');
    expect(io.stdout()).toBe('');
    const json = capture();
    expect(await main(['compare', 'a', 'b', '--fail-on-treshold', '--json'], json)).toBe(2);
    expect(JSON.parse(json.stdout())).toEqual({ ok: false, errors: [{ code: 'USAGE', message: expect.stringContaining('did you mean --fail-on-threshold?') }] });
  });

  it('another usage error of the parser is short too, and points at --help', async () => {
    const io = capture();
    expect(await main(['compare', 'a', 'b', '--out'], io)).toBe(2);
    expect(io.stderr()).toMatch(/^error USAGE: .*--out.*\nfidelity compare --help lists the options it takes\n$/);
    expect(io.stderr()).not.toContain('usage:');
  });

  it('a mistyped metric set: "did you mean default?" (exit 2, nothing read)', async () => {
    const io = capture();
    expect(await main(['compare', 'a', 'b', '--out', 'x', '--metrics', 'defualt'], io)).toBe(2);
    expect(io.stderr()).toMatch(/^error USAGE: --metrics: .* but received "defualt"; "defualt": did you mean default\?\n$/);
  });

  it('metric names that are not quite the set\'s: each gets what it was probably meant to be', async () => {
    const io = capture();
    expect(await main(['compare', 'a', 'b', '--out', 'x', '--metrics', 'ssim,psnr'], io)).toBe(2);
    expect(io.stderr()).toMatch(/; "psnr": did you mean psnr_y or psnr_db\?\n$/);
    const two = capture();
    expect(await main(['compare', 'a', 'b', '--out', 'x', '--metrics', 'ssim-ffmpeg,rgb7,vmaf'], two)).toBe(2);
    expect(two.stderr()).toMatch(/; "ssim-ffmpeg": did you mean ssim_ffmpeg\?; "rgb7": did you mean ssim_rgb7\?\n$/);
  });

  it('a mistyped command: "did you mean compare?"', async () => {
    const io = capture();
    expect(await main(['compar', 'a', 'b'], io)).toBe(2);
    expect(io.stderr()).toBe('error USAGE: unknown command "compar"; did you mean compare? (fidelity --help lists the commands)\n');
    const far = capture();
    expect(await main(['frobnicate'], far)).toBe(2);
    expect(far.stderr()).toMatch(/^error USAGE: unknown command "frobnicate"\n\nfidelity /);
  });
});
