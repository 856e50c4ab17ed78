/**
 * Three outputs said plainly: a repetition's clip under the baseline's own repetitions is called by
 * its repetition ("repetition 1's clip"), never "candidate's clip"; ids show their invisible
 * characters as escapes (visibleId) on both pages, in JUnit and in the job summary; and a
 * bit-identical repetition has no worst frame, so a case does not read "at frames 35, 0, 35".
 */
import { describe, expect, it } from 'vitest';
import { caseText } from '../../src/ci/format.js';
import { junitXml } from '../../src/ci/junit.js';
import { jobSummary } from '../../src/ci/summary.js';
import type { MeasuredRepetition } from '../../src/comparison/measure.js';
import { ownRepetitionReport, pairReport } from '../../src/comparison/report-model.js';
import { caseViews } from '../../src/pairing/summary.js';
import type { PlannedPair } from '../../src/pairing/slots.js';
import { renderReport } from '../../src/pages/page.js';
import type { ClipAnalysis } from '../../src/schemas/clip.js';
import type { MeasureOutcome } from '../../src/schemas/measurement.js';
import type { PairReport, Report } from '../../src/schemas/report.js';
import { visibleId } from '../../src/visible.js';
import { SAMPLE_MEDIA, sampleReport } from './html-fixture.js';

describe('visibleId', () => {
  it('escapes what shows nothing or moves what follows, and nothing else', () => {
    expect(visibleId('greeting\u200b-s11')).toBe('greeting\\u200b-s11');
    expect(visibleId('a\u00a0b\u2028c\u202ed\ufeffe\u0007f')).toBe('a\\u00a0b\\u2028c\\u202ed\\ufeffe\\u0007f');
    expect(visibleId('tag\u{e0001}')).toBe('tag\\u{e0001}');
    // A backslash before u is doubled: an escape in the output is always one visibleId made.
    expect(visibleId('x\\u200b')).toBe('x\\\\u200b');
    for (const plain of ['night-market-s29', 'a b', '夜市 s11', 'café', 'x\\y']) expect(visibleId(plain)).toBe(plain);
  });
});

/** The sample report with its failed pair's case id carrying a zero-width space. */
function zeroWidthCase(): { report: Report; shown: string } {
  const report = structuredClone(sampleReport(SAMPLE_MEDIA));
  const c = report.comparisons[0]!;
  const id = c.pairs.find((p) => p.status === 'failed')!.case_id;
  for (const p of c.pairs) if (p.case_id === id) p.case_id = `${id.slice(0, 3)}\u200b${id.slice(3)}`;
  c.cases = caseViews(c.pairs);
  return { report, shown: `${id.slice(0, 3)}\\u200b${id.slice(3)}` };
}

describe('invisible characters in ids', () => {
  it('are shown escaped on the English and the Chinese pages, in JUnit and in the job summary', () => {
    const { report, shown } = zeroWidthCase();
    for (const lang of ['en', 'zh'] as const) {
      const page = renderReport(report, lang);
      expect(page, lang).toContain(shown);
      // Only inside the data the page carries for its scripts (JSON), never as text shown.
      expect(page.replace(/<script[\s\S]*?<\/script>/g, ''), lang).not.toContain('\u200b');
    }
    expect(junitXml(report)).toContain(`case ${shown}, seed`);
    expect(junitXml(report)).not.toContain('\u200b');
    const summary = jobSummary(report, null);
    expect(summary).toContain(shown);
    expect(summary).not.toContain('\u200b');
  });
});

/** A clip analysis whose only reason is a black picture. */
function blackClip(): ClipAnalysis {
  return { valid: false, unconditional_valid: true, reasons: [{ code: 'CLIP_BLANK', message: 'the clip is black in every frame' }] } as unknown as ClipAnalysis;
}
function fineClip(): ClipAnalysis {
  return { valid: true, unconditional_valid: true, reasons: [] } as unknown as ClipAnalysis;
}
const outcome = (baseline: ClipAnalysis, candidate: ClipAnalysis): MeasureOutcome => ({ ok: true, measurement: { video: { frames: 12 }, clips: { baseline, candidate } } }) as unknown as MeasureOutcome;

describe("a repetition's clip", () => {
  it("is called by its repetition under the baseline's own repetitions, by its side in a pair", () => {
    const verdict = { status: 'invalid' as const, checks: [] };
    const rep: MeasuredRepetition = { case_id: 'c', repetition: 1, slot_id: 'measurement-r001-c000', against_repetition: 0, against_slot_id: 'measurement-r000-c000', identical: false, reason: null, outcome: outcome(fineClip(), blackClip()) };
    expect(ownRepetitionReport(rep, verdict).reasons[0]!.message).toBe("repetition 1's clip: the clip is black in every frame");
    const both = ownRepetitionReport({ ...rep, outcome: outcome(blackClip(), { ...blackClip(), reasons: [{ code: 'CLIP_BLANK', message: 'the clip is white in every frame' }] } as ClipAnalysis) }, verdict);
    expect(both.reasons[0]!.message).toBe('repetition 0: the clip is black in every frame; repetition 1: the clip is white in every frame');
    // In a cross-hardware pair the same file is the baseline's clip.
    const planned = { reasons: [], baseline: { media: null }, candidate: { media: null } } as unknown as PlannedPair;
    expect(pairReport(planned, outcome(blackClip(), fineClip()), verdict).reason_details[0]!.message).toBe("baseline's clip: the clip is black in every frame");
  });
});

describe('a bit-identical repetition', () => {
  it('has no worst frame: "frame 35 each time", not "at frames 35, 0, 35"', () => {
    const report = structuredClone(sampleReport(SAMPLE_MEDIA));
    const c = report.comparisons[0]!;
    const template = c.pairs.find((p) => p.status === 'failed')!;
    const pairs: PairReport[] = [0.45, 1, 0.44].map((value, k) => {
      const pair = structuredClone(template);
      pair.case_id = 'night-market-s29';
      pair.repetition = k;
      pair.slot_id = `measurement-r00${k}-c003`;
      const identical = value === 1;
      // The identical repetition's series ties on every frame: its index of the minimum is 0.
      pair.video = { ...pair.video!, identical, ssim: { ...pair.video!.ssim!, min: value, worst_frame: identical ? 0 : 35 } };
      pair.status = identical ? 'passed' : 'failed';
      pair.reasons = identical ? [] : ['CHECK_FAILED_MIN_SSIM'];
      pair.checks = [{ name: 'min_ssim', outcome: identical ? 'pass' : 'fail', value, threshold: 0.92, comparator: '>=', note: null }];
      return pair;
    });
    c.pairs = pairs;
    c.cases = caseViews(pairs);
    const text = renderReport(report, 'en').replace(/<[^>]+>/g, '');
    expect(text).toContain('at frame 35 each time');
    expect(text).not.toMatch(/at frames 35 \(repetition 0\), 0 \(repetition 1\)/);
    expect(caseText(c.cases[0]!, c.pairs)).toContain('worst frame 35 in every measured repetition');
    // Every repetition identical: no frame at all.
    const all = pairs.map((p) => ({ ...p, video: { ...p.video!, identical: true } }));
    expect(caseText(caseViews(all)[0]!, all)).not.toContain('worst frame');
  });
});
