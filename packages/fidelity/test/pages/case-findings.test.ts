/**
 * The top of both pages as cases (pages/case-findings.tsx): one line per failed or invalid case per
 * candidate with its repetition counts, worst figure and rule, and frame; every case listed, grouped
 * by cause past GROUP_ABOVE lines; each case opening to its repetitions, each a link to its pair.
 */
import { describe, expect, it } from 'vitest';
import { caseViews, worstChecks } from '../../src/pairing/summary.js';
import { GROUP_ABOVE } from '../../src/pages/case-findings.js';
import { renderReport } from '../../src/pages/page.js';
import type { OwnRepetition, PairReport, Report } from '../../src/schemas/report.js';
import { SAMPLE_MEDIA, sampleReport } from './html-fixture.js';

/** The sample's failed pair repeated: `frames[k]` the worst frame of repetition k, `ssim[k]` its min SSIM (a fail under 0.92). */
function repeated(template: PairReport, caseId: string, caseIndex: number, ssim: number[], frames: number[]): PairReport[] {
  return ssim.map((value, k) => {
    const pair = structuredClone(template);
    pair.case_id = caseId;
    pair.repetition = k;
    pair.slot_id = `measurement-r00${k}-c${String(caseIndex).padStart(3, '0')}`;
    pair.video = { ...pair.video!, ssim: { ...pair.video!.ssim!, min: value, worst_frame: frames[k]! } };
    const failed = value < 0.92;
    pair.status = failed ? 'failed' : 'passed';
    pair.reasons = failed ? ['CHECK_FAILED_MIN_SSIM'] : [];
    pair.checks = [{ name: 'min_ssim', outcome: failed ? 'fail' : 'pass', value, threshold: 0.92, comparator: '>=', note: null }];
    return pair;
  });
}

function withPairs(pairs: PairReport[]): Report {
  const report = structuredClone(sampleReport(SAMPLE_MEDIA));
  const c = report.comparisons[0]!;
  c.pairs = pairs;
  c.cases = caseViews(pairs);
  return report;
}

/** The text of the top list (between its heading and the end of the verdict section), tags removed. */
function topText(page: string): string {
  const top = page.slice(page.indexOf('id="verdict"'), page.indexOf('</section>', page.indexOf('id="verdict"')));
  return top.replace(/<[^>]+>/g, '').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
}

describe('the failed and invalid cases at the top', () => {
  const template = sampleReport(SAMPLE_MEDIA).comparisons[0]!.pairs.find((p) => p.status === 'failed')!;

  it('says in one line per case how often it failed, its worst figure and rule, and the frame each time; its repetitions link to their pairs', () => {
    const pairs = repeated(template, 'night-market-s29', 3, [0.45, 0.437, 0.44, 0.452], [12, 12, 12, 12]);
    const report = withPairs(pairs);
    const en = renderReport(report, 'en');
    expect(topText(en)).toContain('night-market-s29 on B200: failed in 4 of 4 repetitions, min SSIM 0.437000 (needs ≥ 0.92) (0.437000 to 0.452000 across repetitions) at frame 12 each time');
    const line = en.slice(en.indexOf('<details class="case-line">'), en.indexOf('</details>', en.indexOf('<details class="case-line">')));
    for (const p of pairs) expect(line).toContain(`href="#pair-0-${p.slot_id}"`);
    // Every repetition's baseline is the same file in the sample: the baseline's own repetitions are bit-identical.
    expect(topText(en)).toContain("at frame 12 each time, H200's own repetitions: bit-identical");
    const zh = renderReport(report, 'zh');
    expect(topText(zh)).toContain('B200 上的 night-market-s29: 4 次重复中 4 次未通过');
    expect(topText(zh)).toContain('每次都在第 12 帧');
  });

  it('names the repetitions that differ, and each worst frame when they are not the same', () => {
    const report = withPairs(repeated(template, 'night-market-s29', 3, [0.99, 0.5, 0.98], [4, 9, 4]));
    const text = topText(renderReport(report, 'en'));
    expect(text).toContain('failed in 1 of 3 repetitions, min SSIM 0.500000 (needs ≥ 0.92) (0.500000 to 0.990000 across repetitions) at frames 4 (repetition 0), 9 (repetition 1), 4 (repetition 2), varies: repetition 1 differs from the others');
  });

  it('lists an invalid repetition of an otherwise passing case with its reason', () => {
    const pairs = repeated(template, 'street-s47', 2, [0.99, 0.99], [0, 0]);
    const invalid = sampleReport(SAMPLE_MEDIA).comparisons[0]!.pairs.find((p) => p.status === 'invalid')!;
    pairs[1] = { ...invalid, case_id: 'street-s47', repetition: 1, slot_id: pairs[1]!.slot_id };
    const text = topText(renderReport(withPairs(pairs), 'en'));
    expect(text).toContain('street-s47 on B200: invalid in 1 of 2 repetitions, CANDIDATE_FAILED');
  });

  it(`lists every case past ${GROUP_ABOVE}, grouped by cause with counts, each group open`, () => {
    const pairs: PairReport[] = [];
    for (let i = 0; i < GROUP_ABOVE + 8; i++) pairs.push(...repeated(template, `case-${i}`, i, [0.5, 0.6], [1, 1]));
    const en = renderReport(withPairs(pairs), 'en');
    const top = en.slice(en.indexOf('id="verdict"'), en.indexOf('</section>', en.indexOf('id="verdict"')));
    expect(top.match(/<details class="cause-group" open>/g)).toHaveLength(1);
    expect(topText(en)).toContain(`CHECK_FAILED_MIN_SSIM min SSIM failed: ${GROUP_ABOVE + 8} cases`);
    expect(top.match(/<details class="case-line">/g)).toHaveLength(GROUP_ABOVE + 8);
    for (let i = 0; i < GROUP_ABOVE + 8; i++) expect(topText(en)).toContain(`case-${i} on B200: failed in 2 of 2 repetitions`);
  });
});

describe("the baseline's own repetitions beside a case", () => {
  const template = sampleReport(SAMPLE_MEDIA).comparisons[0]!.pairs.find((p) => p.status === 'failed')!;
  const numbers = (text: string): string[] => (text.match(/\d+(?:\.\d+)?/g) ?? []).sort();

  /** The failed case of three repetitions whose baseline repetitions differ (distinct media paths), measured as `own`. */
  function measured(own: OwnRepetition[]): Report {
    const pairs = repeated(template, 'night-market-s29', 3, [0.45, 0.437, 0.44], [12, 12, 12]);
    pairs.forEach((p, k) => (p.baseline_media = `media/${String(k).repeat(64)}.mp4`));
    const report = withPairs(pairs);
    const view = report.comparisons[0]!.cases[0]!;
    view.own_repetitions_measured = { repetitions: own, worst: worstChecks(own) };
    return report;
  }
  const judged = (repetition: number, ssim: number, psnr: number | null): OwnRepetition => ({
    repetition,
    slot_id: `measurement-r00${repetition}-c003`,
    against_repetition: 0,
    against_slot_id: 'measurement-r000-c003',
    status: 'passed',
    reasons: [],
    checks: [
      { name: 'min_ssim', outcome: 'pass', value: ssim, threshold: 0.92, comparator: '>=', note: null },
      { name: 'video_psnr_db', outcome: 'pass', value: psnr, threshold: 30, comparator: '>=', note: psnr === null ? 'identical' : null },
    ],
  });

  it("gives the worst figure of the check the case failed, in both languages with the same numbers, and each repetition's figures when opened", () => {
    const report = measured([judged(1, 0.9931, 44.5), judged(2, 0.9912, null)]);
    const en = topText(renderReport(report, 'en'));
    const zh = topText(renderReport(report, 'zh'));
    const line = en.slice(en.indexOf('night-market-s29 on B200'), en.indexOf('repetition 0'));
    expect(line).toContain("at frame 12 each time, H200's own repetitions: differ: min SSIM 0.991200");
    const zhLine = zh.slice(zh.indexOf('B200 上的 night-market-s29'), zh.indexOf('第 0 次重复'));
    expect(zhLine).toContain('H200 自身的各次重复：不同：最小 SSIM 0.991200');
    expect(numbers(zhLine)).toEqual(numbers(line));
    expect(en).toContain("H200's own repetitions, each against its repetition 0");
    expect(en).toContain('repetition 2 measurement-r002-c003 min SSIM 0.991200, video PSNR (dB) identical');
    expect(en).toContain('repetition 1 measurement-r001-c003 min SSIM 0.993100, video PSNR (dB) 44.50');
    expect(zh).toContain('第 2 次重复 measurement-r002-c003 最小 SSIM 0.991200');
  });

  it('says why when no repetition could be measured, and only that they differ without a measurement', () => {
    const invalid: OwnRepetition = { ...judged(1, 0, 0), status: 'invalid', checks: [], reasons: [{ code: 'FAILED_BASELINE', message: '30054883436-1/measurement-r000-c003 has no ok media', side: 'baseline' }] };
    const en = topText(renderReport(measured([invalid]), 'en'));
    expect(en).toContain("H200's own repetitions: differ, not measured (FAILED_BASELINE)");
    expect(topText(renderReport(measured([invalid]), 'zh'))).toContain('H200 自身的各次重复：不同，未能测量（FAILED_BASELINE）');
    const unmeasured = measured([]);
    delete unmeasured.comparisons[0]!.cases[0]!.own_repetitions_measured;
    const text = topText(renderReport(unmeasured, 'en'));
    expect(text).toMatch(/H200's own repetitions: differ(?!:)/);
    expect(text).not.toContain('each against its repetition');
  });
});
