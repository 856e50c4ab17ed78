/**
 * junitXml on the committed reference report (a real comparison of the fixtures), a calibrated
 * copy and a hostile one: structure, counts, messages, determinism, and validation against
 * junit.xsd with xmllint (the format Jenkins and GitLab read; see the schema's header).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { junitXml, xmlAttr, xmlText } from '../../src/ci/junit.js';
import { invalidClip } from './invalid-clip.js';
import type { Report } from '../../src/schemas/report.js';
import { HAVE_XMLLINT, validate } from './xmllint.js';

const ROOT = path.resolve(import.meta.dirname, '../../../..');
const TEXT = readFileSync(path.join(ROOT, 'fixtures', 'reference', 'report.json'), 'utf8');
const fresh = (): Report => JSON.parse(TEXT) as Report;
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-junit-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function calibrated(): Report {
  const r = fresh();
  const c = r.comparisons[0]!;
  c.noise = { alpha: 0.05, n: 6, metrics: ['ssim_min'], verdict_metrics: ['ssim_min'], valid_pairs: 7, beyond_pairs: 1, beyond_by_metric: { ssim_min: 1 }, binomial_p: 0.3, binomial_p_by_metric: { ssim_min: 0.3 }, note: 'noise sample too small: n = 6, smallest possible p = 0.143', sources: [] };
  c.pairs[3]!.noise = { pair: { p: 0.0012, beyond: true, k: 1 }, ssim_min: { p: 0.0012, beyond: true, noise_worst: 0.99, n: 6 } } as unknown as NonNullable<Report['comparisons'][number]['pairs'][number]['noise']>;
  c.pairs[1]!.noise = { pair: { p: 0.5, beyond: false, k: 1 }, ssim_min: { p: 0.5, beyond: false, noise_worst: 0.99, n: 6 } } as unknown as NonNullable<Report['comparisons'][number]['pairs'][number]['noise']>;
  return r;
}

/** Archive text as hostile as XML allows and then some: markup, quotes, controls, a lone surrogate, a CDATA end. */
const HOSTILE = 'B200"><x/>&amp;\u0000\u0007\ud800]]>\n<!-- --> \u202e\t|`*';
function hostile(): Report {
  const r = fresh();
  const c = r.comparisons[0]!;
  c.candidate_gpu_model = HOSTILE;
  c.pairs[6]!.slot_id = `slot ${HOSTILE}`;
  c.pairs[6]!.reason_details[0]!.message = `error ${HOSTILE}`;
  c.pairs[3]!.case_id = HOSTILE;
  return r;
}

const write = (name: string, xml: string): string => {
  const f = path.join(tmp, name);
  writeFileSync(f, xml);
  return f;
};

describe('junitXml', () => {
  it('one testsuite per comparison, one testcase per planned pair: classname the candidate hardware and run, name the slot', () => {
    const xml = junitXml(fresh());
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="fidelity" tests="20" failures="4" errors="3">\n')).toBe(true);
    expect(xml.match(/<testsuite /g)).toHaveLength(2);
    expect(xml).toContain('<testsuite name="H200 run 30054883436-1 vs B200 run 30061277519-2" tests="10" failures="3" errors="3" skipped="0">');
    expect(xml.match(/<testcase /g)).toHaveLength(20);
    expect(xml).toContain('<testcase classname="B200 run 30061277519-2" name="measurement-r000-c000">');
    expect(xml).toContain('<testcase classname="H100 run 30049902211-1" name="measurement-r000-c009">');
  });

  it('a failed pair: a failure naming each failing check with its value and threshold', () => {
    const xml = junitXml(fresh());
    expect(xml).toMatch(/<failure type="threshold" message="min_ssim 0\.4\d+ not &gt;= 0\.92; video_psnr_db 22\.\d+ not &gt;= 30">min_ssim: value 0\.4\d+, passes when &gt;= 0\.92\n/);
    expect(xml).toMatch(/<failure type="threshold" message="spectral_cosine 0 not &gt;= 0\.95; rms_ratio_deviation 1 not &lt;= 0\.1">/);
    expect(xml.match(/<failure /g)).toHaveLength(4);
  });

  it('an invalid pair: an error whose type is the reason code, with its message', () => {
    const xml = junitXml(fresh());
    expect(xml).toContain('<error type="FAILED_CANDIDATE" message="FAILED_CANDIDATE: request timed out after 75 s">');
    // Media off the plan first (the root cause), the pair difference after it.
    expect(xml).toContain(`<error type="MEDIA_PLAN_MISMATCH" message="MEDIA_PLAN_MISMATCH: The candidate's media differ from the plan: frames 10 (plan 12); INCOMPATIBLE_FRAME_COUNT: Frame count differs: baseline 12, candidate 10">`);
    expect(xml.match(/<error /g)).toHaveLength(3);
  });

  it('an invalid clip: the error names its code and whose clip it is (the message says); each run\'s clips are properties of the suite', () => {
    const plain = junitXml(fresh());
    expect(plain).toContain('<property name="clips.baseline" value="10 of 10 valid"/>');
    expect(plain).toContain('<property name="clips.candidate" value="7 of 9 valid; MEDIA_PLAN_MISMATCH 2; invalid: measurement-r000-c007 MEDIA_PLAN_MISMATCH, measurement-r000-c008 MEDIA_PLAN_MISMATCH"/>');
    const xml = junitXml(invalidClip(fresh()));
    expect(xml).toContain('<property name="clips.candidate" value="6 of 9 valid; MEDIA_PLAN_MISMATCH 2, CLIP_BLANK 1; invalid: measurement-r000-c003 CLIP_BLANK, measurement-r000-c007 MEDIA_PLAN_MISMATCH, measurement-r000-c008 MEDIA_PLAN_MISMATCH"/>');
    expect(xml).toContain(`<error type="CLIP_BLANK" message="CLIP_BLANK: candidate's clip: the clip is black in every frame">`);
    expect(xml.match(/<error /g)).toHaveLength(4);
    expect(xml).toContain('tests="10" failures="2" errors="4"');
  });

  it('each case is a property of its suite with its repetition counts, beside the per-pair testcases', () => {
    const report = fresh();
    const xml = junitXml(report);
    for (const c of report.comparisons) {
      for (const v of c.cases) {
        const value = new RegExp(`<property name="case\\.${v.case_id}" value="${v.status}: passed ${v.passed}, failed ${v.failed}, invalid ${v.invalid} of ${v.repetitions} repetitions?; consistent`);
        expect(xml).toMatch(value);
      }
    }
    expect(xml).toMatch(/<property name="case\.night-market-s29" value="failed: [^"]*CHECK_FAILED_MIN_SSIM in 0; [^"]*min_ssim 0\.43\d+/);
    // The testcases stay one per planned pair.
    expect(xml.match(/<testcase /g)).toHaveLength(report.comparisons.reduce((n, c) => n + c.pairs.length, 0));
  });

  it('noise verdicts are properties of a calibrated suite, and only of a calibrated one', () => {
    const plain = junitXml(fresh());
    expect(plain).not.toContain('noise.');
    const xml = junitXml(calibrated());
    expect(xml).toContain('<property name="noise.beyond_pairs" value="1 of 7"/>');
    expect(xml).toContain('<property name="noise.measurement-r000-c003" value="beyond noise: p 0.0012 over 1 metric; ssim_min p 0.0012"/>');
    expect(xml).toContain('<property name="noise.measurement-r000-c001" value="within noise: p 0.5 over 1 metric; ssim_min p 0.5"/>');
    expect(xml).toContain('<property name="noise.note" value="noise sample too small: n = 6, smallest possible p = 0.143"/>');
    expect(xml.split('<testsuite ')[2]).not.toContain('noise.');
  });

  it('is deterministic: no time, timestamp or hostname; the same report gives the same bytes', () => {
    const xml = junitXml(fresh());
    expect(xml).toBe(junitXml(fresh()));
    expect(xml).not.toMatch(/\b(time|timestamp|hostname)=/);
  });

  it('escapes archive text into well-formed XML: markup stays text, characters XML cannot hold become U+FFFD', () => {
    expect(xmlText('a<b>&c')).toBe('a&lt;b&gt;&amp;c');
    expect(xmlAttr('"x"\n\ty')).toBe('&quot;x&quot;&#10;&#9;y');
    expect(xmlText('\u0000\u0007\ud800\ufffe')).toBe('\ufffd\ufffd\ufffd\ufffd');
    expect(xmlText('😀')).toBe('😀');
    const xml = junitXml(hostile());
    expect(xml).not.toContain('<x/>');
    expect(xml).not.toContain('\u0000');
    expect(xml).toContain('classname="B200&quot;&gt;&lt;x/&gt;&amp;amp;\ufffd\ufffd\ufffd]]&gt;&#10;&lt;!-- --&gt; \u202e&#9;|`* run 30061277519-2"');
  });
});

describe.skipIf(!HAVE_XMLLINT)('junitXml against the JUnit schema (xmllint)', () => {
  it('the fixture comparison, a calibrated one, one with an invalid clip and a hostile one validate', () => {
    for (const [name, report] of [['plain', fresh()], ['calibrated', calibrated()], ['invalid-clip', invalidClip(fresh())], ['hostile', hostile()]] as const) {
      const v = validate(write(`${name}.xml`, junitXml(report)));
      expect(v.ok, `${name}: ${v.output}`).toBe(true);
    }
  });

  it('the schema is not a rubber stamp: it refuses a testcase without a name, an error typed with prose, a time attribute', () => {
    const xml = junitXml(fresh());
    const bad = {
      noName: xml.replace('<testcase classname="B200 run 30061277519-2" name="measurement-r000-c000">', '<testcase classname="B200 run 30061277519-2">'),
      proseType: xml.replace('<error type="FAILED_CANDIDATE"', '<error type="the candidate failed"'),
      time: xml.replace('<testsuites name="fidelity"', '<testsuites name="fidelity" time="1.5"'),
      noCounts: xml.replace(' tests="10" failures="3" errors="3"', ''),
    };
    for (const [name, text] of Object.entries(bad)) {
      expect(text).not.toBe(xml);
      expect(validate(write(`bad-${name}.xml`, text)).ok, name).toBe(false);
    }
  });
});
