/**
 * A page that fits a campaign of many pairs: the passed pairs' sections together behind one line,
 * the overview one line per pair, videos at a watchable size, the checks table narrow enough for a
 * phone, and an invalid pair's media that show a first frame or say that nothing decodes.
 */
import { describe, expect, it } from 'vitest';
import { renderReport } from '../../src/pages/page.js';
import { MIN_VIDEO_WIDTH, videoDisplayWidth } from '../../src/pages/pair.js';
import { messages } from '../../src/pages/i18n.js';
import { PAGE_SCRIPT } from '../../src/pages/script.js';
import { Report } from '../../src/schemas/report.js';
import { SAMPLE_MEDIA, sampleReport } from './html-fixture.js';

/** The sample report with `extra` more passed pairs (copies of its passed one, on new slots). */
function withPassed(extra: number): Report {
  const report = sampleReport(SAMPLE_MEDIA);
  const pairs = report.comparisons[0]!.pairs;
  const passed = pairs.find((p) => p.status === 'passed')!;
  for (let i = 0; i < extra; i++) pairs.push({ ...passed, slot_id: `measurement-r001-c00${i}`, repetition: 1 });
  return Report.parse(report);
}

/** The HTML between `start` and the matching close of its element (no nesting of the same tag inside). */
function slice(html: string, start: string, end: string): string {
  const i = html.indexOf(start);
  expect(i, start).toBeGreaterThanOrEqual(0);
  return html.slice(i, html.indexOf(end, i) + end.length);
}

describe('a page for many pairs', () => {
  it('keeps the passed pairs behind one closed line per comparison, after the failed and invalid ones, and counts them in number', () => {
    for (const [extra, en, zh] of [
      [0, '1 passed pair: open for its section', '1 个通过的配对'],
      [3, '4 passed pairs: open for their sections, one line each', '4 个通过的配对'],
    ] as const) {
      const report = withPassed(extra);
      const page = renderReport(report, 'en');
      const groups = page.match(/<details class="pair-group">/g) ?? [];
      expect(groups).toHaveLength(1);
      const group = page.slice(page.indexOf('<details class="pair-group">'), page.indexOf('<section id="summary"'));
      // Every passed pair's section is inside the group, no other pair's is.
      const inside = [...group.matchAll(/<details class="pair" id="pair-0-([^"]+)"/g)].map((x) => x[1]);
      expect(inside).toEqual(report.comparisons[0]!.pairs.filter((p) => p.status === 'passed').map((p) => p.slot_id));
      const before = page.slice(0, page.indexOf('<details class="pair-group">'));
      for (const p of report.comparisons[0]!.pairs.filter((x) => x.status !== 'passed')) expect(before).toContain(`<details class="pair" id="pair-0-${p.slot_id}"`);
      expect(group).toContain(en);
      expect(renderReport(report, 'zh')).toContain(zh);
    }
  });

  it('writes one overview row per pair on one line: the slot with its badge, then the case', () => {
    const report = withPassed(2);
    const page = renderReport(report, 'en');
    const overview = slice(page, '<section id="overview">', '</section>');
    const rows = overview.match(/<tr class="st-[a-z]+">[\s\S]*?<\/tr>/g) ?? [];
    expect(rows).toHaveLength(report.comparisons[0]!.pairs.length);
    for (const row of rows) {
      const cells = row.match(/<td[^>]*>[\s\S]*?<\/td>/g) ?? [];
      expect(cells[0]).toMatch(/^<td class="nowrap">/);
      expect(cells[0]).not.toContain('<br');
      expect(cells[1]).toMatch(/^<td class="small nowrap">/);
    }
    expect(overview).toContain(`<th>${messages('en').case}</th>`);
  });

  it('shows a small clip scaled up by whole pixels to a watchable width, crisp, and a large one at its own size', () => {
    expect(MIN_VIDEO_WIDTH).toBe(320);
    expect(videoDisplayWidth(112)).toBe(336);
    expect(videoDisplayWidth(64)).toBe(320);
    expect(videoDisplayWidth(320)).toBe(320);
    expect(videoDisplayWidth(1344)).toBe(1344);
    const page = renderReport(withPassed(0), 'en');
    // The two sides of the two measured pairs; the invalid pair was not measured and its report has no plan size.
    const videos = (page.match(/<video\b[^>]*>/g) ?? []).filter((v) => v.includes(' width='));
    expect(videos).toHaveLength(4);
    for (const v of videos) {
      expect(v).toContain('class="crisp"');
      expect(v).toContain('style="--vw:320px"');
      expect(v).toContain(`width="${SAMPLE_MEDIA.width}"`);
      expect(v).toContain(`height="${SAMPLE_MEDIA.height}"`);
    }
    expect(page).toContain('video.crisp{image-rendering:pixelated}');
    expect(page).toContain('width:var(--vw,auto);max-width:100%;height:auto');
  });

  it('puts a check’s note under its name: four columns, the outcome last, and no checks table for an invalid pair', () => {
    const report = withPassed(0);
    const failed = report.comparisons[0]!.pairs.find((p) => p.status === 'failed')!;
    failed.checks[0]!.note = 'identical';
    const m = messages('en');
    const page = renderReport(report, 'en');
    const section = slice(page, `<details class="pair" id="pair-0-${failed.slot_id}"`, '</details>');
    const table = slice(section, '<table class="fits checks">', '</table>');
    expect((table.match(/<thead>[\s\S]*?<\/thead>/)![0].match(/<th>/g) ?? []).length).toBe(4);
    expect(table).toMatch(new RegExp(`<thead><tr><th>${m.check}</th><th>${m.value}</th><th>${m.rule}</th><th>${m.outcome}</th></tr></thead>`));
    expect(table).toContain(`<span class="note">${m.checknote_identical} <code>identical</code></span>`);
    const invalid = report.comparisons[0]!.pairs.find((p) => p.status === 'invalid')!;
    const invalidSection = slice(page, `<details class="pair" id="pair-0-${invalid.slot_id}"`, '</details>');
    expect(invalidSection).not.toContain('<table class="fits checks">');
    expect(invalidSection).not.toContain(m.checks);
  });

  it('has the script show a first frame for a video without a poster, and say so plainly when nothing decodes', () => {
    // The script reads its sentence from the data block, in the page's language.
    for (const lang of ['en', 'zh'] as const) {
      const page = renderReport(withPassed(0), lang);
      const data = JSON.parse(page.match(/<script type="application\/json" id="fidelity-data">([\s\S]*?)<\/script>/)![1]!) as { m: Record<string, string> };
      expect(data.m.no_decode).toBe(messages(lang).no_decode);
    }
    expect(PAGE_SCRIPT).toContain("v.preload='metadata'");
    expect(PAGE_SCRIPT).toMatch(/if\(v\.hasAttribute\('poster'\)/);
    expect(PAGE_SCRIPT).toContain("div.className='empty no-decode';div.textContent=msg.no_decode");
  });
});
