/**
 * The check declarations (policy/checks.ts) and what derives from them: the
 * policy schema's names, the example policy, the figures a policy may point
 * a check at, calibration's coverage and direction, and the pages' words and
 * digits. Judging itself is tested in evaluate.test.ts.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CALIBRATED_METRICS } from '../../src/calibrate/metrics.js';
import { verdictMetrics } from '../../src/calibrate/apply.js';
import { messages } from '../../src/pages/i18n.js';
import { checkLabel } from '../../src/pages/parts.js';
import { checkDigits, checkShort } from '../../src/pages/verdict.js';
import { CHECK_NAMES, CHECKS, calibratedKeyOf, checkDeclaration, worseOf, type CheckDeclaration } from '../../src/policy/checks.js';
import { DEFAULT_POLICY } from '../../src/policy/default.js';
import { CheckName } from '../../src/schemas/policy.js';

const declared = Object.entries(CHECKS as Record<string, CheckDeclaration>);

describe('the check declarations', () => {
  it('are the policy schema names, in declaration order', () => {
    expect(CheckName.options).toEqual(CHECK_NAMES);
    expect(CHECK_NAMES).toEqual(Object.keys(CHECKS));
    expect(CheckName.safeParse('max_ssim').success).toBe(false);
  });

  it('give the example policy: every check, its example figure, comparator, threshold and source, in order and key order', () => {
    expect(DEFAULT_POLICY.checks).toEqual(declared.map(([name, d]) => ({ name, ...d.example, enabled: true })));
    // Key order is part of report.json's bytes.
    for (const c of DEFAULT_POLICY.checks) expect(Object.keys(c)).toEqual(['name', 'metric', 'comparator', 'threshold', 'source', 'enabled']);
  });

  it('accept their own example figure and refuse figures of another family', () => {
    for (const [name, d] of declared) {
      expect(d.figures.test(d.example.metric), name).toBe(true);
      for (const [other, o] of declared) if (o.stream !== d.stream) expect(d.figures.test(o.example.metric), `${name} on ${other}`).toBe(false);
    }
  });

  it('name calibrated metrics that exist, with the direction their comparator gives', () => {
    for (const [name, d] of declared) {
      if (d.calibrated === null) continue;
      const metric = CALIBRATED_METRICS.find((m) => m.key === d.calibrated);
      expect(metric, name).toBeDefined();
      expect(metric!.worse, name).toBe(worseOf(d.example.comparator));
      expect(calibratedKeyOf(name, d.example.metric)).toBe(d.calibrated);
    }
    // A derived value keeps its calibrated metric whatever figure it reads; a plain figure is its own key.
    expect(calibratedKeyOf('rms_ratio_deviation', 'audio.rms_ratio')).toBe('audio.rms_ratio_deviation');
    expect(calibratedKeyOf('min_ssim', 'video.ssim.mean')).toBe('video.ssim.mean');
    expect(calibratedKeyOf('not_a_check', 'video.psnr_db')).toBe('video.psnr_db');
    expect(verdictMetrics(DEFAULT_POLICY)).toEqual(declared.flatMap(([, d]) => (d.calibrated ? [d.calibrated] : [])));
  });

  it('are the rows of docs/report.md, "Policy and outcomes": name, example figure, comparator, threshold and source', () => {
    const doc = readFileSync(new URL('../../../../docs/report.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('## Policy and outcomes'));
    const table = section.slice(0, section.indexOf('\n\n', section.indexOf('| check |')));
    const rows = table
      .split('\n')
      .filter((l) => l.startsWith('| `'))
      .map((l) => l.split('|').slice(1, -1).map((c) => c.trim()));
    expect(rows.map((r) => r[0])).toEqual(CHECK_NAMES.map((n) => `\`${n}\``));
    for (const [name, d] of declared) {
      const row = rows.find((r) => r[0] === `\`${name}\``)!;
      expect(row[1], name).toContain(`\`${d.example.metric}\``);
      const rule = /^(>=|<=) (\S+)$/.exec(row[2]!);
      expect(rule?.[1], name).toBe(d.example.comparator);
      expect(Number(rule?.[2]), name).toBe(d.example.threshold);
      expect(row[3], name).toBe(d.example.source);
    }
  });

  it('give the pages their words in both languages and their digits; an unknown name is shown as it is', () => {
    const en = messages('en');
    const zh = messages('zh');
    for (const [name, d] of declared) {
      expect(checkLabel(en, name)).toBe(d.words.en.label);
      expect(checkLabel(zh, name)).toBe(d.words.zh.label);
      expect(checkShort(zh, name)).toBe(d.words.zh.short);
      expect(d.words.zh.label).not.toBe(d.words.en.label);
      expect(checkDigits(name)).toBe(d.digits);
    }
    expect(checkDeclaration('toString')).toBeUndefined();
    expect(checkLabel(en, 'custom_check')).toBe('custom_check');
    expect(checkShort(zh, 'custom_check')).toBe('custom_check');
    expect(checkDigits('custom_check')).toBe(4);
  });
});
