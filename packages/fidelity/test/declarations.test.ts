/**
 * A check or a clip code is spelled in its declaration and almost nowhere
 * else (docs/architecture.md, "Adding a metric or a check"): each policy
 * check's name in at most three source files of the two packages (tests
 * excluded), policy/checks.ts among them, and each `CLIP_*` code in at most
 * three, errors.ts among them. Comments count: a name in a comment is a
 * place to forget too. Names built from pieces (`check_${name}`,
 * `'CLIP_' + x`) are refused outright, so the count cannot be dodged.
 *
 * A check named like the figure it reads (spectral_cosine, InferenceX's
 * name for both) shares its spelling with the measurement: the figure's own
 * forms, a path or member after a `.` and a field key (`spectral_cosine:`),
 * are the measurement's, not the check's, and are not counted for it.
 * InferenceX's own field names (`pairs[].inferencex.metrics`: `video_psnr_db`,
 * `audio_spectral_cosine_channels`, declared once by the `InferencexMetrics`
 * schema) are InferenceX's words for its figures, not the checks', and are
 * not counted either.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REASONS } from '../src/errors.js';
import { CHECKS } from '../src/policy/checks.js';
import { InferencexMetrics } from '../src/schemas/measurement.js';
import { sourceFiles } from './source-files.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SOURCES = [path.join(ROOT, 'packages', 'fidelity', 'src'), path.join(ROOT, 'packages', 'cli', 'src')];

const files = SOURCES.flatMap(sourceFiles).map((f) => ({ file: path.relative(path.join(ROOT, 'packages'), f).split(path.sep).join('/'), text: readFileSync(f, 'utf8') }));

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** InferenceX's field names: an identifier that is one of them is InferenceX's figure, whatever check name it contains. */
const INFERENCEX_KEYS: ReadonlySet<string> = new Set(Object.keys(InferencexMetrics.shape));

/** The whole identifier (letters, digits, `_`) around `at`. */
function identifierAt(text: string, at: number, length: number): string {
  let start = at;
  let end = at + length;
  while (start > 0 && /[A-Za-z0-9_]/.test(text[start - 1]!)) start--;
  while (end < text.length && /[A-Za-z0-9_]/.test(text[end]!)) end++;
  return text.slice(start, end);
}

/** Where `name` is spelled in `text`: bounded by anything but a letter or digit (so `check_<name>` and `<name>_short` count); for a figure-named check, not its figure's own forms. */
export function spellings(text: string, name: string, figureNamed: boolean): number[] {
  const found: number[] = [];
  for (const m of text.matchAll(new RegExp(`(?<![A-Za-z0-9])${escape(name)}(?![A-Za-z0-9])`, 'g'))) {
    const at = m.index;
    const after = text.slice(at + name.length);
    if (figureNamed && (text[at - 1] === '.' || /^\??\s*:/.test(after))) continue;
    // InferenceX's field: a longer key holding the name, or the name itself as a field (after `.`, before `:`).
    const id = identifierAt(text, at, name.length);
    if (INFERENCEX_KEYS.has(id) && (id !== name || text[at - 1] === '.' || /^\??\s*:/.test(after))) continue;
    found.push(at);
  }
  return found;
}

/** A name put together from pieces: a dictionary key built on any name, or a proper prefix or suffix of `name` joined to an interpolation or a `+`. */
export function builtFromPieces(text: string, name: string): string[] {
  const parts = name.split('_');
  const patterns: RegExp[] = [];
  for (let k = 1; k < parts.length; k++) {
    const prefix = escape(`${parts.slice(0, k).join('_')}_`);
    const suffix = escape(`_${parts.slice(k).join('_')}`);
    patterns.push(new RegExp(`(?<![A-Za-z0-9_])${prefix}(\\$\\{|['"]\\s*\\+)`, 'g'), new RegExp(`(\\}|\\+\\s*['"])${suffix}(?![A-Za-z0-9_])`, 'g'));
  }
  return patterns.flatMap((p) => [...text.matchAll(p)].map((m) => m[0]));
}

/** Dictionary keys built from a check name or a reason code, as the pages once did (`check_${name}`, `short_${name}`, `reason_${code}`). */
const KEY_BUILDERS = /(?<![A-Za-z0-9_])(check|short|reason)_\$\{/g;

const checkNames = Object.keys(CHECKS) as (keyof typeof CHECKS)[];
const clipCodes = Object.keys(REASONS).filter((c) => c.startsWith('CLIP_'));
const figureNamed = (name: keyof typeof CHECKS): boolean => CHECKS[name].example.metric.endsWith(`.${name}`);

/** Source files other than the declaration that spell a check's name, each with why it cannot derive it. */
const ALSO_SPELLED: Record<string, string> = {
  'fidelity/src/calibrate/metrics.ts': "the calibrated metric of a derived check value (the rms deviation) is a key of calibration.json, which calibrate/metrics.ts declares with every calibrated metric",
  'fidelity/src/synth/differences.ts': "the synthetic runs' expected-outcome text, written into the generated runs (the committed fixtures' bytes)",
};

function filesSpelling(name: string, figure: boolean): string[] {
  return files.filter((f) => spellings(f.text, name, figure).length > 0).map((f) => f.file);
}

describe('a check or a clip code is spelled in its declaration', () => {
  it('the scan finds every form and bites on names built from pieces', () => {
    expect(spellings("c.name === 'min_ssim'", 'min_ssim', false)).toEqual([12]);
    expect(spellings('m.check_min_ssim + m.min_ssim_short', 'min_ssim', false)).toHaveLength(2);
    expect(spellings("{ key: 'audio.rms_ratio_deviation' } // rms_ratio_deviation", 'rms_ratio_deviation', false)).toHaveLength(2);
    expect(spellings('mymin_ssim min_ssimx', 'min_ssim', false)).toEqual([]);
    // InferenceX's field names are its figures; the bare name outside a field form is still the check's.
    expect(spellings('m.audio_spectral_cosine_channels; { video_psnr_db: 1 }; x.video_psnr_db', 'spectral_cosine', true)).toEqual([]);
    expect(spellings('{ video_psnr_db: 1 }; x.video_psnr_db', 'video_psnr_db', false)).toEqual([]);
    expect(spellings("c.name === 'video_psnr_db'", 'video_psnr_db', false)).toHaveLength(1);
    // The figure's own forms are not the check's; a string of the name or a key built on it is.
    expect(spellings('a.spectral_cosine; { spectral_cosine: 1 }; x.audio.spectral_cosine', 'spectral_cosine', true)).toEqual([]);
    expect(spellings("name === 'spectral_cosine' || m.short_spectral_cosine", 'spectral_cosine', true)).toHaveLength(2);
    expect(builtFromPieces('const k = `min_${what}`;', 'min_ssim')).toEqual(['min_${']);
    expect(builtFromPieces("x = 'CLIP_' + kind; y = `${a}_FRAMES`", 'CLIP_CORRUPT_FRAMES')).toEqual(["CLIP_' +", '}_FRAMES']);
    expect(builtFromPieces('`CLIP_AUDIO_${x}`', 'CLIP_AUDIO_GAP')).toEqual(['CLIP_AUDIO_${']);
    expect('`check_${name}` `short_${n}` `reason_${code}` `checknote_${note}`'.match(KEY_BUILDERS)).toHaveLength(3);
  });

  it('reads every source file of both packages', () => {
    expect(files.length).toBeGreaterThan(200);
    expect(files.some((f) => f.file === 'fidelity/src/policy/checks.ts')).toBe(true);
    expect(files.some((f) => f.file.startsWith('cli/src/'))).toBe(true);
  });

  // The declaration file declares every name (the tables' keys are the names); the count is of the files beside it.
  it.each(checkNames)('policy check %s: policy/checks.ts and at most two more files, each with its reason', (name) => {
    const others = filesSpelling(name, figureNamed(name)).filter((f) => f !== 'fidelity/src/policy/checks.ts');
    expect(others.length).toBeLessThanOrEqual(2);
    expect(others.filter((f) => !(f in ALSO_SPELLED))).toEqual([]);
  });

  it.each(clipCodes)('clip code %s: errors.ts and at most two more files', (code) => {
    const where = filesSpelling(code, false);
    expect(where).toContain('fidelity/src/errors.ts');
    expect(where.filter((f) => f !== 'fidelity/src/errors.ts').length).toBeLessThanOrEqual(2);
  });

  it('declares the twelve clip codes of clip validity', () => {
    expect(clipCodes).toHaveLength(12);
  });

  it('no source file builds a check name, a clip code or a dictionary key from pieces', () => {
    const built = files.flatMap((f) => [
      ...[...checkNames, ...clipCodes].flatMap((n) => builtFromPieces(f.text, n).map((piece) => `${f.file}: ${piece}`)),
      ...(f.text.match(KEY_BUILDERS) ?? []).map((piece) => `${f.file}: ${piece}`),
    ]);
    expect(built).toEqual([]);
  });
});
