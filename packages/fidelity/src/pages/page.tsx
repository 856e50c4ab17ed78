/**
 * The report page, English or Chinese, from one template: inline CSS, inline
 * SVG, one inline script allowed by its hash, nothing fetched from the
 * network. The verdict comes first (the outcome counts, the failing pairs,
 * the uncalibrated warning), then the overview of every pair, the pairs, the
 * setup, and the run evidence. Same report in, same bytes out.
 *
 * The page is rendered by Preact (render.ts): run data is escaped and
 * bidi-isolated by the renderer, links pass link-gates.ts, and the only
 * unescaped markup is this tool's own stylesheet, script and JSON data
 * block, through `trustedHtml()`.
 */
import type { VNode } from 'preact';
import { FidelityError } from '../errors.js';
import type { Comparison, PairReport, Report } from '../schemas/report.js';
import { EvidenceSection } from './evidence.js';
import { runRef } from './format.js';
import { comparisonNoiseBlock } from './noise.js';
import { PairSection, type PairContext } from './pair.js';
import { badge, checkLabel, extLink, tx, type Child } from './parts.js';
import { renderHtml, trustedHtml } from './render.js';
import { PAGE_DATA_ID, PAGE_SCRIPT, PAGE_SCRIPT_HASH, pageDataJson } from './script.js';
import { findRun, SetupSection } from './setup.js';
import { pageCss } from './style.js';
import { OverviewBlock, VerdictBlock } from './verdict.js';
import { CaseFindings } from './case-findings.js';
import { fill, fillCount, messages, PAGE_FILE } from './i18n.js';
import type { Lang, Messages } from './i18n.js';

/**
 * One script, allowed by its hash (script.ts), and no fetch beyond the bundle's own files: if escaping
 * ever missed something, injected markup still could not run or phone home.
 * `file:` is named beside 'self' because browsers disagree on whether 'self'
 * covers other files when the page itself was opened from file://.
 * An inline script must be listed in script-src as 'sha256-…' of its exact
 * text: verify-bundle refuses any other (docs/report-pages.md).
 */
const CSP = `default-src 'none'; style-src 'unsafe-inline'; img-src 'self' file:; media-src 'self' file:; script-src ${PAGE_SCRIPT_HASH}; base-uri 'none'; form-action 'none'`;

/**
 * The page's first bytes, fixed text rather than rendered: verify-bundle
 * reads them as written (doctype, <html lang>, <head>, the policy as the
 * first element, the charset, all in the first 1024 bytes), and a renderer
 * writes void elements as `<meta …/>`. Built from constants only: the
 * language tag is one of ours and the policy holds no quote mark that needs
 * more than the `'` → `&#39;` written here.
 */
function prologue(lang: string): string {
  if (!/^[a-zA-Z-]+$/.test(lang)) throw new FidelityError('INTERNAL', `not a language tag: ${lang}`);
  return (
    `<!doctype html>\n<html lang="${lang}">\n<head>\n` +
    `<meta http-equiv="Content-Security-Policy" content="${CSP.replaceAll("'", '&#39;')}">\n` +
    `<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n` +
    `<meta name="referrer" content="no-referrer">\n`
  );
}

function disclaimerBox(report: Report, m: Messages): VNode {
  const body = report.policy.calibration_status === 'uncalibrated' ? m.disclaimer_uncalibrated : m.disclaimer_calibrated;
  return (
    <div class="disclaimer" role="note" id="disclaimer">
      <strong>{m.disclaimer_title}</strong>
      <p>{body}</p>
      <details class="quote">
        <summary>{m.disclaimer_report_says}</summary>
        <p>{report.disclaimer}</p>
      </details>
    </div>
  );
}

/**
 * A comparison's pair sections in slot order, failed and invalid ones first in their own lines; the
 * passed ones together in one closed `<details>`, so a campaign of mostly passing pairs costs a
 * line per passed group until it is opened (a `#pair-…` link opens it, with or without the script).
 */
export function pairSections(pairs: readonly PairReport[], ctx: PairContext): Child {
  const { m } = ctx;
  const bad = pairs.filter((p) => p.status !== 'passed');
  const passed = pairs.filter((p) => p.status === 'passed');
  return [
    bad.map((p) => <PairSection pair={p} ctx={ctx} />),
    passed.length ? (
      <details class="pair-group">
        <summary>
          {badge('passed', m.status_passed)} {fillCount(m, 'passed_group', passed.length)}
        </summary>
        {passed.map((p) => (
          <PairSection pair={p} ctx={ctx} />
        ))}
      </details>
    ) : null,
  ];
}

function pairsSection(report: Report, m: Messages): VNode {
  const parts = report.comparisons.map((c, ci) => {
    const ctx = {
      m,
      comparisonIndex: ci,
      policy: report.policy,
      baselineRun: findRun(report, 'baseline', c.baseline_run_id, c.baseline_run_attempt),
      candidateRun: findRun(report, 'candidate', c.candidate_run_id, c.candidate_run_attempt),
      ...(c.noise?.ssim_floor_per_frame?.length ? { ssimFloor: c.noise.ssim_floor_per_frame } : {}),
      ...(c.noise ? { noiseAlpha: c.noise.alpha } : {}),
    };
    const noise = comparisonNoiseBlock(c, m);
    return (
      <section id={`comparison-${ci}`}>
        <h3>
          {c.baseline_gpu_model} {runRef(c.baseline_run_id, c.baseline_run_attempt)} {m.versus} {c.candidate_gpu_model} {runRef(c.candidate_run_id, c.candidate_run_attempt)}
        </h3>
        {noise ? (
          <details class="noise-box">
            <summary>{m.noise_title}</summary>
            {noise}
          </details>
        ) : null}
        {c.pairs.length ? pairSections(c.pairs, ctx) : <p class="muted">{m.no_pairs}</p>}
      </section>
    );
  });
  return (
    <section id="pairs">
      <h2>{m.pairs}</h2>
      <p class="muted">{m.pairs_intro}</p>
      {parts}
    </section>
  );
}

/** The strings the page script shows; everything else it needs is already in the HTML. */
function scriptData(m: Messages): Record<string, unknown> {
  return { m: { play: m.play, pause: m.pause, frame_pos: m.frame_pos, showing_a: m.showing_a, showing_b: m.showing_b, no_decode: m.no_decode } };
}

function compactRun(report: Report, c: Comparison, side: 'baseline' | 'candidate', m: Messages): Child {
  const run = side === 'baseline' ? findRun(report, 'baseline', c.baseline_run_id, c.baseline_run_attempt) : findRun(report, 'candidate', c.candidate_run_id, c.candidate_run_attempt);
  const gpu = side === 'baseline' ? c.baseline_gpu_model : c.candidate_gpu_model;
  const id = side === 'baseline' ? c.baseline_run_id : c.candidate_run_id;
  const at = side === 'baseline' ? c.baseline_run_attempt : c.candidate_run_attempt;
  const text = `${m.run} ${runRef(id, at)}`;
  return [gpu, ' ', <span class="small nowrap">{run ? extLink(run.links.run, text, run.server_url) : text}</span>];
}

function Head({ report, m }: { report: Report; m: Messages }): VNode {
  return (
    <>
      <title>
        {m.page_title} · {report.comparisons.map((c) => `${c.candidate_gpu_model}/${c.baseline_gpu_model}`).join(', ')}
      </title>
      <style dangerouslySetInnerHTML={trustedHtml(`\n${pageCss()}\n`)} />
    </>
  );
}

function Body({ report, m, lang }: { report: Report; m: Messages; lang: Lang }): VNode {
  const other: Lang = lang === 'en' ? 'zh' : 'en';
  return (
    <body>
      <main>
        <header class="top">
          <h1>{m.page_title}</h1>
          <a class="lang" href={PAGE_FILE[other]} hreflang={m.other_lang_hreflang} lang={m.other_lang_hreflang}>
            {m.other_lang_label}
          </a>
        </header>
        <VerdictBlock report={report} m={m} runLabel={(c, side) => compactRun(report, c, side, m)} findings={CaseFindings({ report, m })} />
        {disclaimerBox(report, m)}
        <nav class="toc" aria-label={m.contents}>
          <ul>
            <li>
              <a href="#overview">{m.overview}</a>
            </li>
            <li>
              <a href="#pairs">{m.pairs}</a>
            </li>
            <li>
              <a href="#summary">{m.setup}</a>
            </li>
            <li>
              <a href="#evidence">{m.evidence}</a>
            </li>
          </ul>
        </nav>
        <OverviewBlock report={report} m={m} />
        {pairsSection(report, m)}
        <SetupSection report={report} m={m} />
        <EvidenceSection report={report} m={m} checkLabel={(name) => checkLabel(m, name)} />
        <footer>
          <p>{tx(m, 'footer', { tool: report.tool.name, version: report.tool.version })}</p>
          <p>{m.disclaimer_title}</p>
        </footer>
      </main>
      <script type="application/json" id={PAGE_DATA_ID} dangerouslySetInnerHTML={trustedHtml(pageDataJson(scriptData(m)))} />
      <script dangerouslySetInnerHTML={trustedHtml(PAGE_SCRIPT)} />
    </body>
  );
}

/** The page of `report` in `lang`: the same report gives the same bytes, whatever the thread or machine. */
export function renderReport(report: Report, lang: Lang): string {
  const m = messages(lang);
  const head = renderHtml(() => <Head report={report} m={m} />);
  const body = renderHtml(() => <Body report={report} m={m} lang={lang} />);
  return `${prologue(m.html_lang)}${head}\n</head>\n${body}\n</html>\n`;
}
