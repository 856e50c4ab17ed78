/**
 * Both pages rendered from reports in which every text field that comes
 * from a run archive (ci.json, plan.json, run.json: names, prompts, errors,
 * runtime values, links, the policy's words) holds a hostile value: tags,
 * attribute breakers, `javascript:` and outside URLs, `</style>`,
 * `</script>`, comment and raw-text breakers, bidi controls, 100 kB strings.
 * The pages are read with parse5, as a browser reads them, and with
 * verify-bundle's own page scan: no element, attribute or URL may come from
 * the data, only text. The paths the tool writes itself (pair files, media
 * copies, sources) stay as written: they are not archive text.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'parse5';
import type { DefaultTreeAdapterTypes } from 'parse5';
import { describe, expect, it } from 'vitest';
import { scanPage } from '../../src/bundle-check/scan.js';
import { renderReport } from '../../src/pages/page.js';
import { PAGE_DATA_ID, PAGE_SCRIPT } from '../../src/pages/script.js';
import { pageCss } from '../../src/pages/style.js';
import { Report } from '../../src/schemas/report.js';
import { SAMPLE_MEDIA, sampleReport } from './html-fixture.js';

type Node = DefaultTreeAdapterTypes.Node;
type Element = DefaultTreeAdapterTypes.Element;

const MARK = 'zqx';
const BIG = `<${MARK}-big ${MARK}-attr="1">${'A'.repeat(100_000)}</${MARK}-big>`;
/** Each breaks out of a different context; the marker names whatever element or attribute would escape. */
const PAYLOADS = [
  `<${MARK}-el ${MARK}-attr="1">tag</${MARK}-el>`,
  `"><${MARK}-el ${MARK}-attr=1>`,
  `' ${MARK}-attr='1`,
  `javascript:${MARK}(1)`,
  `</style><${MARK}-el>`,
  `</script><${MARK}-el>`,
  `\u202e\u2067${MARK} שלום\u2069\u2069 <${MARK}-el>`,
  `<!--><${MARK}-el>`,
  `<svg><${MARK}-el/></svg><math><${MARK}-el>`,
  `https://evil.example/${MARK}`,
  `//evil.example/${MARK}`,
  `&lt;${MARK}-el&gt; &#x3c;${MARK}-el&#x3e;`,
  `</textarea><noscript><${MARK}-el></noscript><plaintext>`,
  `<img src=x onerror=${MARK}()>`,
  `</title><${MARK}-el>`,
];

/** Paths this tool writes itself (not archive text): kept, so the page still links its own files. */
const TOOL_PATHS = new Set(['files', 'baseline_media', 'candidate_media', 'sources_dir', 'power_audit']);

/** Every string of the report that the schema lets be any text, set to a payload (in turn); tool-made paths kept. */
function hostile(report: Report): { report: Report; fields: number } {
  const root = structuredClone(report) as unknown as Record<string, unknown>;
  const originals = new Map<string, { obj: Record<string, unknown>; key: string; value: string }>();
  const visit = (obj: Record<string, unknown>, at: string): void => {
    for (const key of Object.keys(obj)) {
      if (TOOL_PATHS.has(key)) continue;
      const value = obj[key];
      if (typeof value === 'string') {
        originals.set(`${at}/${key}`, { obj, key, value });
        // One field in 64 holds a 100 kB string (more would only make the page slow to read).
        obj[key] = originals.size % 64 === 7 ? BIG : PAYLOADS[originals.size % PAYLOADS.length]!;
      } else if (value && typeof value === 'object') visit(value as Record<string, unknown>, `${at}/${key}`);
    }
  };
  visit(root, '');
  // Where the schema allows only certain strings (enums, digests, dates), the report keeps its own.
  for (;;) {
    const result = Report.safeParse(root);
    if (result.success) return { report: result.data, fields: originals.size };
    for (const issue of result.error.issues) {
      const where = `/${issue.path.join('/')}`;
      const original = originals.get(where);
      if (!original) throw new Error(`the schema refuses ${where}, which was not changed: ${issue.message}`);
      original.obj[original.key] = original.value;
      originals.delete(where);
    }
  }
}

function withEverything(): Report {
  const report = sampleReport(SAMPLE_MEDIA);
  const p0 = report.comparisons[0]!.pairs[0]!;
  const dir = 'pairs/0/measurement-r000-c000';
  p0.files = {
    frames_csv: `${dir}/frames.csv`,
    baseline_worst_webp: `${dir}/baseline-worst.webp`,
    candidate_worst_webp: `${dir}/candidate-worst.webp`,
    ssim_heatmap_png: `${dir}/ssim-heatmap.png`,
    abs_diff_webp: `${dir}/abs-diff.webp`,
    audio_diff_normalized_flac: `${dir}/audio-diff-normalized.flac`,
    audio_waveform_png: `${dir}/audio-waveform.png`,
  };
  report.comparisons[0]!.files = { frames_csv: 'pairs/0/frames.csv' };
  // Every field a provider may add: GitLab's pipeline, another CI's reference, runtime settings.
  const cand = report.runs[1]!;
  cand.provider = 'gitlab';
  cand.gitlab = { project_id: 7, pipeline_id: 8 };
  cand.links.pipeline = 'https://gitlab.example/p/8';
  report.runs[0]!.run_ref = 'nightly 42';
  report.runs.forEach((r, i) => (r.runtime = { attention_backend: i === 0 ? 'fa3' : 'flashinfer', dtype: 'bf16' }));
  return Report.parse(report);
}

const REFERENCE = fileURLToPath(new URL('../../../../fixtures/reference/report.json', import.meta.url));
const reports: [string, Report][] = [
  ['every page part (hand-made report)', withEverything()],
  ['the fixture reference report (three runs, evidence)', Report.parse(JSON.parse(readFileSync(REFERENCE, 'utf8')))],
];

function isElement(node: Node): node is Element {
  return 'tagName' in node;
}
function* elements(node: Node): Generator<Element> {
  if (isElement(node)) yield node;
  const children = node.nodeName === 'template' ? (node as DefaultTreeAdapterTypes.Template).content.childNodes : 'childNodes' in node ? node.childNodes : [];
  for (const child of children) yield* elements(child);
}
function textOf(node: Node): string {
  if (node.nodeName === '#text') return (node as DefaultTreeAdapterTypes.TextNode).value;
  return 'childNodes' in node ? node.childNodes.map(textOf).join('') : '';
}

/** The elements the page templates write, and nothing else. */
const TAGS = new Set(
  (
    'html head body meta title style script main header h1 h2 h3 h4 h5 a section div p strong details summary nav ul li span code table thead tbody tr th td caption ' +
    'dl dt dd time footer mark br b figure figcaption video img audio button input output label svg line text polyline polygon circle desc i'
  ).split(' '),
);
const URL_ATTRS = new Set(['href', 'src', 'poster', 'srcset', 'action', 'formaction', 'data', 'xlink:href', 'background', 'cite', 'ping']);
/** What a URL the page writes may be: an anchor of ours, a plain bundle-relative path, or https on a run's declared server. */
const SAFE_URL = /^(?:#[A-Za-z0-9_-]+|[A-Za-z0-9][A-Za-z0-9._/-]*|https:\/\/github\.com\/example-org\/[A-Za-z0-9._/-]*)$/;

describe('pages from hostile archive text', () => {
  it.each(reports)('%s: no element, attribute or URL comes from the data, only text', (_name, clean) => {
    const { report, fields } = hostile(clean);
    expect(fields).toBeGreaterThan(40);
    for (const lang of ['en', 'zh'] as const) {
      const html = renderReport(report, lang);
      const doc = parse(html, { scriptingEnabled: true });
      const all = [...elements(doc)];
      for (const el of all) {
        expect(TAGS.has(el.tagName), `<${el.tagName}>`).toBe(true);
        for (const a of el.attrs) {
          const name = a.prefix ? `${a.prefix}:${a.name}` : a.name;
          expect(name.includes(MARK) || name.startsWith('on'), `<${el.tagName} ${name}>`).toBe(false);
          if (URL_ATTRS.has(name)) expect(a.value, `<${el.tagName} ${name}>`).toMatch(SAFE_URL);
        }
      }
      // Only our own style and scripts, with exactly our own text.
      const styles = all.filter((e) => e.tagName === 'style');
      expect(styles.map((s) => textOf(s).trim())).toEqual([pageCss()]);
      const scripts = all.filter((e) => e.tagName === 'script');
      expect(scripts.map((s) => s.attrs.map((a) => `${a.name}=${a.value}`).join(' '))).toEqual([`type=application/json id=${PAGE_DATA_ID}`, '']);
      expect(textOf(scripts[1]!)).toBe(PAGE_SCRIPT);
      expect(JSON.parse(textOf(scripts[0]!))).toHaveProperty('m.play');
      // The data is on the page, as text: every payload, the 100 kB one whole.
      const text = textOf(doc);
      for (const p of [...PAYLOADS, BIG]) expect(text.includes(p.replace(/\u2069\u2069/, '\u2069')) || text.includes(p), p.slice(0, 40)).toBe(true);
      // verify-bundle reads the page as it would in a bundle: no rule broken, no link out.
      const scan = scanPage(Buffer.from(html), lang === 'en' ? 'index.html' : 'index.zh.html');
      expect(scan.problems).toEqual([]);
      for (const link of scan.links) {
        // An address-like tooltip (a hostile commit shown in its title) is text, not a link: the scan lists it as such.
        if (link.use === 'text') expect(link.attr).toBe('title');
        else expect(link.value, link.attr).toMatch(SAFE_URL);
      }
    }
  });

  it('the hand-made report covers the parts of the page archive text reaches', () => {
    const html = renderReport(hostile(withEverything()).report, 'en');
    // Pair sections, the A/B player, stills, audio, the evidence tables and the provider rows are all there.
    for (const part of ['<details class="pair"', 'class="ab"', 'class="still"', '<audio ', 'id="evidence"', 'class="records"', '<mark>']) expect(html).toContain(part);
  });
});
