/**
 * Archive text with right-to-left letters, bidi controls or zero-width
 * characters is isolated in the pages (FSI ... PDI, what <bdi> means), so it
 * cannot reorder the text around it: an RLO in a gpu_model would otherwise
 * reverse the rest of its heading.
 */
import { describe, expect, it } from 'vitest';
import { renderReport } from '../../src/pages/page.js';
import { isolateBidi } from '../../src/pages/render.js';
import { Report } from '../../src/schemas/report.js';
import { SAMPLE_MEDIA, sampleReport } from './html-fixture.js';

const FSI = '\u2068';
const PDI = '\u2069';
const RLO = '\u202e';

/** Every bidi control or RTL letter of `text` lies inside a balanced FSI ... PDI. */
function allIsolated(text: string): boolean {
  let depth = 0;
  for (const ch of text) {
    if (ch === FSI || ch === '\u2066' || ch === '\u2067') depth += 1;
    else if (ch === PDI) depth = Math.max(0, depth - 1);
    else if (/[\u202a-\u202e\u200e\u200f\u200b\u0590-\u05ff\u0600-\u06ff]/.test(ch) && depth === 0) return false;
  }
  return depth === 0;
}

describe('the renderer isolates direction-changing text', () => {
  it('wraps a value with an override, an RTL name or a zero-width space; leaves plain text as it was', () => {
    expect(isolateBidi(`H200${RLO}evil`)).toBe(`${FSI}H200${RLO}evil${PDI}`);
    expect(isolateBidi('שלום <b>')).toBe(`${FSI}שלום <b>${PDI}`);
    expect(isolateBidi('H2\u200b00')).toBe(`${FSI}H2\u200b00${PDI}`);
    expect(isolateBidi('H200 — 你好 <b> & "x"')).toBe('H200 — 你好 <b> & "x"');
    expect(isolateBidi('42')).toBe('42');
  });

  it('a PDI of the value with nothing to close cannot end the isolate early', () => {
    const out = isolateBidi(`${PDI}${RLO}gotcha`);
    expect(out).toBe(`${FSI}${RLO}gotcha${PDI}`);
    expect(allIsolated(out)).toBe(true);
    // Balanced isolates of the value are kept.
    expect(isolateBidi(`a\u2067ب${PDI}c`)).toBe(`${FSI}a\u2067ب${PDI}c${PDI}`);
  });
});

describe('report pages', () => {
  it('gpu_model, job and an error with bidi controls are isolated everywhere they appear', () => {
    const report = sampleReport(SAMPLE_MEDIA);
    const candidate = report.runs[1]!;
    candidate.hardware.gpu_model = `B200${RLO}1-2`;
    candidate.job = `smoke \u202bעברית ${PDI}`;
    report.comparisons[0]!.candidate_gpu_model = candidate.hardware.gpu_model;
    report.comparisons[0]!.pairs[2]!.candidate_error = `failed ${RLO}txt.exe`;
    const parsed = Report.parse(report);
    for (const lang of ['en', 'zh'] as const) {
      const html = renderReport(parsed, lang);
      expect(html).toContain(`${FSI}B200${RLO}1-2${PDI}`);
      expect(html).toContain(`${FSI}failed ${RLO}txt.exe${PDI}`);
      expect(allIsolated(html), lang).toBe(true);
    }
  });
});
