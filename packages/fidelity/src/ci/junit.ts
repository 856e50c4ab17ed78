/**
 * The comparison as JUnit XML, the test report format GitLab, Jenkins and
 * GitHub test reporters read (docs/ci.md): one <testsuite> per comparison,
 * one <testcase> per planned pair (classname: the candidate's hardware and
 * run; name: the slot). A failed pair has a <failure> naming each failing
 * check with its value and threshold; an invalid pair an <error> whose type
 * is its reason code; each case across its repetitions (its outcome
 * counts) and a calibrated comparison's noise verdicts are properties of
 * its suite. Nothing in it depends on the clock or the
 * machine (no time, timestamp or hostname attributes): the same report
 * gives the same bytes.
 */
import type { Comparison, PairReport, Report } from '../schemas/report.js';
import { caseText, checkFigure, clipsText, failedCheckText, figure, runLabel } from './format.js';
import { visibleId } from '../visible.js';
import { counted } from '../words.js';

// XML 1.0 allows tab, newline, carriage return and U+0020.. except surrogates, U+FFFE and U+FFFF.
const NOT_XML = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;

/** Text content: the characters XML cannot hold become U+FFFD, markup characters are escaped. */
export function xmlText(s: string): string {
  return s.replace(NOT_XML, '\ufffd').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** An attribute value in double quotes; tab, newline and carriage return as references, so a parser keeps them. */
export function xmlAttr(s: string): string {
  return xmlText(s).replace(/"/g, '&quot;').replace(/\t/g, '&#9;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;');
}

const attrs = (list: [string, string | number][]): string => list.map(([k, v]) => ` ${k}="${xmlAttr(String(v))}"`).join('');
const cut = (s: string, max = 300): string => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

function property(name: string, value: string | number): string {
  return `      <property${attrs([['name', name], ['value', value]])}/>`;
}

function noiseVerdict(p: PairReport): string | null {
  if (!p.noise) return null;
  const v = p.noise.pair;
  const verdict = v.beyond === null ? 'no verdict (noise sample too small)' : v.beyond ? 'beyond noise' : 'within noise';
  const per = Object.entries(p.noise)
    .filter(([k]) => k !== 'pair')
    .map(([k, m]) => `${k} p ${figure((m as { p: number }).p)}`)
    .join(', ');
  return `${verdict}: p ${figure(v.p)} over ${counted(v.k, 'metric')}${per ? `; ${per}` : ''}`;
}

function testcase(c: Comparison, p: PairReport, disclaimer: string): string[] {
  const head = `    <testcase${attrs([['classname', runLabel(c.candidate_gpu_model, c.candidate_run_id, c.candidate_run_attempt)], ['name', visibleId(p.slot_id)]])}>`;
  const lines = [head];
  if (p.status === 'failed') {
    const failing = p.checks.filter((k) => k.outcome === 'fail');
    const body = [...failing.map((k) => `${k.name}: value ${k.value === null ? checkFigure(k.name, null) : String(k.value)}${k.note ? ` (${k.note})` : ''}, passes when ${k.comparator} ${k.threshold}`), disclaimer].join('\n');
    lines.push(`      <failure${attrs([['type', 'threshold'], ['message', failing.map(failedCheckText).join('; ')]])}>${xmlText(body)}</failure>`);
  } else if (p.status === 'invalid') {
    const details = p.reason_details.length ? p.reason_details : p.reasons.map((code) => ({ code, message: '' }));
    const message = details.map((d) => `${d.code}${d.message ? `: ${cut(d.message.replace(/\s+/g, ' '))}` : ''}`).join('; ');
    const body = details.map((d) => `${d.code}${d.message ? `: ${d.message}` : ''}`).join('\n');
    lines.push(`      <error${attrs([['type', p.reasons[0] ?? 'INVALID'], ['message', message]])}>${xmlText(body)}</error>`);
  }
  const checks = p.checks.map((k) => `${k.name} ${checkFigure(k.name, k.value, k.threshold)} ${k.comparator} ${k.threshold}: ${k.outcome}${k.note ? ` (${k.note})` : ''}`);
  const out = [`case ${visibleId(p.case_id)}, seed ${p.seed}, repetition ${p.repetition}`, ...checks];
  const noise = noiseVerdict(p);
  if (noise) out.push(`noise: ${noise}`);
  lines.push(`      <system-out>${xmlText(out.join('\n'))}</system-out>`, '    </testcase>');
  return lines;
}

function suite(report: Report, c: Comparison): string[] {
  const s = c.summary;
  const baseline = runLabel(c.baseline_gpu_model, c.baseline_run_id, c.baseline_run_attempt);
  const candidate = runLabel(c.candidate_gpu_model, c.candidate_run_id, c.candidate_run_attempt);
  const props = [
    property('baseline', baseline),
    property('candidate', candidate),
    property('policy', `${report.policy.name} (${report.policy.calibration_status})`),
    property('summary', `planned ${s.planned}, valid ${s.valid_pairs}, passed ${s.passed}, failed ${s.failed}, invalid ${s.invalid}`),
    property('fidelity.version', report.tool.version),
  ];
  // Each run's clips checked on their own (runs[].clips): absent from reports that analysed none.
  for (const [role, id, attempt] of [['baseline', c.baseline_run_id, c.baseline_run_attempt], ['candidate', c.candidate_run_id, c.candidate_run_attempt]] as const) {
    const clips = report.runs.find((r) => r.run_id === id && r.run_attempt === attempt)?.clips;
    if (clips) props.push(property(`clips.${role}`, clipsText(clips)));
  }
  // Each case across its repetitions, beside the per-pair testcases (docs/ci.md).
  for (const v of c.cases) props.push(property(`case.${visibleId(v.case_id)}`, `${v.status}: ${caseText(v, c.pairs)}`));
  if (c.noise) {
    const n = c.noise;
    props.push(
      property('noise.alpha', n.alpha),
      property('noise.n', n.n),
      property('noise.beyond_pairs', `${n.beyond_pairs} of ${n.valid_pairs}`),
      property('noise.binomial_p', figure(n.binomial_p)),
      ...(n.note ? [property('noise.note', n.note)] : []),
    );
    for (const p of c.pairs) {
      const v = noiseVerdict(p);
      if (v) props.push(property(`noise.${p.slot_id}`, v));
    }
  }
  return [
    `  <testsuite${attrs([['name', `${baseline} vs ${candidate}`], ['tests', c.pairs.length], ['failures', s.failed], ['errors', s.invalid], ['skipped', 0]])}>`,
    '    <properties>',
    ...props,
    '    </properties>',
    ...c.pairs.flatMap((p) => testcase(c, p, report.disclaimer)),
    '  </testsuite>',
  ];
}

/**
 * The report as JUnit XML (docs/ci.md): a `<testsuite>` per comparison, a `<testcase>` per planned
 * pair with `classname` "<candidate GPU> run <id>-<attempt>" and `name` the slot; a failed pair
 * has a `<failure type="threshold">` whose message names every failing check with its value and
 * threshold, an invalid pair an `<error>` whose `type` is its (first) reason code; each testcase's
 * `<system-out>` lists its case and checks; each case's repetition counts (`case.<case_id>`) and a calibrated comparison's noise verdicts are
 * `<property>` elements of its suite. No clock or host attributes: the same report, the same bytes.
 *
 * @example
 * ```ts
 * const result = await compare('runs/h200', ['runs/b200'], { out: 'bundle' });
 * writeFileSync('fidelity-junit.xml', junitXml(result.report));
 * ```
 */
export function junitXml(report: Report): string {
  const tests = report.comparisons.reduce((n, c) => n + c.pairs.length, 0);
  const failures = report.comparisons.reduce((n, c) => n + c.summary.failed, 0);
  const errors = report.comparisons.reduce((n, c) => n + c.summary.invalid, 0);
  return `${[
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attrs([['name', 'fidelity'], ['tests', tests], ['failures', failures], ['errors', errors]])}>`,
    ...report.comparisons.flatMap((c) => suite(report, c)),
    '</testsuites>',
  ].join('\n')}\n`;
}
