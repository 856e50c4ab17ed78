/**
 * jobSummary / refusalSummary on the reference report (a real comparison of the fixtures), a
 * calibrated copy and a hostile one: the counts per candidate, the failed and invalid pairs,
 * the bundle, and archive text kept inert (GitHub renders the Markdown).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { jobSummary, mdCode, refusalSummary, SUMMARY_MAX_ROWS } from '../../src/ci/summary.js';
import type { Report } from '../../src/schemas/report.js';
import { invalidClip } from './invalid-clip.js';
import { caseText } from '../../src/ci/format.js';

const ROOT = path.resolve(import.meta.dirname, '../../../..');
const TEXT = readFileSync(path.join(ROOT, 'fixtures', 'reference', 'report.json'), 'utf8');
const fresh = (): Report => JSON.parse(TEXT) as Report;
const BUNDLE = { path: 'out/bundle', files: 90, seal_sha256: 'ab'.repeat(32), bytes: 1_234_567, media_bytes: 200_400 };

/** Cells of a Markdown table row as GFM splits them: at pipes not escaped by a backslash. */
function cells(row: string): string[] {
  return row
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());
}

describe('jobSummary', () => {
  it('per candidate the counts and the noise floor; the policy with its disclaimer', () => {
    const md = jobSummary(fresh(), BUNDLE);
    expect(md.startsWith('\n## fidelity: `H200 run 30054883436-1` against 2 candidates\n')).toBe(true);
    expect(md).toContain('| `B200` | 30061277519-2 | 10 | 7 | 4 | 3 | 3 | not calibrated |');
    expect(md).toContain('| `H100` | 30049902211-1 | 10 | 10 | 9 | 1 | 0 | not calibrated |');
    expect(md).toContain('- Policy `example-uncalibrated`, uncalibrated: `The thresholds of policy "example-uncalibrated" are uncalibrated examples.');
  });

  it('a row per failing check and per reason of an invalid pair: slot, case, check or reason, value, threshold', () => {
    const md = jobSummary(fresh(), BUNDLE);
    const rows = md.split('\n').filter((l) => /^\| `(B200|H100)` \| `measurement/.test(l));
    // Two rows each for the pairs off the plan: MEDIA_PLAN_MISMATCH, then the pair difference it explains.
    expect(rows).toHaveLength(11);
    expect(cells(rows[0]!)).toEqual(['`B200`', '`measurement-r000-c003`', '`night-market-s29`', 'failed', 'min_ssim', expect.stringMatching(/^0\.43\d+$/), '>= 0.92']);
    expect(cells(rows.find((r) => r.includes('FAILED_CANDIDATE'))!)).toEqual(['`B200`', '`measurement-r000-c006`', '`caption-markup-s11`', 'invalid', '`FAILED_CANDIDATE`: `request timed out after 75 s`', '', '']);
    for (const r of rows) expect(cells(r)).toHaveLength(7);
  });

  it('a row per case with a failed or invalid repetition: its status and repetition counts, before the pairs', () => {
    const report = fresh();
    const md = jobSummary(report, BUNDLE);
    const rows = md.split('\n').filter((l) => /^\| `(B200|H100)` \| `[a-z-]+-s\d+` \|/.test(l));
    const bad = report.comparisons.flatMap((c) => c.cases.filter((v) => c.pairs.some((p) => p.case_id === v.case_id && p.status !== 'passed')));
    expect(rows).toHaveLength(bad.length);
    expect(cells(rows.find((r) => r.includes('night-market-s29'))!)).toEqual([
      '`B200`',
      '`night-market-s29`',
      'failed',
      expect.stringMatching(/^passed 0, failed 1, invalid 0 of 1 repetition; consistent; CHECK_FAILED_MIN_SSIM in 0; .*min_ssim 0\.43\d+; .*worst frame \d+ in every measured repetition$/),
    ]);
    expect(md.indexOf('### Failed and invalid cases')).toBeLessThan(md.indexOf('### Failed and invalid pairs'));
  });

  it('each run\'s clips checked on their own, and an invalid clip\'s row names its code and side', () => {
    expect(jobSummary(fresh(), BUNDLE)).toContain('- Clips checked on their own: `H200 run 30054883436-1` 10 of 10 valid; `B200 run 30061277519-2` 7 of 9 valid; MEDIA_PLAN_MISMATCH 2; invalid: measurement-r000-c007 MEDIA_PLAN_MISMATCH, measurement-r000-c008 MEDIA_PLAN_MISMATCH; `H100 run 30049902211-1` 10 of 10 valid');
    const md = jobSummary(invalidClip(fresh()), BUNDLE);
    expect(md).toContain('`B200 run 30061277519-2` 6 of 9 valid; MEDIA_PLAN_MISMATCH 2, CLIP_BLANK 1; invalid: measurement-r000-c003 CLIP_BLANK, measurement-r000-c007 MEDIA_PLAN_MISMATCH, measurement-r000-c008 MEDIA_PLAN_MISMATCH');
    const row = md.split('\n').find((l) => l.includes('CLIP_BLANK`'))!;
    expect(cells(row).slice(3)).toEqual(['invalid', "`CLIP_BLANK`: `candidate's clip: the clip is black in every frame`", '', '']);
    const none = fresh();
    for (const run of none.runs) delete run.clips;
    expect(jobSummary(none, BUNDLE)).not.toContain('Clips checked');
  });

  it('the bundle: path, size and seal; none when there is no bundle', () => {
    const md = jobSummary(fresh(), BUNDLE);
    expect(md).toContain('### Bundle\n\n- Path: `out/bundle`\n- Files: 90 files sealed\n- Size: 1.2 MB with SHA256SUMS, of which source MP4s 200.4 kB\n- SHA-256 of SHA256SUMS: `abab');
    expect(jobSummary(fresh(), null)).not.toContain('### Bundle');
  });

  it('the noise verdict of a calibrated comparison', () => {
    const r = fresh();
    r.comparisons[1]!.noise = { alpha: 0.05, n: 40, metrics: ['ssim_min'], verdict_metrics: ['ssim_min'], valid_pairs: 10, beyond_pairs: 2, beyond_by_metric: { ssim_min: 2 }, binomial_p: 0.0861, binomial_p_by_metric: { ssim_min: 0.0861 }, note: null, sources: [] };
    expect(jobSummary(r, null)).toContain('| `H100` | 30049902211-1 | 10 | 10 | 9 | 1 | 0 | 2 of 10 pairs beyond noise (n = 40, alpha 0.05, binomial p 0.0861) |');
  });

  it('nothing failed: a list item says so instead of an empty table', () => {
    const r = fresh();
    r.comparisons = r.comparisons.slice(1, 2);
    r.comparisons[0]!.pairs = r.comparisons[0]!.pairs.filter((p) => p.status === 'passed');
    expect(jobSummary(r, null)).toContain('- None: every planned pair was measured and passed every check.');
  });

  it('keeps to headings, lists and tables, and caps the rows', () => {
    const r = fresh();
    const c = r.comparisons[0]!;
    const failed = c.pairs.find((p) => p.status === 'failed')!;
    c.pairs = Array.from({ length: SUMMARY_MAX_ROWS + 5 }, (_, i) => ({ ...failed, slot_id: `s${i}`, checks: failed.checks.filter((k) => k.name === 'min_ssim') }));
    const md = jobSummary(r, BUNDLE);
    expect(md.split('\n').filter((l) => l.startsWith('| `B200` | `s')).length).toBe(SUMMARY_MAX_ROWS);
    expect(md).toContain(`- ${5 + 1} more rows are left out here`);
    for (const line of md.split('\n')) expect(line === '' || /^(#{2,3} |- |\| )/.test(line), line).toBe(true);
  });

  it('counts agree with their number: one candidate, one valid pair, one file, one row left out, one differing repetition', () => {
    const r = fresh();
    r.comparisons = r.comparisons.slice(1, 2);
    r.comparisons[0]!.noise = { alpha: 0.05, n: 40, metrics: ['ssim_min'], verdict_metrics: ['ssim_min'], valid_pairs: 1, beyond_pairs: 0, beyond_by_metric: { ssim_min: 0 }, binomial_p: 1, binomial_p_by_metric: { ssim_min: 1 }, note: null, sources: [] };
    const md = jobSummary(r, { ...BUNDLE, files: 1 });
    expect(md).toContain('against 1 candidate\n');
    expect(md).toContain('| 0 of 1 pair beyond noise (n = 40');
    expect(md).toContain('- Files: 1 file sealed\n');
    const c = r.comparisons[0]!;
    const failed = c.pairs.find((p) => p.status === 'failed')!;
    c.pairs = Array.from({ length: SUMMARY_MAX_ROWS + 1 }, (_, i) => ({ ...failed, slot_id: `s${i}`, checks: failed.checks.filter((k) => k.outcome === 'fail').slice(0, 1) }));
    expect(jobSummary(r, null)).toContain('- 1 more row is left out here; report.json in the bundle has every pair.');
    const view = { ...c.cases[0]!, status: 'failed' as const, repetitions: 3, passed: 2, failed: 1, invalid: 0, consistency: 'varies' as const, differing: [2] };
    expect(caseText(view)).toMatch(/^passed 2, failed 1, invalid 0 of 3 repetitions; varies: repetition 2 differs(;|$)/);
    expect(caseText({ ...view, differing: [1, 2] })).toContain('varies: repetitions 1, 2 differ');
    // A report before version 1.3 gives its status and repetitions only: never "repetition(s)".
    const { passed: _p, failed: _f, invalid: _i, ...old } = view;
    expect(caseText({ ...old, repetitions: 1 })).toBe('failed, 1 repetition');
  });

  it('archive text stays inert: code spans, no line break, no cell break, no HTML, no mention', () => {
    const r = fresh();
    const c = r.comparisons[0]!;
    c.candidate_gpu_model = 'B200 | injected | cell';
    c.pairs[6]!.reason_details[0]!.message = 'line one\n## heading\n<img src=x onerror=alert(1)> @everyone [x](https://evil) \\| `tick` \u202e';
    const md = jobSummary(r, null);
    // The pair's row (the case's row above it names the code too).
    const row = md.split('\n').find((l) => l.includes('FAILED_CANDIDATE') && l.includes('measurement-'))!;
    expect(cells(row)).toHaveLength(7);
    expect(md).not.toMatch(/\n## heading/);
    expect(row).toContain('`` line one ## heading <img src=x onerror=alert(1)> @everyone [x](https://evil) \uff3c\\| `tick`   ``');
    expect(md).toContain('`B200 \\| injected \\| cell`');
  });
});

describe('mdCode', () => {
  it('fences past any backtick run, pads a leading or trailing backtick, and is empty for blank text', () => {
    expect(mdCode('plain')).toBe('`plain`');
    expect(mdCode('a ``b`` c')).toBe('```a ``b`` c```');
    expect(mdCode('`x`')).toBe('`` `x` ``');
    expect(mdCode(' \n ')).toBe('');
    expect(mdCode('x'.repeat(300), 10)).toBe(`\`${'x'.repeat(9)}…\``);
    expect(mdCode('lone \ud800 surrogate')).toBe('`lone   surrogate`');
  });
});

describe('refusalSummary', () => {
  it('the command and every reason code with its message', () => {
    const md = refusalSummary('compare', [
      { code: 'RUN_INVALID', message: 'runs/b200: failed verification' },
      { code: 'SEAL_HASH_MISMATCH', message: 'b200: media/x.mp4 | changed' },
    ]);
    expect(md).toBe(
      '\n## fidelity compare: refused\n\n| code | message |\n| --- | --- |\n| `RUN_INVALID` | `runs/b200: failed verification` |\n| `SEAL_HASH_MISMATCH` | `b200: media/x.mp4 \\| changed` |\n\n- Nothing was written (exit 2); the codes are explained in docs/reason-codes.md.\n',
    );
  });
});
