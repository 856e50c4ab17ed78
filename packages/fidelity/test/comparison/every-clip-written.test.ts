/**
 * Every analysed clip written (report.json 1.4), on the committed reference report (compare of the
 * fixtures): B200's c006 (its request failed) carries the baseline's clip alone, c007 and c008
 * (refused: media off the plan) carry both, with the same fields as a measured pair's; each run's
 * invalid clips are named by slot and first code in report.json, on both pages and in the text
 * every CI output shares.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { clipsText } from '../../src/ci/format.js';
import { renderReport } from '../../src/pages/page.js';
import { ClipAnalysis } from '../../src/schemas/clip.js';
import { Report } from '../../src/schemas/report.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const report = Report.parse(JSON.parse(readFileSync(path.join(ROOT, 'fixtures', 'reference', 'report.json'), 'utf8')));
const b200 = report.comparisons[0]!;
/** A page's text: its markup dropped. */
const textOf = (html: string): string => html.replace(/<[^>]*>/g, '');
const pair = (slot: string) => b200.pairs.find((p) => p.slot_id === slot)!;

describe('every analysed clip written', () => {
  it('a pair whose partner failed carries the one side; a pair refused before measuring carries both', () => {
    expect(Object.keys(pair('measurement-r000-c006').clips!)).toEqual(['baseline']);
    for (const slot of ['measurement-r000-c007', 'measurement-r000-c008']) {
      const p = pair(slot);
      expect(p.video, slot).toBeNull();
      expect(Object.keys(p.clips!), slot).toEqual(['baseline', 'candidate']);
      // The same fields as a measured pair's clips, the file's sha256 among them.
      const measured = pair('measurement-r000-c000').clips!.baseline!;
      expect(Object.keys(p.clips!.candidate!).sort()).toEqual(Object.keys(measured).sort());
      expect(ClipAnalysis.parse(p.clips!.candidate).sha256).toBe(p.candidate_media!.match(/[0-9a-f]{64}/)![0]);
      expect(p.clips!.candidate!.reasons[0]!.code).toBe('MEDIA_PLAN_MISMATCH');
    }
    expect(pair('measurement-r000-c007').clips!.candidate!.video.frame_count).toBe(10);
    expect(pair('measurement-r000-c008').clips!.candidate!.audio).toBeNull();
    // Every completed clip of every run is written somewhere in the pairs.
    for (const run of report.runs) {
      const shas = new Set(report.comparisons.flatMap((c) => c.pairs.flatMap((p) => [p.clips?.baseline?.sha256, p.clips?.candidate?.sha256])));
      expect(shas.size, run.hardware.gpu_model).toBeGreaterThan(0);
    }
  });

  it("a run's invalid clips named by slot and first code: report.json, the shared CI text, both pages", () => {
    const run = report.runs.find((r) => r.hardware.gpu_model === 'B200')!;
    expect(run.clips!.invalid).toEqual([
      { slot_id: 'measurement-r000-c007', code: 'MEDIA_PLAN_MISMATCH' },
      { slot_id: 'measurement-r000-c008', code: 'MEDIA_PLAN_MISMATCH' },
    ]);
    expect(clipsText(run.clips!)).toBe('7 of 9 valid; MEDIA_PLAN_MISMATCH 2; invalid: measurement-r000-c007 MEDIA_PLAN_MISMATCH, measurement-r000-c008 MEDIA_PLAN_MISMATCH');
    const en = textOf(renderReport(report, 'en'));
    expect(en).toContain('7 of 9 clips valid');
    expect(en).toContain('invalid: measurement-r000-c007 MEDIA_PLAN_MISMATCH, measurement-r000-c008 MEDIA_PLAN_MISMATCH');
    const zh = textOf(renderReport(report, 'zh'));
    expect(zh).toContain('9 个片段中 7 个有效');
    expect(zh).toContain('无效：measurement-r000-c007 MEDIA_PLAN_MISMATCH, measurement-r000-c008 MEDIA_PLAN_MISMATCH');
  });
});
