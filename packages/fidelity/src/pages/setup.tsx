/**
 * The setup section of the page: what was compared, the outcome counts, the
 * sites and runs side by side, the decoder, the thresholds and the
 * downloads. Everything here describes the comparison; nothing judges it.
 */
import type { VNode } from 'preact';
import type { Comparison, Report, RunReport } from '../schemas/report.js';
import { identityCell } from './evidence.js';
import { runRef, shortHash } from './format.js';
import { countKey, fill, fillCount } from './i18n.js';
import type { Messages } from './i18n.js';
import { checkLabel, extLink, fileLink, headCell, KeyValues, lines, numCell, Table, tx, type Child } from './parts.js';
import { planSpecText } from './plan.js';
import { checkSourceText, policyDescriptionText } from './policy-text.js';

/** The files of a run's sources folder (docs/report.md, "The bundle"). */
const SOURCE_FILES = ['ci.json', 'plan.json', 'run.json', 'original-SHA256SUMS'] as const;

/** The run a comparison names, preferring the one with that role (a run may be both, in calibration). */
export function findRun(report: Report, role: 'baseline' | 'candidate', runId: number, attempt: number): RunReport | undefined {
  return report.runs.find((r) => r.run_id === runId && r.run_attempt === attempt && r.role === role) ?? report.runs.find((r) => r.run_id === runId && r.run_attempt === attempt);
}

/** How a run's id reads: GitHub's and another CI's run and attempt, GitLab's job (GitLab numbers no attempts). */
function runIdText(r: RunReport, m: Messages): string {
  return r.provider === 'gitlab' ? `${m.gitlab_job} ${r.run_id}` : runRef(r.run_id, r.run_attempt);
}

function runName(run: RunReport | undefined, gpu: string, runId: number, attempt: number, m: Messages): Child {
  const text = `${gpu} · ${m.run} ${runRef(runId, attempt)}`;
  return run ? extLink(run.links.run, text, run.server_url) : text;
}

function comparedBlock(report: Report, m: Messages): Child {
  const items = report.comparisons.map((c) => {
    const base = findRun(report, 'baseline', c.baseline_run_id, c.baseline_run_attempt);
    const cand = findRun(report, 'candidate', c.candidate_run_id, c.candidate_run_attempt);
    return (
      <li>
        {tx(m, 'comparison_line', {
          baseline: runName(base, c.baseline_gpu_model, c.baseline_run_id, c.baseline_run_attempt, m),
          candidate: runName(cand, c.candidate_gpu_model, c.candidate_run_id, c.candidate_run_attempt, m),
        })}
      </li>
    );
  });
  const plans = [...new Set(report.runs.map((r) => `${r.plan_id}\u0000${r.plan_sha256}`))].sort().map((p) => {
    const [id, sha] = p.split('\u0000') as [string, string];
    // The plan's media spec, which every measured file was checked against (reports before that check have none).
    const spec = report.runs.find((r) => r.plan_sha256 === sha && r.plan_spec)?.plan_spec;
    return [
      <code>{id}</code>,
      ' ',
      <span class="muted mono" title={sha}>
        sha256 {shortHash(sha)}
      </span>,
      spec ? [<br />, planSpecText(spec, m)] : null,
    ];
  });
  return [<h3>{m.what_compared}</h3>, <ul class="links">{items}</ul>, plans.length ? <KeyValues items={[[m.plan, lines(plans)]]} /> : null];
}

function outcomesBlock(report: Report, m: Messages): Child {
  const rows = report.comparisons.map((c: Comparison) => [
    headCell([c.candidate_gpu_model, ' / ', c.baseline_gpu_model]),
    numCell(String(c.summary.planned)),
    numCell(String(c.summary.valid_pairs)),
    // A zero is not an alarm: it gets no coloured badge.
    numCell(c.summary.passed ? <span class="badge passed">{String(c.summary.passed)}</span> : '0'),
    numCell(c.summary.failed ? <span class="badge failed">{String(c.summary.failed)}</span> : '0'),
    numCell(c.summary.invalid ? <span class="badge invalid">{String(c.summary.invalid)}</span> : '0'),
  ]);
  return [
    <h3>{m.outcomes}</h3>,
    <Table head={[[m.candidate, ' / ', m.baseline], m.planned, m.valid_pairs, m.passed, m.failed, m.invalid]} rows={rows} />,
    <p class="muted">{m.outcomes_note}</p>,
  ];
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

function runtimeText(runtime: RunReport['runtime'], differs: Set<string>): Child {
  if (runtime === null) return '—';
  return lines(
    Object.keys(runtime)
      .sort()
      .map((k) => {
        const line = [<code>{k}</code>, ': ', runtimeValue(runtime, k)];
        return differs.has(k) ? <mark>{line}</mark> : line;
      }),
  );
}


/** A run's clips: "7 of 9 clips valid", and each invalid clip named by its slot and first code (report.json `runs[].clips.invalid`). */
function clipsCell(clips: NonNullable<RunReport['clips']>, m: Messages): Child {
  const valid = tx(m, countKey('clips_valid_value', clips.analysed), { valid: clips.valid, n: clips.analysed });
  if (!clips.invalid?.length) return valid;
  const list = clips.invalid.flatMap((c, i) => [...(i ? [', '] : []), <code>{c.slot_id}</code>, ' ', <code>{c.code}</code>]);
  return [...valid, <br />, ...tx(m, 'clips_invalid_named', { list })];
}
/** Fields as rows, runs as columns: two to four runs read well that way, on a phone too. */
function sitesBlock(report: Report, m: Messages): Child {
  const runs = report.runs;
  const differsBadge = (): VNode => <span class="badge differs">{m.differs}</span>;
  // A setting that is not the same in every run is marked: it may explain a difference between the videos.
  // `same` gives what is compared: the value as the cell shows it.
  const field = (label: string, f: (r: RunReport) => Child, same?: (r: RunReport) => string): Child[] => {
    const differs = same !== undefined && runs.length > 1 && new Set(runs.map(same)).size > 1;
    return [headCell(differs ? [label, ' ', differsBadge()] : label), ...runs.map(f)];
  };
  const rtDiffers = runtimeDiffers(runs);
  const rows = [
    field(m.role, (r) => (r.role === 'baseline' ? m.baseline : m.candidate)),
    field(m.ci_provider, (r) => m[`provider_${r.provider ?? 'github'}`], (r) => m[`provider_${r.provider ?? 'github'}`]),
    field(m.run, (r) => extLink(r.links.run, runIdText(r, m), r.server_url)),
    // Only what a provider has: GitLab's pipeline, another CI's reference in words.
    ...(runs.some((r) => r.gitlab) ? [field(m.pipeline, (r) => (r.gitlab ? extLink(r.links.pipeline ?? null, String(r.gitlab.pipeline_id), r.server_url) : '—'))] : []),
    ...(runs.some((r) => r.run_ref !== undefined) ? [field(m.run_ref, (r) => (r.run_ref !== undefined ? r.run_ref : '—'))] : []),
    field(m.repository, (r) => (r.repository === null ? '—' : <code>{r.repository}</code>), (r) => (r.repository === null ? '—' : `code ${r.repository}`)),
    field(m.workflow, (r) => (r.workflow === null ? '—' : r.workflow), (r) => (r.workflow === null ? '—' : r.workflow)),
    field(m.job, (r) => r.job, (r) => r.job),
    field(m.commit, (r) => <code title={r.head_sha}>{shortHash(r.head_sha)}</code>, (r) => r.head_sha),
    field(m.artifact, (r) => extLink(r.links.artifact, r.artifact.name, r.server_url)),
    field(m.source_archive, (r) => [<code>{r.source.name}</code>, ' (', m[`source_kind_${r.source.kind === 'tar.gz' ? 'tar_gz' : r.source.kind}`], ')']),
    field(m.artifact_digest, (r) => (r.digest.checked ? m.digest_checked : m.digest_not_checked)),
    field(m.identity, (r) => identityCell(r, m)),
    // The warm-up's outcome is stated, not folded into a count (reports before it was recorded: the count alone).
    field(m.slots, (r) => [
      tx(m, 'slots_value', { ok: r.slots.ok, failed: r.slots.failed, measurement: r.slots.measurement }),
      '; ',
      r.slots.warmup_ok === undefined || r.slots.warmup_failed === undefined
        ? tx(m, 'slots_warmup_count', { warmup: r.slots.warmup })
        : tx(m, 'slots_warmup_value', { warmup: r.slots.warmup, ok: r.slots.warmup_ok, failed: r.slots.warmup_failed }),
    ]),
    field(m.clips_valid, (r) => (r.clips ? clipsCell(r.clips, m) : m.clips_not_analysed)),
    field(m.gpus_allocated, (r) => String(r.hardware.gpus_allocated), (r) => String(r.hardware.gpus_allocated)),
    field(m.gpus_participating, (r) => String(r.hardware.gpus_participating), (r) => String(r.hardware.gpus_participating)),
    [headCell(rtDiffers.size ? [m.runtime, ' ', differsBadge()] : m.runtime), ...runs.map((r) => runtimeText(r.runtime, rtDiffers))],
    field(m.source_files, (r) => lines(SOURCE_FILES.map((f) => fileLink(`${r.sources_dir}/${f}`, f)))),
  ];
  return [<h3>{m.sites}</h3>, <Table head={[m.gpu, ...runs.map((r) => <strong>{r.hardware.gpu_model}</strong>)]} rows={rows} />];
}

/** Who measured the pairs: all by the command that wrote the bundle, or how many merge re-measured (docs/scale-out.md, "Trust"). */
function measuredByRow(report: Report, m: Messages): Array<[Child, Child]> {
  const o = report.measurement_origin;
  if (!o || o.pairs === 0) return [];
  const text = o.taken_from_shards === 0 ? fillCount(m, 'measured_all', o.pairs) : fill(m.measured_merge, { here: o.measured_here, pairs: o.pairs });
  return [[m.measured_by, text]];
}

function decoderBlock(report: Report, m: Messages): Child {
  const d = report.decoder;
  return [
    <h3>{m.decoder}</h3>,
    <KeyValues
      items={[
        [m.ffmpeg_version, <code>{d.ffmpeg_version}</code>],
        [m.ffmpeg_sha256, <code>{d.sha256}</code>],
        [m.binary_source, <code>{d.source}</code>],
        [m.ffprobe_version, <code>{d.ffprobe_version}</code>],
        [m.ffprobe_sha256, <code>{d.ffprobe_sha256}</code>],
        ...measuredByRow(report, m),
      ]}
    />,
  ];
}

/** Tool-written policy text in the page's language; a policy file's own words as written, marked as data. */
function descriptionCell(description: string, m: Messages): Child {
  const known = policyDescriptionText(description, m);
  return known === null ? <span class="data">{description}</span> : known;
}

function sourceCell(source: string, m: Messages): Child {
  const known = checkSourceText(source, m);
  return known === null ? <span class="data">{source}</span> : known;
}

function policyBlock(report: Report, m: Messages): Child {
  const p = report.policy;
  const rows = p.checks.map((c) => [
    headCell(checkLabel(m, c.name)),
    <code>{c.metric}</code>,
    <span class="mono nowrap">
      {c.comparator === '>=' ? '≥' : '≤'} {String(c.threshold)}
    </span>,
    c.source === null || c.source === undefined ? '—' : sourceCell(c.source, m),
    c.enabled ? m.yes : m.no,
  ]);
  const calibration = p.calibration_status === 'uncalibrated' ? m.calibration_uncalibrated : m.calibration_calibrated;
  const metricSet: Array<[Child, Child]> = report.metrics
    ? [
        [
          m.metric_set,
          [
            <code>{report.metrics.set ?? '—'}</code>,
            ' (',
            report.metrics.list.flatMap((n, i) => (i === 0 ? [<code>{n}</code>] : [', ', <code>{n}</code>])),
            ')',
          ],
        ],
      ]
    : [];
  return [
    <h3>{m.thresholds}</h3>,
    <KeyValues
      items={[
        [m.policy_name, <code>{p.name}</code>],
        // Reports written before metric sets computed every metric and have no `metrics`.
        ...metricSet,
        [m.calibration, <strong>{calibration}</strong>],
        // The policy file's own words: data, shown as written (the page's strings are translated, files are not).
        [m.note, descriptionCell(p.description, m)],
      ]}
    />,
    <Table head={[m.check, m.figure, m.rule, m.origin, m.enabled]} rows={rows} />,
  ];
}

function downloadsBlock(report: Report, m: Messages): Child {
  const items = [<li>{fileLink('report.json', m.download_report_json, true)}</li>];
  for (const c of report.comparisons) {
    const name = `${c.candidate_gpu_model} / ${c.baseline_gpu_model}`;
    for (const [key, file] of Object.entries(c.files ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const label = key === 'frames_csv' ? fill(m.download_comparison_frames, { comparison: name }) : `${m.download_other}: ${name}, ${key}`;
      items.push(<li>{fileLink(file, label, true)}</li>);
    }
  }
  return [<h3>{m.downloads}</h3>, <ul class="links">{items}</ul>];
}

export function SetupSection({ report, m }: { report: Report; m: Messages }): VNode {
  return (
    <section id="summary">
      <h2>{m.setup}</h2>
      <p class="meta">
        {m.generated}: <time>{report.generated_at}</time> · {m.tool}: {report.tool.name} {report.tool.version}
      </p>
      {comparedBlock(report, m)}
      {outcomesBlock(report, m)}
      {sitesBlock(report, m)}
      {decoderBlock(report, m)}
      {policyBlock(report, m)}
      {downloadsBlock(report, m)}
    </section>
  );
}
