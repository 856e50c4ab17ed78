/**
 * The report page, English or Chinese, as one self-contained HTML string:
 * inline CSS, inline SVG, no script, nothing fetched from the network. The
 * summary comes first (what was compared, where, the outcome counts, the
 * uncalibrated warning, the decoder), then the run evidence, then one
 * collapsed section per pair. Same report in, same bytes out.
 */
import type { Comparison, Report, RunReport } from '../schemas/report.js';
import { evidenceSection, identityCell } from './html-evidence.js';
import { esc } from './html-escape.js';
import { shortHash } from './html-format.js';
import { pairSection } from './html-pair.js';
import { planSpecText } from './html-plan.js';
import { comparisonNoiseBlock } from './html-noise.js';
import { checkLabel, extLink, fileLink, headCell, kv, numCell, table, tx, txHtml } from './html-parts.js';
import { PAGE_DATA_ID, PAGE_SCRIPT, PAGE_SCRIPT_HASH, pageDataJson } from './html-script.js';
import { checkSourceText, policyDescriptionText } from './html-policy-text.js';
import { pageCss } from './html-style.js';
import { overviewBlock, verdictBlock } from './html-verdict.js';
import { fill, messages, PAGE_FILE } from './i18n.js';
import type { Lang, Messages } from './i18n.js';

/**
 * One script, allowed by its hash (html-script.ts), and no fetch beyond the bundle's own files: if escaping
 * ever missed something, injected markup still could not run or phone home.
 * `file:` is named beside 'self' because browsers disagree on whether 'self'
 * covers other files when the page itself was opened from file://.
 * An inline script must be listed in script-src as 'sha256-…' of its exact
 * text: verify-bundle refuses any other (docs/report-pages.md).
 */
const CSP = `default-src 'none'; style-src 'unsafe-inline'; img-src 'self' file:; media-src 'self' file:; script-src ${PAGE_SCRIPT_HASH}; base-uri 'none'; form-action 'none'`;

/** The files of a run's sources folder (cli-and-report.md, bundle layout). */
const SOURCE_FILES = ['ci.json', 'plan.json', 'run.json', 'original-SHA256SUMS'] as const;

function findRun(report: Report, role: 'baseline' | 'candidate', runId: number, attempt: number): RunReport | undefined {
  return report.runs.find((r) => r.run_id === runId && r.run_attempt === attempt && r.role === role) ?? report.runs.find((r) => r.run_id === runId && r.run_attempt === attempt);
}

/** How a run's id reads: GitHub's and another CI's run and attempt, GitLab's job (GitLab numbers no attempts). */
function runIdText(r: RunReport, m: Messages): string {
  return r.provider === 'gitlab' ? `${m.gitlab_job} ${r.run_id}` : `${r.run_id} (${m.attempt} ${r.run_attempt})`;
}

function runName(run: RunReport | undefined, gpu: string, runId: number, attempt: number, m: Messages): string {
  const text = `${gpu} · ${m.run} ${runId}/${attempt}`;
  return run ? extLink(run.links.run, text, run.server_url) : esc(text);
}

function disclaimerBox(report: Report, m: Messages): string {
  const body = report.policy.calibration_status === 'uncalibrated' ? m.disclaimer_uncalibrated : m.disclaimer_calibrated;
  return (
    `<div class="disclaimer" role="note" id="disclaimer"><strong>${esc(m.disclaimer_title)}</strong><p>${esc(body)}</p>` +
    `<details class="quote"><summary>${esc(m.disclaimer_report_says)}</summary><p>${esc(report.disclaimer)}</p></details></div>`
  );
}

function comparedBlock(report: Report, m: Messages): string {
  const items = report.comparisons.map((c) => {
    const base = findRun(report, 'baseline', c.baseline_run_id, c.baseline_run_attempt);
    const cand = findRun(report, 'candidate', c.candidate_run_id, c.candidate_run_attempt);
    return `<li>${txHtml(m, 'comparison_line', {
      candidate: runName(cand, c.candidate_gpu_model, c.candidate_run_id, c.candidate_run_attempt, m),
      baseline: runName(base, c.baseline_gpu_model, c.baseline_run_id, c.baseline_run_attempt, m),
    })}</li>`;
  });
  const plans = [...new Set(report.runs.map((r) => `${r.plan_id}\u0000${r.plan_sha256}`))].sort().map((p) => {
    const [id, sha] = p.split('\u0000') as [string, string];
    // The plan's media spec, which every measured file was checked against (reports before that check have none).
    const spec = report.runs.find((r) => r.plan_sha256 === sha && r.plan_spec)?.plan_spec;
    return `<code>${esc(id)}</code> <span class="muted mono" title="${esc(sha)}">sha256 ${esc(shortHash(sha))}</span>${spec ? `<br>${planSpecText(spec, m)}` : ''}`;
  });
  return (
    `<h3>${esc(m.what_compared)}</h3><ul class="links">${items.join('')}</ul>` +
    (plans.length ? kv([[esc(m.plan), plans.join('<br>')]]) : '')
  );
}

function outcomesBlock(report: Report, m: Messages): string {
  const rows = report.comparisons.map((c: Comparison) => [
    headCell(`${esc(c.candidate_gpu_model)} / ${esc(c.baseline_gpu_model)}`),
    numCell(esc(c.summary.planned)),
    numCell(esc(c.summary.valid_pairs)),
    // A zero is not an alarm: it gets no coloured badge.
    numCell(c.summary.passed ? `<span class="badge passed">${esc(c.summary.passed)}</span>` : '0'),
    numCell(c.summary.failed ? `<span class="badge failed">${esc(c.summary.failed)}</span>` : '0'),
    numCell(c.summary.invalid ? `<span class="badge invalid">${esc(c.summary.invalid)}</span>` : '0'),
  ]);
  return (
    `<h3>${esc(m.outcomes)}</h3>` +
    table([`${esc(m.candidate)} / ${esc(m.baseline)}`, esc(m.planned), esc(m.valid_pairs), esc(m.passed), esc(m.failed), esc(m.invalid)], rows) +
    `<p class="muted">${esc(m.outcomes_note)}</p>`
  );
}

function runtimeValue(runtime: RunReport['runtime'], k: string): string {
  const v = runtime?.[k];
  return v === undefined ? '—' : typeof v === 'string' ? v : (JSON.stringify(v) ?? 'null');
}

/** The runtime keys whose values are not the same in every run (a missing key counts as a value). */
function runtimeDiffers(runs: RunReport[]): Set<string> {
  const keys = new Set(runs.flatMap((r) => Object.keys(r.runtime ?? {})));
  return new Set([...keys].filter((k) => new Set(runs.map((r) => runtimeValue(r.runtime, k))).size > 1));
}

function runtimeText(runtime: RunReport['runtime'], differs: Set<string>): string {
  if (runtime === null) return '—';
  return Object.keys(runtime)
    .sort()
    .map((k) => {
      const line = `<code>${esc(k)}</code>: ${esc(runtimeValue(runtime, k))}`;
      return differs.has(k) ? `<mark>${line}</mark>` : line;
    })
    .join('<br>');
}

/** Fields as rows, runs as columns: two to four runs read well that way, on a phone too. */
function sitesBlock(report: Report, m: Messages): string {
  const runs = report.runs;
  // A setting that is not the same in every run is marked: it may explain a difference between the videos.
  const field = (label: string, f: (r: RunReport) => string, compare = false): string[] => {
    const cells = runs.map(f);
    const differs = compare && runs.length > 1 && new Set(cells).size > 1;
    return [headCell(esc(label) + (differs ? ` <span class="badge differs">${esc(m.differs)}</span>` : '')), ...cells];
  };
  const rtDiffers = runtimeDiffers(runs);
  const rows = [
    field(m.role, (r) => esc(r.role === 'baseline' ? m.baseline : m.candidate)),
    field(m.ci_provider, (r) => esc(m[`provider_${r.provider ?? 'github'}`]), true),
    field(m.run, (r) => extLink(r.links.run, runIdText(r, m), r.server_url)),
    // Only what a provider has: GitLab's pipeline, another CI's reference in words.
    ...(runs.some((r) => r.gitlab) ? [field(m.pipeline, (r) => (r.gitlab ? extLink(r.links.pipeline ?? null, String(r.gitlab.pipeline_id), r.server_url) : '—'))] : []),
    ...(runs.some((r) => r.run_ref !== undefined) ? [field(m.run_ref, (r) => (r.run_ref !== undefined ? esc(r.run_ref) : '—'))] : []),
    field(m.repository, (r) => (r.repository === null ? '—' : `<code>${esc(r.repository)}</code>`), true),
    field(m.workflow, (r) => (r.workflow === null ? '—' : esc(r.workflow)), true),
    field(m.job, (r) => esc(r.job), true),
    field(m.commit, (r) => `<code title="${esc(r.head_sha)}">${esc(shortHash(r.head_sha))}</code>`, true),
    field(m.artifact, (r) => extLink(r.links.artifact, r.artifact.name, r.server_url)),
    field(m.source_archive, (r) => `<code>${esc(r.source.name)}</code> (${esc(m[`source_kind_${r.source.kind === 'tar.gz' ? 'tar_gz' : r.source.kind}`])})`),
    field(m.artifact_digest, (r) => esc(r.digest.checked ? m.digest_checked : m.digest_not_checked)),
    field(m.identity, (r) => identityCell(r, m)),
    field(m.slots, (r) => tx(m, 'slots_value', { ok: r.slots.ok, failed: r.slots.failed, measurement: r.slots.measurement, warmup: r.slots.warmup })),
    field(m.gpus_allocated, (r) => esc(r.hardware.gpus_allocated), true),
    field(m.gpus_participating, (r) => esc(r.hardware.gpus_participating), true),
    [headCell(esc(m.runtime) + (rtDiffers.size ? ` <span class="badge differs">${esc(m.differs)}</span>` : '')), ...runs.map((r) => runtimeText(r.runtime, rtDiffers))],
    field(m.source_files, (r) => SOURCE_FILES.map((f) => fileLink(`${r.sources_dir}/${f}`, f)).join('<br>')),
  ];
  return `<h3>${esc(m.sites)}</h3>` + table([esc(m.gpu), ...runs.map((r) => `<strong>${esc(r.hardware.gpu_model)}</strong>`)], rows);
}

function decoderBlock(report: Report, m: Messages): string {
  const d = report.decoder;
  return (
    `<h3>${esc(m.decoder)}</h3>` +
    kv([
      [esc(m.ffmpeg_version), `<code>${esc(d.ffmpeg_version)}</code>`],
      [esc(m.ffmpeg_sha256), `<code>${esc(d.sha256)}</code>`],
      [esc(m.binary_source), `<code>${esc(d.source)}</code>`],
      [esc(m.ffprobe_version), `<code>${esc(d.ffprobe_version)}</code>`],
      [esc(m.ffprobe_sha256), `<code>${esc(d.ffprobe_sha256)}</code>`],
      ...measuredByRow(report, m),
    ])
  );
}

/** Who measured the pairs: all by the command that wrote the bundle, or how many merge re-measured (docs/scale-out.md, "Trust"). */
function measuredByRow(report: Report, m: Messages): [string, string][] {
  const o = report.measurement_origin;
  if (!o || o.pairs === 0) return [];
  const text = o.taken_from_shards === 0 ? fill(m.measured_all, { pairs: o.pairs }) : fill(m.measured_merge, { here: o.measured_here, pairs: o.pairs });
  return [[esc(m.measured_by), esc(text)]];
}

/** Tool-written policy text in the page's language; a policy file's own words as written, marked as data. */
function descriptionCell(description: string, m: Messages): string {
  const known = policyDescriptionText(description, m);
  return known === null ? `<span class="data">${esc(description)}</span>` : esc(known);
}

function sourceCell(source: string, m: Messages): string {
  const known = checkSourceText(source, m);
  return known === null ? `<span class="data">${esc(source)}</span>` : esc(known);
}

function policyBlock(report: Report, m: Messages): string {
  const p = report.policy;
  const rows = p.checks.map((c) => [
    headCell(esc(checkLabel(m, c.name))),
    `<code>${esc(c.metric)}</code>`,
    `<span class="mono nowrap">${esc(c.comparator === '>=' ? '≥' : '≤')} ${esc(String(c.threshold))}</span>`,
    c.source === null || c.source === undefined ? '—' : sourceCell(c.source, m),
    esc(c.enabled ? m.yes : m.no),
  ]);
  const calibration = p.calibration_status === 'uncalibrated' ? m.calibration_uncalibrated : m.calibration_calibrated;
  return (
    `<h3>${esc(m.thresholds)}</h3>` +
    kv([
      [esc(m.policy_name), `<code>${esc(p.name)}</code>`],
      // Reports written before metric sets computed every metric and have no `metrics`.
      ...(report.metrics
        ? [[esc(m.metric_set), `<code>${esc(report.metrics.set ?? '—')}</code> (${report.metrics.list.map((n) => `<code>${esc(n)}</code>`).join(', ')})`] as [string, string]]
        : []),
      [esc(m.calibration), `<strong>${esc(calibration)}</strong>`],
      // The policy file's own words: data, shown as written (the page's strings are translated, files are not).
      [esc(m.note), descriptionCell(p.description, m)],
    ]) +
    table([esc(m.check), esc(m.figure), esc(m.rule), esc(m.origin), esc(m.enabled)], rows)
  );
}

function downloadsBlock(report: Report, m: Messages): string {
  const items = [`<li>${fileLink('report.json', m.download_report_json, true)}</li>`];
  for (const c of report.comparisons) {
    const name = `${c.candidate_gpu_model} / ${c.baseline_gpu_model}`;
    for (const [key, file] of Object.entries(c.files ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const label = key === 'frames_csv' ? fill(m.download_comparison_frames, { comparison: name }) : `${m.download_other}: ${name}, ${key}`;
      items.push(`<li>${fileLink(file, label, true)}</li>`);
    }
  }
  return `<h3>${esc(m.downloads)}</h3><ul class="links">${items.join('')}</ul>`;
}

function pairsSection(report: Report, m: Messages): string {
  const parts = report.comparisons.map((c, ci) => {
    const ctx = {
      m,
      comparisonIndex: ci,
      policy: report.policy,
      baselineRun: findRun(report, 'baseline', c.baseline_run_id, c.baseline_run_attempt),
      candidateRun: findRun(report, 'candidate', c.candidate_run_id, c.candidate_run_attempt),
      ...(c.noise?.ssim_floor_per_frame?.length ? { ssimFloor: c.noise.ssim_floor_per_frame } : {}),
    };
    const title = `${esc(c.candidate_gpu_model)} ${esc(c.candidate_run_id)}/${esc(c.candidate_run_attempt)} / ${esc(c.baseline_gpu_model)} ${esc(c.baseline_run_id)}/${esc(c.baseline_run_attempt)}`;
    const pairs = c.pairs.length ? c.pairs.map((p) => pairSection(p, ctx)).join('') : `<p class="muted">${esc(m.no_pairs)}</p>`;
    const noise = comparisonNoiseBlock(c, m);
    const noiseBox = noise ? `<details class="noise-box"><summary>${esc(m.noise_title)}</summary>${noise}</details>` : '';
    return `<section id="comparison-${ci}"><h3>${title}</h3>${noiseBox}${pairs}</section>`;
  });
  return `<section id="pairs"><h2>${esc(m.pairs)}</h2><p class="muted">${esc(m.pairs_intro)}</p>${parts.join('')}</section>`;
}

/** The strings the page script shows; everything else it needs is already in the HTML. */
function scriptData(m: Messages): Record<string, unknown> {
  return { m: { play: m.play, pause: m.pause, frame_pos: m.frame_pos, showing_a: m.showing_a, showing_b: m.showing_b } };
}

function compactRun(report: Report, c: Comparison, side: 'baseline' | 'candidate', m: Messages): string {
  const run = side === 'baseline' ? findRun(report, 'baseline', c.baseline_run_id, c.baseline_run_attempt) : findRun(report, 'candidate', c.candidate_run_id, c.candidate_run_attempt);
  const gpu = side === 'baseline' ? c.baseline_gpu_model : c.candidate_gpu_model;
  const id = side === 'baseline' ? c.baseline_run_id : c.candidate_run_id;
  const at = side === 'baseline' ? c.baseline_run_attempt : c.candidate_run_attempt;
  const text = `${m.run} ${id}/${at}`;
  return `${esc(gpu)} <span class="small nowrap">${run ? extLink(run.links.run, text, run.server_url) : esc(text)}</span>`;
}

export function renderReport(report: Report, lang: Lang): string {
  const m = messages(lang);
  const other: Lang = lang === 'en' ? 'zh' : 'en';
  const toc = [
    `<li><a href="#overview">${esc(m.overview)}</a></li>`,
    `<li><a href="#pairs">${esc(m.pairs)}</a></li>`,
    `<li><a href="#summary">${esc(m.setup)}</a></li>`,
    `<li><a href="#evidence">${esc(m.evidence)}</a></li>`,
  ].join('');
  const body = [
    `<header class="top"><h1>${esc(m.page_title)}</h1>` +
      `<a class="lang" href="${PAGE_FILE[other]}" hreflang="${esc(m.other_lang_hreflang)}" lang="${esc(m.other_lang_hreflang)}">${esc(m.other_lang_label)}</a></header>`,
    verdictBlock(report, m, (c, side) => compactRun(report, c, side, m)),
    disclaimerBox(report, m),
    `<nav class="toc" aria-label="${esc(m.contents)}"><ul>${toc}</ul></nav>`,
    overviewBlock(report, m),
    pairsSection(report, m),
    `<section id="summary"><h2>${esc(m.setup)}</h2>`,
    `<p class="meta">${esc(m.generated)}: <time>${esc(report.generated_at)}</time> · ${esc(m.tool)}: ${esc(report.tool.name)} ${esc(report.tool.version)}</p>`,
    comparedBlock(report, m),
    outcomesBlock(report, m),
    sitesBlock(report, m),
    decoderBlock(report, m),
    policyBlock(report, m),
    downloadsBlock(report, m),
    `</section>`,
    evidenceSection(report, m, (name) => checkLabel(m, name)),
    `<footer><p>${tx(m, 'footer', { tool: report.tool.name, version: report.tool.version })}</p><p>${esc(m.disclaimer_title)}</p></footer>`,
  ];
  return (
    // The policy comes first so it covers every element; the charset right after, well inside the first 1024 bytes.
    `<!doctype html>\n<html lang="${esc(m.html_lang)}">\n<head>\n<meta http-equiv="Content-Security-Policy" content="${esc(CSP)}">\n` +
    `<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n` +
    `<meta name="referrer" content="no-referrer">\n` +
    `<title>${esc(m.page_title)} · ${esc(report.comparisons.map((c) => `${c.candidate_gpu_model}/${c.baseline_gpu_model}`).join(', '))}</title>\n` +
    `<style>\n${pageCss()}\n</style>\n</head>\n<body>\n<main>\n${body.join('\n')}\n</main>\n` +
    `<script type="application/json" id="${PAGE_DATA_ID}">${pageDataJson(scriptData(m))}</script>\n` +
    `<script>${PAGE_SCRIPT}</script>\n</body>\n</html>\n`
  );
}
