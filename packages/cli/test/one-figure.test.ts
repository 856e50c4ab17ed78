/**
 * One number per fact: one campaign (the committed reference report) rendered as every output gives
 * it (the pages EN and ZH, the terminal summary, JUnit, the job summary and compare's --json) agrees
 * on every figure they share: pair statuses and counts, the files sealed, the clips, PSNR of
 * identical streams (∞ in the pairs table and the per-case table alike), energies; and `--json`'s
 * `exit` / `passed` say what the exit code says beside `ok`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { clipsText, jobSummary, junitXml, Report, type CompareResult } from 'media-fidelity';
import { renderReport } from '../../fidelity/src/pages/page.js';
import { kilojoules } from '../../fidelity/src/pages/format.js';
import { humanSummary, reportBundle } from '../src/commands/compare.js';
import { capture } from './capture.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const TEXT = readFileSync(path.join(ROOT, 'fixtures', 'reference', 'report.json'), 'utf8');
const fresh = (): Report => Report.parse(JSON.parse(TEXT));
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-one-figure-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const FILES = 90;
const SEAL = 'ab'.repeat(32);
const result = (report: Report): CompareResult => ({ report, out: tmp, index: path.join(tmp, 'index.html'), files: FILES, seal_sha256: SEAL }) as unknown as CompareResult;
/** A page's text: its markup dropped. */
const textOf = (html: string): string => html.replace(/<[^>]*>/g, '');

describe('one number per fact across every output of one campaign', () => {
  const report = fresh();
  const terminal = humanSummary(result(report));
  const junit = junitXml(report);
  const summary = jobSummary(report, { path: tmp, files: FILES, seal_sha256: SEAL, bytes: 1000, media_bytes: 500 });
  const en = textOf(renderReport(report, 'en'));
  const zh = textOf(renderReport(report, 'zh'));

  it('statuses and counts agree: terminal, --json, JUnit, job summary, both pages', () => {
    const io = capture();
    const exit = reportBundle(io, true, result(report), { failOnThreshold: true, allowInvalid: false });
    const doc = JSON.parse(io.stdout()) as { ok: boolean; exit: number; passed: boolean; gate: { exit: number }; comparisons: { summary: Report['comparisons'][number]['summary']; pairs: { slot_id: string; status: string }[] }[] };
    for (const [i, c] of report.comparisons.entries()) {
      const s = c.summary;
      expect(terminal).toContain(`planned ${s.planned}, valid ${s.valid_pairs}, passed ${s.passed}, failed ${s.failed}, invalid ${s.invalid}`);
      expect(doc.comparisons[i]!.summary).toEqual(s);
      expect(doc.comparisons[i]!.pairs.map((p) => [p.slot_id, p.status])).toEqual(c.pairs.map((p) => [p.slot_id, p.status]));
      expect(junit).toMatch(new RegExp(`<testsuite name="[^"]*${c.candidate_gpu_model} run ${c.candidate_run_id}-${c.candidate_run_attempt}" tests="${s.planned}" failures="${s.failed}" errors="${s.invalid}"`));
      expect(summary).toContain(`| \`${c.candidate_gpu_model}\` | ${c.candidate_run_id}-${c.candidate_run_attempt} | ${s.planned} | ${s.valid_pairs} | ${s.passed} | ${s.failed} | ${s.invalid} |`);
      for (const page of [en, zh]) expect(page).toContain(`${s.failed}`);
    }
    // Every pair's status on the page's overview, in both languages, counted the same.
    const total = (k: 'failed' | 'invalid' | 'passed') => report.comparisons.reduce((n, c) => n + c.summary[k], 0);
    expect(en).toContain(`Failed ${total('failed')}`);
    expect(en).toContain(`Invalid ${total('invalid')}`);
    expect(en).toContain(`Passed ${total('passed')}`);
    // `ok` says the bundle was written; `exit` and `passed` say what the exit code says.
    expect(exit).toBe(4);
    expect(doc).toMatchObject({ ok: true, exit: 4, passed: false, gate: { exit: 4 } });
    const ungated = capture();
    expect(reportBundle(ungated, true, result(report), { failOnThreshold: false, allowInvalid: false })).toBe(0);
    expect(JSON.parse(ungated.stdout())).toMatchObject({ ok: true, exit: 0, passed: true });
  });

  it('the files sealed: the terminal and the job summary give one count', () => {
    expect(terminal).toContain(`(${FILES} files sealed`);
    expect(summary).toContain(`- Files: ${FILES} files sealed`);
    expect(summary).not.toContain(`${FILES + 1} files`);
  });

  it("each run's clips: the terminal, JUnit, the job summary and both pages say the same", () => {
    for (const run of report.runs) {
      const text = clipsText(run.clips!);
      expect(terminal).toContain(text);
      expect(junit).toContain(text);
      expect(summary).toContain(text);
      expect(en).toContain(`${run.clips!.valid} of ${run.clips!.analysed} clips valid`);
      expect(zh).toContain(`${run.clips!.analysed} 个片段中 ${run.clips!.valid} 个有效`);
    }
  });

  it('PSNR of identical streams is ∞ in the pairs table and the per-case table, never "unavailable"', () => {
    const r = fresh();
    const c = r.comparisons[0]!;
    const identical = c.pairs.find((p) => p.status === 'passed' && p.video?.identical)!;
    // Two repetitions of the case, so the page shows its per-case table.
    const view = c.cases.find((v) => v.case_id === identical.case_id)!;
    view.repetitions = 2;
    view.worst = [{ check: 'video_psnr_db', value: null, repetition: 0, slot_id: identical.slot_id }];
    for (const lang of ['en', 'zh'] as const) {
      const html = renderReport(r, lang);
      const cases = html.slice(html.indexOf('id="evidence"'));
      const row = textOf(cases.slice(cases.indexOf(`<code>${identical.case_id}</code>`), cases.indexOf('</tr>', cases.indexOf(`<code>${identical.case_id}</code>`))));
      expect(row, lang).toContain('∞');
      expect(row, lang).not.toMatch(/unavailable|不可用/);
    }
    // The overview's pairs table says ∞ for the same streams.
    expect(en).toMatch(new RegExp(`${identical.slot_id}[\\s\\S]*?∞`));
    // The CI text of a case with identical video writes ∞ too, never null.
    expect(junit).not.toMatch(/video_psnr_db null/);
    expect(summary).not.toMatch(/video_psnr_db null/);
  });

  it('energies: both pages give each run the energy per valid clip report.json has', () => {
    for (const run of report.runs) {
      const j = run.power?.joules_per_valid_clip;
      if (j === undefined || j === null) continue;
      expect(en).toContain(kilojoules(j));
      expect(zh).toContain(kilojoules(j));
    }
  });
});
