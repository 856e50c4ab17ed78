/**
 * The pages say what is wrong with which clip, in words, before any metric (docs/report.md,
 * "Policy and outcomes"): the reason names the run's GPU and, on the English page, the clip's own
 * sentence with its figures; each run says "N of M clips valid". Both languages.
 */
import { describe, expect, it } from 'vitest';
import { judgeClip } from '../../src/metrics/clip-checks.js';
import { clipCounts, clipReasons } from '../../src/comparison/report-model.js';
import { renderReport } from '../../src/pages/page.js';
import type { ClipVideo } from '../../src/schemas/clip.js';
import { Report } from '../../src/schemas/report.js';
import { htmlText, SAMPLE_MEDIA, sampleReport } from './html-fixture.js';

const video = (black: boolean): ClipVideo => ({
  frame_count: 12, width: 112, height: 64,
  blank_fraction: black ? 1 : 0, black_fraction: black ? 1 : 0, white_fraction: 0,
  duplicate_fraction: black ? 1 : 0, mean_adjacent_frame_mae: black ? 0 : 0.01, frozen_fraction: black ? 1 : 0,
  min_frame_interval_seconds: 1 / 12, max_frame_interval_seconds: 1 / 12, missing_timestamps: 0, nonincreasing_timestamps: 0,
  corrupt_frame_count: null, geometry_stable: true, time_base_seconds: 1 / 12288, start_seconds: 0, end_seconds: 1,
  blank_runs: black ? [[0, 11]] : [], frozen_runs: black ? [[0, 11]] : [],
});

function withBlackCandidate(): Report {
  const report = sampleReport(SAMPLE_MEDIA);
  const pair = report.comparisons[0]!.pairs[0]!;
  const clips = { baseline: judgeClip(video(false), null), candidate: judgeClip(video(true), null) };
  const reasons = clipReasons(clips);
  Object.assign(pair, { status: 'invalid', clips, reasons: reasons.map((r) => r.code), reason_details: reasons });
  report.runs[0]!.clips = clipCounts([clips.baseline]);
  report.runs[1]!.clips = clipCounts([clips.candidate]);
  return Report.parse(report);
}

describe('clip reasons on the pages', () => {
  const report = withBlackCandidate();
  const gpu = report.runs[1]!.hardware.gpu_model;

  it('EN: the candidate GPU\'s clip is black in every frame, before its checks; N of M clips valid', () => {
    const text = htmlText(renderReport(report, 'en'));
    expect(text).toContain(`${gpu}'s clip: the picture is black in every frame (12 of 12)`);
    expect(text).toContain(`${gpu}'s clip: frames 0–11 show one picture`);
    // The noun agrees with the count it follows: one clip analysed is "1 clip".
    expect(text).toContain('0 of 1 clip valid');
    expect(text).toContain('1 of 1 clip valid');
    expect(text).not.toContain('of 1 clips');
    // The reason leads the pair, and no checks table follows it: an invalid pair is not judged (pair.tsx).
    const reason = text.indexOf(`${gpu}'s clip: the picture is black`);
    expect(reason).toBeGreaterThan(0);
    const html = renderReport(report, 'en');
    const start = html.indexOf(`<details class="pair" id="pair-0-${report.comparisons[0]!.pairs[0]!.slot_id}"`);
    expect(start).toBeGreaterThan(0);
    expect(html.slice(start, html.indexOf('<h4>Videos</h4>', start))).not.toContain('Checks against the example thresholds');
  });

  it('ZH: the same reasons, translated, named by the GPU', () => {
    const text = htmlText(renderReport(report, 'zh'));
    expect(text).toContain(`${gpu} 的片段：画面每一帧都是黑色（12 帧中 12 帧）`);
    expect(text).toContain(`${gpu} 的片段：第 0–11 帧是同一画面`);
    expect(text).toContain('1 个片段中 0 个有效');
  });
});

describe('an invalid pair\'s page leads with its clips and contradicts nothing', () => {
  const report = withBlackCandidate();
  const pair = report.comparisons[0]!.pairs[0]!;
  const html = renderReport(report, 'en');
  const section = html;

  it('the clips\' own figures per side come right after the reasons, before the videos', () => {
    const text = html.replace(/<[^>]*>/g, ' ');
    const figures = text.indexOf('The clips on their own');
    expect(figures).toBeGreaterThan(text.indexOf('Why this pair is invalid'));
    // Each share with its count and, where there is one, the frames it covers.
    expect(text.slice(figures, figures + 700)).toMatch(/Black frames\s*0\.0% \(0\/12\)\s*100\.0% \(12\/12\): frames 0–11/);
    expect(text.slice(figures, figures + 700)).toMatch(/Frozen frame steps\s*0\.0% \(0\/11\)\s*100\.0% \(11\/11\): frames 0–11/);
  });

  it('its metrics sit in a collapsed "measured anyway, not judged" section; no checks table claims a result', () => {
    expect(pair.video).not.toBeNull();
    const anyway = /<details class="anyway"><summary>Measured anyway, not judged[^<]*<\/summary>([\s\S]*?)<\/details>/.exec(section);
    expect(anyway).not.toBeNull();
    expect(anyway![1]).toContain('Identical streams');
    const body = html.slice(html.indexOf(`<code>${pair.slot_id}</code>`));
    const before = body.slice(0, body.indexOf('<details class="anyway">'));
    expect(before).not.toContain('Identical streams');
    expect(before).not.toContain('Checks against');
  });

  it('the overview shows "—" for its figures, like any pair not judged', () => {
    const overview = html.slice(html.indexOf('<section id="overview">'), html.indexOf('</section>', html.indexOf('<section id="overview">')));
    const row = overview.split('<tr').find((r) => r.includes(pair.slot_id))!;
    expect(row).toBeDefined();
    expect(htmlText(row)).not.toMatch(/1\.000000|∞/);
    expect((row.match(/>—</g) ?? []).length).toBe(4);
  });
});

