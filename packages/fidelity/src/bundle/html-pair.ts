/**
 * One pair's collapsed section. <details> keeps it closed without any script,
 * and the videos use preload="none": opening the page fetches no MP4, and
 * only pressing play on a pair fetches that pair's two files.
 */
import type { AudioMetrics, PsnrSeries, SsimSeries, VideoMetrics } from '../schemas/measurement.js';
import type { CheckResult, Policy } from '../schemas/policy.js';
import type { PairReport, RunReport } from '../schemas/report.js';
import { AUDIO_DIFF_SECONDS, PAIR_FILE_KEYS } from './assets-keys.js';
import { HEATMAP_FLOOR, heatmapSize, stillSize } from './assets-geometry.js';
import { ssimChart } from './html-chart.js';
import { pairNoiseBlock } from './html-noise.js';
import { bundleHref, esc } from './html-escape.js';
import { num } from './html-format.js';
import { badge, checkLabel, extLink, fileLink, headCell, kv, numCell, pairAnchor, table, tx } from './html-parts.js';
import type { Messages } from './i18n.js';
import { chartedSeries, worstFrameOf } from './video-series.js';

export interface PairContext {
  m: Messages;
  comparisonIndex: number;
  /** The report's policy: its min_ssim check decides which SSIM series is charted. */
  policy?: Policy;
  baselineRun: RunReport | undefined;
  candidateRun: RunReport | undefined;
  /** Per frame, the lowest same-hardware SSIM (the chart's noise band); absent when not calibrated. */
  ssimFloor?: number[];
}

const CHECK_DIGITS: Record<string, number> = { min_ssim: 6, video_psnr_db: 2, spectral_cosine: 6, rms_ratio_deviation: 4 };

function sideName(m: Messages, side: 'baseline' | 'candidate' | 'both' | null): string {
  if (side === 'baseline') return m.side_baseline;
  if (side === 'candidate') return m.side_candidate;
  if (side === 'both') return m.side_both;
  return '—';
}

function summaryLine(pair: PairReport, m: Messages): string {
  const sep = '<span class="sep">·</span>';
  const headline = pair.video ? chartedSeries(pair.video) : null;
  const figure = pair.video
    ? headline
      ? `${esc(m.min_ssim_short)} ${esc(num(headline.series.min, 4, m.unavailable))}`
      : ''
    : pair.reasons.map((r) => `<code>${esc(r)}</code>`).join(' ');
  return (
    `<summary>${badge(pair.status, m[`status_${pair.status}`])} <code>${esc(pair.slot_id)}</code>${sep}${esc(pair.case_id)}` +
    `${sep}${esc(m.seed)} ${esc(pair.seed)}${figure ? sep + figure : ''}</summary>`
  );
}

function reasonsBlock(pair: PairReport, m: Messages): string {
  if (pair.reasons.length === 0 && pair.reason_details.length === 0) return '';
  const detailed = new Set(pair.reason_details.map((d) => d.code));
  const rows = [
    ...pair.reason_details.map((d) => [`<code>${esc(d.code)}</code>`, esc(sideName(m, d.side)), `<span class="prompt">${esc(d.message)}</span>`]),
    ...pair.reasons.filter((c) => !detailed.has(c)).map((c) => [`<code>${esc(c)}</code>`, '—', '—']),
  ];
  return `<h4>${esc(m.reasons_title)}</h4>` + table([esc(m.reason_code), esc(m.side), esc(m.detail)], rows);
}

function recordsBlock(pair: PairReport, m: Messages): string {
  const sides = [
    { name: m.side_baseline, status: pair.baseline_status, error: pair.baseline_error },
    { name: m.side_candidate, status: pair.candidate_status, error: pair.candidate_error },
  ];
  if (sides.every((s) => s.status === 'ok' && s.error === null)) return '';
  const rows = sides.map((s) => [
    headCell(esc(s.name)),
    badge(s.status === 'ok' ? 'pass' : 'fail', s.status === 'ok' ? m.record_ok : m.record_failed),
    s.error === null ? '—' : `<span class="prompt">${esc(s.error)}</span>`,
  ]);
  return table([esc(m.side), esc(m.record_status), esc(m.record_error)], rows);
}

function runLabel(run: RunReport | undefined, m: Messages, side: 'baseline' | 'candidate'): string {
  const role = side === 'baseline' ? m.baseline : m.candidate;
  if (!run) return esc(role);
  return tx(m, 'video_label', { side: role, gpu: run.hardware.gpu_model, run: `${run.run_id}/${run.run_attempt}` });
}

function videoFigure(media: string | null, caption: string, video: VideoMetrics | null, m: Messages): string {
  const href = media === null ? null : bundleHref(media);
  if (href === null) return `<figure><figcaption>${caption}</figcaption><div class="empty">${esc(m.no_media)}</div></figure>`;
  const size = video ? ` width="${video.width}" height="${video.height}"` : '';
  return (
    `<figure><figcaption>${caption}</figcaption>` +
    `<video controls preload="none" playsinline${size} src="${href}">${esc(m.video_fallback)} <a href="${href}">${esc(media ?? '')}</a></video></figure>`
  );
}

function imageFigure(path: string | undefined, caption: string, cls: string, size: { width: number; height: number } | null, alt: string): string {
  const href = path === undefined ? null : bundleHref(path);
  if (href === null) return '';
  const dims = size ? ` width="${size.width}" height="${size.height}"` : '';
  return `<figure><figcaption>${caption}</figcaption><img class="${cls}" src="${href}"${dims} alt="${esc(alt)}" loading="lazy" decoding="async"></figure>`;
}

function stillsBlock(pair: PairReport, ctx: PairContext): string {
  const { m } = ctx;
  const video = pair.video;
  if (!video) return '';
  const frame = { width: video.width, height: video.height };
  const worst = worstFrameOf(video);
  const still = stillSize(frame);
  const heat = heatmapSize(frame);
  const figures = [
    imageFigure(pair.files[PAIR_FILE_KEYS.baselineWorst], runLabel(ctx.baselineRun, m, 'baseline'), 'still', still, `${m.baseline}: ${m.stat_worst} ${worst}`),
    imageFigure(pair.files[PAIR_FILE_KEYS.candidateWorst], runLabel(ctx.candidateRun, m, 'candidate'), 'still', still, `${m.candidate}: ${m.stat_worst} ${worst}`),
    imageFigure(pair.files[PAIR_FILE_KEYS.heatmap], esc(m.heatmap_title), 'heat', heat, m.heatmap_title),
  ].filter(Boolean);
  if (figures.length === 0) return '';
  const legend = pair.files[PAIR_FILE_KEYS.heatmap]
    ? `<p class="muted">${esc(m.heatmap_equal)} <span class="legend" aria-hidden="true"></span> ${esc(num(HEATMAP_FLOOR, 1, ''))} · ${tx(m, 'heatmap_note', { floor: num(HEATMAP_FLOOR, 1, '') })}</p>`
    : '';
  return `<h4>${tx(m, 'worst_title', { frame: worst })}</h4><div class="triple">${figures.join('')}</div>${legend}`;
}

function checksBlock(checks: CheckResult[], m: Messages): string {
  if (checks.length === 0) return '';
  const rows = checks.map((c) => [
    headCell(esc(checkLabel(m, c.name))),
    numCell(esc(num(c.value, CHECK_DIGITS[c.name] ?? 4, m.unavailable))),
    `<span class="mono nowrap">${esc(c.comparator === '>=' ? '≥' : '≤')} ${esc(String(c.threshold))}</span>`,
    badge(c.outcome, m[`outcome_${c.outcome}`]),
    c.note === null ? '' : `<code>${esc(c.note)}</code>`,
  ]);
  return `<h4>${esc(m.checks)}</h4>` + table([esc(m.check), esc(m.value), esc(m.rule), esc(m.outcome), esc(m.note)], rows);
}

function seriesRow(label: string, s: SsimSeries | PsnrSeries, digits: number, m: Messages, hmean: boolean): string[] {
  const f = (v: number | null | undefined): string => numCell(esc(num(v, digits, m.unavailable)));
  const h = hmean && 'harmonic_mean' in s ? f(s.harmonic_mean) : numCell('—');
  return [headCell(esc(label)), f(s.min), f(s.p05), f(s.mean), h, f(s.max), numCell(esc(s.worst_frame ?? m.unavailable))];
}

function videoBlock(video: VideoMetrics, m: Messages): string {
  // Only the metrics the set computed have a row (or a line).
  const rows = [
    video.ssim && seriesRow(m.ssim_gaussian, video.ssim, 6, m, true),
    video.ssim_ffmpeg && seriesRow(m.ssim_ffmpeg_all, video.ssim_ffmpeg.all, 6, m, true),
    video.ssim_rgb7 && seriesRow(m.ssim_rgb7, video.ssim_rgb7, 6, m, true),
    video.psnr_y && seriesRow(m.psnr_y, video.psnr_y, 2, m, false),
  ].filter((r): r is string[] => Boolean(r));
  const head = [esc(m.figure), esc(m.stat_min), esc(m.stat_p05), esc(m.stat_mean), esc(m.stat_hmean), esc(m.stat_max), esc(m.stat_worst)];
  return (
    `<h4>${esc(m.video_figures)}</h4>` +
    kv([
      [esc(m.size), `${video.width}×${video.height}`],
      [esc(m.frames), esc(video.frames)],
      ...(video.psnr_db !== undefined ? [[esc(m.psnr_pooled), esc(num(video.psnr_db, 2, m.unavailable))] as [string, string]] : []),
      ...(video.mae !== undefined ? [[esc(m.mae), esc(num(video.mae, 6, m.unavailable))] as [string, string]] : []),
      [esc(m.identical_streams), esc(video.identical ? m.yes : m.no)],
    ]) +
    (rows.length ? table(head, rows) : '') +
    (video.psnr_y && video.psnr_y.identical_frames > 0 ? `<p class="muted">${esc(m.psnr_y)}: ${tx(m, 'identical_frames', { n: video.psnr_y.identical_frames })}</p>` : '')
  );
}

function audioBlock(pair: PairReport, audio: AudioMetrics | null, m: Messages): string {
  if (audio === null) return `<h4>${esc(m.audio)}</h4><p class="muted">${esc(m.no_audio)}</p>`;
  const ch = audio.channels;
  const yn = (b: boolean): string => esc(b ? m.yes : m.no);
  const line = (label: string, f: (c: (typeof ch)[number]) => string, numeric = true): string[] => [
    headCell(esc(label)),
    ...ch.map((c) => (numeric ? numCell(f(c)) : f(c))),
  ];
  const n = (v: number | null, d: number): string => esc(num(v, d, m.unavailable));
  const rows = [
    line(m.samples, (c) => esc(c.samples)),
    line(m.max_abs_diff, (c) => n(c.max_abs_diff, 6)),
    line(m.audio_mae, (c) => n(c.mae, 6)),
    line(m.rmse, (c) => n(c.rmse, 6)),
    line(m.snr_db, (c) => n(c.snr_db, 2)),
    line(m.pearson, (c) => n(c.pearson, 6)),
    line(m.rms_ratio, (c) => (c.rms_ratio === null && c.rms_ratio_reason ? `<code>${esc(c.rms_ratio_reason)}</code>` : n(c.rms_ratio, 4))),
    line(m.spectral_cosine, (c) => n(c.spectral_cosine, 6)),
    line(m.newly_silent, (c) => yn(c.newly_silent), false),
    line(m.identical, (c) => yn(c.identical), false),
    line(m.lag, (c) => esc(c.lag_estimate_samples)),
  ];
  const head = [esc(m.figure), ...ch.map((c) => `${esc(m.channel)} ${esc(c.channel)}`)];
  const wav = pair.files[PAIR_FILE_KEYS.audioDiff];
  const wavHref = wav === undefined ? null : bundleHref(wav);
  const listen =
    wavHref === null
      ? ''
      : `<h4>${esc(m.audio_diff_title)}</h4><audio controls preload="none" src="${wavHref}"></audio>` +
        `<p class="muted">${tx(m, 'audio_diff_note', { seconds: AUDIO_DIFF_SECONDS })} ${fileLink(wav ?? '', 'WAV', true)}</p>`;
  return (
    `<h4>${esc(m.audio)}</h4>` +
    kv([
      [esc(m.sample_rate), `${esc(audio.sample_rate)} Hz`],
      [esc(m.identical), esc(audio.identical ? m.yes : m.no)],
    ]) +
    `<p>${tx(m, 'audio_aggregate', { cos: num(audio.spectral_cosine, 6, m.unavailable), ratio: num(audio.rms_ratio, 4, m.unavailable) })}</p>` +
    table(head, rows) +
    listen
  );
}

function linksBlock(pair: PairReport, ctx: PairContext): string {
  const { m } = ctx;
  const items: string[] = [];
  for (const [run, role] of [[ctx.baselineRun, m.baseline], [ctx.candidateRun, m.candidate]] as const) {
    if (!run) continue;
    items.push(
      `<li>${esc(role)} (${esc(run.hardware.gpu_model)}): ${extLink(run.links.run, `${m.ci_run} ${run.run_id}/${run.run_attempt}`, run.server_url)} · ` +
        `${extLink(run.links.artifact, `${m.ci_artifact} ${run.artifact.name}`, run.server_url)}</li>`,
    );
  }
  const shown = new Set<string>([PAIR_FILE_KEYS.baselineWorst, PAIR_FILE_KEYS.candidateWorst, PAIR_FILE_KEYS.heatmap, PAIR_FILE_KEYS.audioDiff]);
  const downloads = Object.entries(pair.files)
    .filter(([k]) => !shown.has(k))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, p]) => `<li>${fileLink(p, k === PAIR_FILE_KEYS.framesCsv ? m.download_frames_csv : `${m.download_other}: ${k}`, true)} <span class="muted mono">${esc(p)}</span></li>`);
  return (
    (items.length ? `<h4>${esc(m.pair_links)}</h4><ul class="links">${items.join('')}</ul>` : '') +
    (downloads.length ? `<h4>${esc(m.pair_downloads)}</h4><ul class="links">${downloads.join('')}</ul>` : '')
  );
}

export function pairSection(pair: PairReport, ctx: PairContext): string {
  const { m } = ctx;
  const id = pairAnchor(ctx.comparisonIndex, pair.slot_id);
  const ssimCheck = ctx.policy?.checks.find((c) => c.name === 'min_ssim' && c.enabled);
  const charted = pair.video ? chartedSeries(pair.video, ssimCheck?.metric) : null;
  // The threshold line belongs on the series its check reads, and on no other.
  const threshold = charted && ssimCheck && ssimCheck.metric.startsWith(`${charted.path}.`) ? (pair.checks.find((c) => c.name === 'min_ssim')?.threshold ?? null) : null;
  const chartTitle = charted && charted.path !== 'video.ssim' ? `${m.chart_title}: ${charted.label(m)}` : m.chart_title;
  const body = [
    kv([
      [esc(m.case), `<code>${esc(pair.case_id)}</code>`],
      [esc(m.seed), esc(pair.seed)],
      [esc(m.repetition), esc(pair.repetition)],
      [esc(m.status), badge(pair.status, m[`status_${pair.status}`])],
      [esc(m.prompt), `<div class="prompt">${esc(pair.prompt)}</div>`],
    ]),
    reasonsBlock(pair, m),
    recordsBlock(pair, m),
    `<h4>${esc(m.videos)}</h4><div class="sides">` +
      videoFigure(pair.baseline_media, runLabel(ctx.baselineRun, m, 'baseline'), pair.video, m) +
      videoFigure(pair.candidate_media, runLabel(ctx.candidateRun, m, 'candidate'), pair.video, m) +
      `</div>`,
    charted ? `<h4>${esc(chartTitle)}</h4>` + ssimChart(charted.series.per_frame, { threshold, worst: charted.series.worst_frame, id: `${id}-chart`, m, ...(ctx.ssimFloor?.length && charted.series === pair.video?.ssim ? { band: ctx.ssimFloor } : {}) }) : '',
    stillsBlock(pair, ctx),
    checksBlock(pair.checks, m),
    pairNoiseBlock(pair, m),
    pair.video ? videoBlock(pair.video, m) : '',
    // Absent audio was not measured (the set has no `audio`); null is a pair without audio.
    pair.audio === undefined || (pair.status === 'invalid' && pair.audio === null) ? '' : audioBlock(pair, pair.audio, m),
    linksBlock(pair, ctx),
  ];
  return `<details class="pair" id="${id}">${summaryLine(pair, m)}<div class="pair-body">${body.join('')}</div></details>`;
}
