/**
 * One pair's collapsed section. <details> keeps it closed without any script,
 * and the videos use preload="none": opening the page fetches no MP4, and
 * only pressing play on a pair fetches that pair's two files.
 */
import type { VNode } from 'preact';
import type { AudioMetrics, PsnrSeries, SsimSeries, VideoMetrics } from '../schemas/measurement.js';
import type { CheckResult, Policy } from '../schemas/policy.js';
import type { PairReport, RunReport } from '../schemas/report.js';
import { ABS_DIFF_GAIN, AUDIO_DIFF_SECONDS, AUDIO_NORMALIZED_PEAK_DBFS, audioNormalizationGain, PAIR_FILE_KEYS } from '../bundle/assets-keys.js';
import { HEATMAP_BLOCK, HEATMAP_FLOOR, heatmapGrid, heatmapSize, stillSize } from '../bundle/assets-geometry.js';
import { WAVEFORM_STRIP, WAVEFORM_WIDTH } from '../bundle/waveform-size.js';
import { chartedSeries, worstFrameOf } from '../bundle/video-series.js';
import { ssimChart } from './chart.js';
import { pairNoiseBlock } from './noise.js';
import { AudioLag, lagMs, lagNotEstimated, PairPlan, TemporalOffsetBlock } from './plan.js';
import { bundleHref } from './link-gates.js';
import { num, runRef } from './format.js';
import { reasonText } from './reasons.js';
import { clipSentence, framesText } from './clip-words.js';
import { checkDigits, checkNoteText, isIdentical, pairHeadline } from './verdict.js';
import { fill } from './i18n.js';
import { badge, checkLabel, extLink, fileLink, headCell, KeyValues, numCell, pairAnchor, Table, tx, type Child } from './parts.js';
import type { Messages } from './i18n.js';
import { checkDeclaration } from '../policy/checks.js';
import { visibleId } from '../visible.js';

export interface PairContext {
  m: Messages;
  comparisonIndex: number;
  /** The report's policy: its SSIM check (the one declared to chart its threshold) decides which SSIM series is charted. */
  policy?: Policy;
  baselineRun: RunReport | undefined;
  candidateRun: RunReport | undefined;
  /** The noise floor's alpha (a pair's metric is beyond noise when p ≤ alpha); absent when not calibrated. */
  noiseAlpha?: number;
  /** Per frame, the lowest same-hardware SSIM (the chart's noise band); absent when not calibrated. */
  ssimFloor?: number[];
}

const AB_DIGITS = 1;

function sideName(m: Messages, side: 'baseline' | 'candidate' | 'both' | null): string {
  if (side === 'baseline') return m.side_baseline;
  if (side === 'candidate') return m.side_candidate;
  if (side === 'both') return m.side_both;
  return '—';
}

function summaryLine(pair: PairReport, m: Messages): VNode {
  const sep = (): VNode => <span class="sep">·</span>;
  const headline = pairHeadline(pair, m);
  return (
    <summary>
      {badge(pair.status, m[`status_${pair.status}`])} <code>{visibleId(pair.slot_id)}</code>
      {sep()}
      {visibleId(pair.case_id)}
      {sep()}
      {m.seed} {String(pair.seed)}
      {headline.length ? [sep(), <span class="why">{headline}</span>] : null}
    </summary>
  );
}

/**
 * A clip reason in words, per clip that fails it, named by its run's GPU ("B200's clip: the clip is
 * black in every frame"): the clip's own message on the English page, the code's sentence on others.
 */
function clipReasonText(pair: PairReport, code: string, side: 'baseline' | 'candidate' | 'both' | null, ctx: Pick<PairContext, 'm' | 'baselineRun' | 'candidateRun'>): string | null {
  const { m } = ctx;
  if (!pair.clips || !code.startsWith('CLIP_')) return null;
  const sides = side === 'both' ? (['baseline', 'candidate'] as const) : side === 'baseline' || side === 'candidate' ? [side] : [];
  const parts = sides.flatMap((s) => {
    const clip = pair.clips![s];
    if (!clip?.reasons.some((r) => r.code === code)) return [];
    const gpu = (s === 'baseline' ? ctx.baselineRun : ctx.candidateRun)?.hardware.gpu_model ?? sideName(m, s);
    return [fill(m.clip_reason, { gpu, reason: clipSentence(code, clip, m) })];
  });
  return parts.length ? parts.join('; ') : null;
}

/**
 * A reason code that may break after its underscores (MEDIA_PLAN_ / MISMATCH) and nowhere else: on
 * a phone the reasons table then fits whole instead of running its detail past the edge.
 */
function codeWord(code: string): Child {
  return <code class="word">{code.split('_').flatMap((part, i) => (i === 0 ? [part] : [<>_<wbr /></>, part]))}</code>;
}

function reasonsBlock(pair: PairReport, ctx: Pick<PairContext, 'm' | 'baselineRun' | 'candidateRun'>): Child {
  const { m } = ctx;
  // A failed pair's reasons are its failed checks' codes: the checks table shows them with their figures.
  if (pair.status !== 'invalid' || (pair.reasons.length === 0 && pair.reason_details.length === 0)) return null;
  const detailed = new Set(pair.reason_details.map((d) => d.code));
  const rows: Child[][] = [
    ...pair.reason_details.map((d) => [
      codeWord(d.code),
      sideName(m, d.side),
      <span class="prompt">{clipReasonText(pair, d.code, d.side, ctx) ?? reasonText(d.code, d.message, m)}</span>,
    ]),
    ...pair.reasons.filter((c) => !detailed.has(c)).map((c) => [codeWord(c), '—', reasonText(c, null, m)]),
  ];
  // Three columns fit a phone whole (table.fits): the detail wraps instead of running past the edge.
  return [<h4>{m.reasons_title}</h4>, <Table cls="fits" head={[m.reason_code, m.side, m.detail]} rows={rows} />];
}

/**
 * An invalid pair's clips, side by side, before anything else: each clip's own figures (black,
 * frozen and duplicate shares with their counts, motion, RMS per channel, the largest audio jump),
 * so the defect the reasons name can be read off its numbers.
 */
function clipFiguresBlock(pair: PairReport, ctx: Pick<PairContext, 'm' | 'baselineRun' | 'candidateRun'>): Child {
  const { m } = ctx;
  if (pair.status !== 'invalid' || !pair.clips) return null;
  const sides = [pair.clips.baseline, pair.clips.candidate];
  // One precision per kind of figure in this table: shares 1 decimal (%), the mean change 2, RMS 6, times 3.
  const share = (fraction: number | null, of: number, where = ''): string =>
    fraction === null ? m.unavailable : `${(100 * fraction).toFixed(1)}% (${Math.round(fraction * of)}/${of})${where && fraction > 0 ? `: ${where}` : ''}`;
  type Side = NonNullable<(typeof sides)[number]>;
  // Blank runs are black frames when no frame is white (the clip's figures count both as blank).
  const blackRuns = (v: Side['video']): string => (v.white_fraction === 0 ? framesText(v.blank_runs, m) : '');
  // A side whose clip was not analysed (its request failed, or its file could not be decoded) has no figures.
  const row = (label: string, f: (c: Side) => Child): Child[] => [headCell(label), ...sides.map((c) => (c ? f(c) : '—'))];
  const rows = [
    row(m.clip_fig_valid, (c) => badge(c.valid ? 'pass' : 'fail', c.valid ? m.yes : m.no)),
    row(m.clip_fig_black, (c) => share(c.video.black_fraction, c.video.frame_count, blackRuns(c.video))),
    row(m.clip_fig_frozen, (c) => share(c.video.frozen_fraction, Math.max(0, c.video.frame_count - 1), framesText(c.video.frozen_runs, m))),
    row(m.clip_fig_duplicate, (c) => share(c.video.duplicate_fraction, Math.max(0, c.video.frame_count - 1))),
    row(m.clip_fig_motion, (c) => (c.video.mean_adjacent_frame_mae === null ? m.unavailable : (100 * c.video.mean_adjacent_frame_mae).toFixed(2))),
    row(m.clip_fig_rms, (c) => (c.audio ? c.audio.rms_channels.map((r) => (r === null ? '—' : r.toFixed(6))).join(m.clip_list_and) : m.clip_fig_no_audio)),
    row(m.clip_fig_gap, (c) =>
      c.audio?.max_timestamp_gap_seconds != null && c.audio.max_timestamp_gap_at_sample !== null
        ? fill(m.clip_fig_gap_value, { ms: (1000 * c.audio.max_timestamp_gap_seconds).toFixed(3), at: (c.audio.max_timestamp_gap_at_sample / c.audio.sample_rate).toFixed(3) })
        : c.audio
          ? '—'
          : m.clip_fig_no_audio,
    ),
  ];
  const gpu = (run: RunReport | undefined, side: 'baseline' | 'candidate'): string => run?.hardware.gpu_model ?? sideName(m, side);
  return [<h4>{m.clip_figures_title}</h4>, <Table head={[m.figure, gpu(ctx.baselineRun, 'baseline'), gpu(ctx.candidateRun, 'candidate')]} rows={rows} />];
}

function recordsBlock(pair: PairReport, m: Messages): Child {
  const sides = [
    { name: m.side_baseline, status: pair.baseline_status, error: pair.baseline_error },
    { name: m.side_candidate, status: pair.candidate_status, error: pair.candidate_error },
  ];
  if (sides.every((s) => s.status === 'ok' && s.error === null)) return null;
  const rows = sides.map((s) => [
    headCell(s.name),
    badge(s.status === 'ok' ? 'pass' : 'fail', s.status === 'ok' ? m.record_ok : m.record_failed),
    s.error === null ? '—' : <span class="prompt">{s.error}</span>,
  ]);
  return <Table head={[m.side, m.record_status, m.record_error]} rows={rows} />;
}

function runLabel(run: RunReport | undefined, m: Messages, side: 'baseline' | 'candidate'): Child {
  const role = side === 'baseline' ? m.baseline : m.candidate;
  if (!run) return role;
  return tx(m, 'video_label', { side: role, gpu: run.hardware.gpu_model, run: runRef(run.run_id, run.run_attempt) });
}

/** The narrowest a video is shown (CSS pixels): a smaller clip is scaled up to it, its pixels kept crisp. */
export const MIN_VIDEO_WIDTH = 320;

/**
 * The width a clip of `width` pixels is shown at: its own when that is at least `MIN_VIDEO_WIDTH`,
 * else the smallest whole multiple of it that reaches `MIN_VIDEO_WIDTH` (so every pixel is the same
 * size). CSS still scales it down to fit a narrow screen, keeping the aspect.
 */
export function videoDisplayWidth(width: number): number {
  if (width <= 0 || width >= MIN_VIDEO_WIDTH) return width;
  return width * Math.ceil(MIN_VIDEO_WIDTH / width);
}

function videoFigure(media: string | null, caption: Child, video: { width: number; height: number } | null, m: Messages, poster: string | undefined, cls: string): VNode {
  const href = media === null ? null : bundleHref(media);
  if (href === null) {
    return (
      <figure class={cls}>
        <figcaption>{caption}</figcaption>
        <div class="empty">{m.no_media}</div>
      </figure>
    );
  }
  const posterHref = poster === undefined ? null : bundleHref(poster);
  // The width and height attributes are the clip's own (its aspect); `--vw` is the width it is shown at.
  const shown = video ? videoDisplayWidth(video.width) : null;
  return (
    <figure class={cls}>
      <figcaption>{caption}</figcaption>
      <video
        controls
        preload="none"
        playsinline
        class={shown !== null && video !== null && shown > video.width ? 'crisp' : undefined}
        style={shown === null ? undefined : `--vw:${shown}px`}
        width={video ? video.width : undefined}
        height={video ? video.height : undefined}
        poster={posterHref ?? undefined}
        src={href}
      >
        {m.video_fallback} <a href={href}>{media ?? ''}</a>
      </video>
    </figure>
  );
}

/** Both videos, with one control for both (shown by the page script; with scripts off each video keeps its own controls). */
function abPlayer(pair: PairReport, ctx: PairContext): Child {
  const { m } = ctx;
  const v = pair.video;
  // A pair not measured (most invalid ones) is shown at the plan's size until its file says otherwise.
  const size = v ?? (ctx.candidateRun?.plan_spec ?? ctx.baselineRun?.plan_spec)?.video ?? null;
  const figs = [
    videoFigure(pair.baseline_media, runLabel(ctx.baselineRun, m, 'baseline'), size, m, pair.files[PAIR_FILE_KEYS.baselineWorst], 'ab-a'),
    videoFigure(pair.candidate_media, runLabel(ctx.candidateRun, m, 'candidate'), size, m, pair.files[PAIR_FILE_KEYS.candidateWorst], 'ab-b'),
  ];
  const poster = v && pair.files[PAIR_FILE_KEYS.baselineWorst] ? <p class="muted small">{tx(m, 'poster_note', { frame: worstFrameOf(v) })}</p> : null;
  if (!v || pair.baseline_media === null || pair.candidate_media === null) return [<div class="sides">{figs}</div>, poster];
  const last = Math.max(0, v.frames - 1);
  // Before play both videos show their poster, the worst frame: the control starts there too (the page script plays from it).
  const start = pair.files[PAIR_FILE_KEYS.baselineWorst] ? Math.min(last, worstFrameOf(v)) : 0;
  const btn = (act: string, label: string, title: string): VNode => (
    <button type="button" data-act={act} title={title}>
      {label}
    </button>
  );
  const mode = (name: string, label: string, pressed: boolean): VNode => (
    <button type="button" data-mode-btn={name} aria-pressed={pressed}>
      {label}
    </button>
  );
  const bar = (
    <div class="ab-bar" hidden>
      <div class="ab-row">
        {btn('play', m.play, m.key_play)}
        {btn('back', '◀ 1', m.key_back)}
        {btn('fwd', '1 ▶', m.key_fwd)}
        <input class="ab-seek" type="range" min="0" max={last} step="1" value={start} aria-label={m.frame} />
        <output class="ab-pos">{fill(m.frame_pos, { frame: start, last })}</output>
      </div>
      <div class="ab-row">
        <span class="ab-modes" role="group" aria-label={m.view}>
          {mode('side', m.view_side, true)}
          {mode('wipe', m.view_wipe, false)}
          {mode('flicker', m.view_flicker, false)}
        </span>
        <label class="ab-wipe-l">
          {m.wipe_label} <input class="ab-wipe" type="range" min="0" max="100" step={AB_DIGITS} value="50" />
        </label>
        {btn('show', m.showing_a, m.key_flicker)}
        {btn('fit', m.fit, m.fit_title)}
      </div>
      <p class="muted small">{m.keys_help}</p>
    </div>
  );
  return [
    <div class="ab" data-frames={v.frames} data-start={start} data-mode="side" data-show="a">
      <div class="ab-stage">{figs}</div>
      {bar}
    </div>,
    poster,
  ];
}

function imageFigure(path: string | undefined, caption: Child, cls: string, size: { width: number; height: number } | null, alt: string): VNode | null {
  const href = path === undefined ? null : bundleHref(path);
  if (href === null) return null;
  return (
    <figure>
      <figcaption>{caption}</figcaption>
      <img class={cls} src={href} width={size ? size.width : undefined} height={size ? size.height : undefined} alt={alt} loading="lazy" decoding="async" />
    </figure>
  );
}

function stillsBlock(pair: PairReport, ctx: PairContext): Child {
  const { m } = ctx;
  const video = pair.video;
  if (!video) return null;
  const frame = { width: video.width, height: video.height };
  const worst = worstFrameOf(video);
  const still = stillSize(frame);
  const heat = heatmapSize(frame);
  const shared = pair.files[PAIR_FILE_KEYS.baselineWorst];
  if (video.identical && shared !== undefined && shared === pair.files[PAIR_FILE_KEYS.candidateWorst]) {
    // Bit-identical frames: the writer made one still for both sides and no difference pictures (assets.ts).
    const one = imageFigure(shared, m.still_identical_title, 'still', still, `${m.still_identical_title}: ${m.stat_worst} ${worst}`);
    return [<h4>{tx(m, 'worst_title', { frame: worst })}</h4>, <div class="stills">{one}</div>, <p class="muted">{m.video_identical_no_diff}</p>];
  }
  const figures = [
    imageFigure(pair.files[PAIR_FILE_KEYS.baselineWorst], runLabel(ctx.baselineRun, m, 'baseline'), 'still', still, `${m.baseline}: ${m.stat_worst} ${worst}`),
    imageFigure(pair.files[PAIR_FILE_KEYS.candidateWorst], runLabel(ctx.candidateRun, m, 'candidate'), 'still', still, `${m.candidate}: ${m.stat_worst} ${worst}`),
    imageFigure(pair.files[PAIR_FILE_KEYS.absDiff], tx(m, 'abs_diff_title', { gain: ABS_DIFF_GAIN, levels: Math.ceil(256 / ABS_DIFF_GAIN) }), 'still', still, m.abs_diff_alt),
    overlayFigure(pair, frame, still, m),
    imageFigure(pair.files[PAIR_FILE_KEYS.heatmap], m.heatmap_title, 'heat', heat, m.heatmap_title),
  ].filter((f): f is VNode => f !== null);
  if (figures.length === 0) return null;
  const legend = pair.files[PAIR_FILE_KEYS.heatmap] ? (
    <p class="muted">
      {m.heatmap_equal} <span class="legend" aria-hidden="true"></span> {num(HEATMAP_FLOOR, 1, '')} · {tx(m, 'heatmap_note', { floor: num(HEATMAP_FLOOR, 1, '') })}
    </p>
  ) : null;
  return [<h4>{tx(m, 'worst_title', { frame: worst })}</h4>, <div class="stills">{figures}</div>, legend];
}

/** The heat map laid over the candidate's worst frame; it covers whole 8×8 blocks only, so it is sized to the part of the frame they span. */
function overlayFigure(pair: PairReport, frame: { width: number; height: number }, still: { width: number; height: number }, m: Messages): VNode | null {
  const base = pair.files[PAIR_FILE_KEYS.candidateWorst];
  const heat = pair.files[PAIR_FILE_KEYS.heatmap];
  const baseHref = base === undefined ? null : bundleHref(base);
  const heatHref = heat === undefined ? null : bundleHref(heat);
  if (baseHref === null || heatHref === null) return null;
  const { cols, rows } = heatmapGrid(frame);
  const w = ((cols * HEATMAP_BLOCK) / frame.width) * 100;
  const h = ((rows * HEATMAP_BLOCK) / frame.height) * 100;
  return (
    <figure>
      <figcaption>{m.overlay_title}</figcaption>
      <div class="overlay">
        <img class="still" src={baseHref} width={still.width} height={still.height} alt={m.overlay_title} loading="lazy" decoding="async" />
        <img class="heat" src={heatHref} alt="" loading="lazy" decoding="async" style={`width:${w.toFixed(3)}%;height:${h.toFixed(3)}%`} />
      </div>
    </figure>
  );
}

/** "≥ 0.92": a check's comparator and threshold. */
function ruleText(c: { comparator: string; threshold: number }): VNode {
  return (
    <span class="mono nowrap">
      {c.comparator === '>=' ? '≥' : '≤'} {String(c.threshold)}
    </span>
  );
}

function checksBlock(checks: CheckResult[], m: Messages): Child {
  if (checks.length === 0) return null;
  // A check's note goes under its name, so four narrow columns fit a phone, the outcome included (style.ts `fits`).
  const rows = checks.map((c) => [
    headCell(c.note === null ? checkLabel(m, c.name) : [checkLabel(m, c.name), <span class="note">{checkNoteText(m, c.note)} <code>{c.note}</code></span>]),
    numCell(c.value === null && c.note === 'identical' ? '∞' : num(c.value, checkDigits(c.name), m.unavailable)),
    ruleText(c),
    badge(c.outcome, m[`outcome_${c.outcome}`]),
  ]);
  return [<h4>{m.checks}</h4>, <Table cls="fits checks" head={[m.check, m.value, m.rule, m.outcome]} rows={rows} />];
}

function seriesRow(label: string, s: SsimSeries | PsnrSeries, digits: number, m: Messages, hmean: boolean): Child[] {
  // A PSNR summary is null only when every frame is identical: infinite, shown as the overview shows it.
  const f = (v: number | null | undefined): VNode => numCell(v === null && 'identical_frames' in s ? '∞' : num(v, digits, m.unavailable));
  const h = hmean && 'harmonic_mean' in s ? f(s.harmonic_mean) : numCell('—');
  return [headCell(label), f(s.min), f(s.p05), f(s.mean), h, f(s.max), numCell(String(s.worst_frame ?? '—'))];
}

function videoBlock(video: VideoMetrics, m: Messages): Child {
  // Only the metrics the set computed have a row (or a line).
  const rows = [
    video.ssim && seriesRow(m.ssim_gaussian, video.ssim, 6, m, true),
    video.ssim_ffmpeg && seriesRow(m.ssim_ffmpeg_all, video.ssim_ffmpeg.all, 6, m, true),
    video.ssim_rgb7 && seriesRow(m.ssim_rgb7, video.ssim_rgb7, 6, m, true),
    video.psnr_y && seriesRow(m.psnr_y, video.psnr_y, 2, m, false),
  ].filter((r): r is Child[] => Boolean(r));
  const head = [m.figure, m.stat_min, m.stat_p05, m.stat_mean, m.stat_hmean, m.stat_max, m.stat_worst];
  const items: Array<[Child, Child]> = [
    [m.size, `${video.width}×${video.height}`],
    [m.frames, String(video.frames)],
    // Pooled PSNR is null only for identical frames: infinite, the one symbol the overview and the checks use too.
    ...(video.psnr_db !== undefined ? [[m.psnr_pooled, video.psnr_db === null ? '∞' : num(video.psnr_db, 2, m.unavailable)] as [Child, Child]] : []),
    ...(video.mae !== undefined ? [[m.mae, num(video.mae, 6, m.unavailable)] as [Child, Child]] : []),
    [m.identical_streams, video.identical ? m.yes : m.no],
  ];
  return [
    <h4>{m.video_figures}</h4>,
    <KeyValues items={items} />,
    rows.length ? <Table head={head} rows={rows} /> : null,
    video.psnr_y && video.psnr_y.identical_frames > 0 ? (
      <p class="muted">
        {m.psnr_y}: {tx(m, 'identical_frames', { n: video.psnr_y.identical_frames })}
      </p>
    ) : null,
  ];
}

function audioBlock(pair: PairReport, audio: AudioMetrics | null, m: Messages): Child {
  if (audio === null) return [<h4>{m.audio}</h4>, <p class="muted">{m.no_audio}</p>];
  const ch = audio.channels;
  const yn = (b: boolean): string => (b ? m.yes : m.no);
  const line = (label: string, f: (c: (typeof ch)[number]) => Child, numeric = true): Child[] => [headCell(label), ...ch.map((c) => (numeric ? numCell(f(c)) : f(c)))];
  const n = (v: number | null, d: number): string => num(v, d, m.unavailable);
  // Relative to a full-scale amplitude of 1; an identical channel has no level at all.
  const dbfs = (v: number | null): string => (v === null ? m.unavailable : v === 0 ? '−∞' : num(20 * Math.log10(v), 1, m.unavailable));
  const rows = [
    line(m.samples, (c) => String(c.samples)),
    line(m.max_abs_diff, (c) => n(c.max_abs_diff, 6)),
    line(m.peak_diff_dbfs, (c) => dbfs(c.max_abs_diff)),
    line(m.rms_diff_dbfs, (c) => dbfs(c.rmse)),
    line(m.audio_mae, (c) => n(c.mae, 6)),
    line(m.rmse, (c) => n(c.rmse, 6)),
    // An identical channel's SNR is infinite (∞, as in the overview); a silent baseline has none, and says why.
    line(m.snr_db, (c) => (c.snr_db !== null ? n(c.snr_db, 2) : c.identical || c.snr_db_reason === 'identical' ? '∞' : c.snr_db_reason ? <code>{c.snr_db_reason}</code> : m.unavailable)),
    line(m.pearson, (c) => n(c.pearson, 6)),
    line(m.rms_ratio, (c) => (c.rms_ratio === null && c.rms_ratio_reason ? <code>{c.rms_ratio_reason}</code> : n(c.rms_ratio, 4))),
    line(m.spectral_cosine, (c) => n(c.spectral_cosine, 6)),
    line(m.newly_silent, (c) => yn(c.newly_silent), false),
    line(m.identical, (c) => yn(c.identical), false),
    line(m.lag, (c) => {
      const why = lagNotEstimated(c);
      return why ? <code>{why}</code> : `${c.lag_estimate_samples} (${lagMs(c.lag_estimate_samples, audio.sample_rate)} ms)`;
    }),
  ];
  const head: Child[] = [m.figure, ...ch.map((c) => [m.channel, ' ', String(c.channel)])];
  const player = (path: string | undefined, note: Child): Child => {
    const href = path === undefined ? null : bundleHref(path);
    return href === null
      ? null
      : [
          <audio controls preload="none" src={href}></audio>,
          <p class="muted">
            {note} {fileLink(path ?? '', 'FLAC', true)}
          </p>,
        ];
  };
  const gain = audioNormalizationGain(audio);
  // One difference file per pair (assets.ts): normalised when the gain applies, else at true level.
  const diffFile = gain === null ? pair.files[PAIR_FILE_KEYS.audioDiff] : pair.files[PAIR_FILE_KEYS.audioDiffNormalized];
  const diffNote =
    gain === null
      ? tx(m, 'audio_diff_note', { seconds: AUDIO_DIFF_SECONDS })
      : tx(m, 'audio_diff_normalized_note', { seconds: AUDIO_DIFF_SECONDS, gain: num(20 * Math.log10(gain), 1, ''), peak: AUDIO_NORMALIZED_PEAK_DBFS });
  const listen = audio.identical
    ? <p class="muted">{m.audio_identical_no_wav}</p>
    : [diffFile ? <h4>{m.audio_diff_title}</h4> : null, player(diffFile, diffNote), waveformFigure(pair.files[PAIR_FILE_KEYS.audioWaveform], gain, m)];
  return [
    <h4>{m.audio}</h4>,
    <KeyValues
      items={[
        [m.sample_rate, `${audio.sample_rate} Hz`],
        [m.identical, audio.identical ? m.yes : m.no],
      ]}
    />,
    <p>{tx(m, 'audio_aggregate', { cos: num(audio.spectral_cosine, 6, m.unavailable), ratio: num(audio.rms_ratio, 4, m.unavailable) })}</p>,
    <Table cls="fits" head={head} rows={rows} />,
    <AudioLag audio={audio} m={m} />,
    listen,
  ];
}

function waveformFigure(path: string | undefined, gain: number | null, m: Messages): VNode | null {
  const href = path === undefined ? null : bundleHref(path);
  if (href === null) return null;
  const caption = gain === null ? m.waveform_note : tx(m, 'waveform_note_gain', { gain: num(20 * Math.log10(gain), 1, '') });
  return (
    <figure class="wave">
      <figcaption>{caption}</figcaption>
      <img class="wave" src={href} width={WAVEFORM_WIDTH} height={WAVEFORM_STRIP * 3} alt={m.waveform_alt} loading="lazy" decoding="async" />
    </figure>
  );
}

function linksBlock(pair: PairReport, ctx: PairContext): Child {
  const { m } = ctx;
  const items: VNode[] = [];
  for (const [run, role] of [
    [ctx.baselineRun, m.baseline],
    [ctx.candidateRun, m.candidate],
  ] as const) {
    if (!run) continue;
    items.push(
      <li>
        {role} ({run.hardware.gpu_model}): {extLink(run.links.run, `${m.ci_run} ${runRef(run.run_id, run.run_attempt)}`, run.server_url)} ·{' '}
        {extLink(run.links.artifact, `${m.ci_artifact} ${run.artifact.name}`, run.server_url)}
      </li>,
    );
  }
  const shown = new Set<string>([PAIR_FILE_KEYS.baselineWorst, PAIR_FILE_KEYS.candidateWorst, PAIR_FILE_KEYS.heatmap, PAIR_FILE_KEYS.absDiff, PAIR_FILE_KEYS.audioWaveform, PAIR_FILE_KEYS.audioDiff, PAIR_FILE_KEYS.audioDiffNormalized]);
  const downloads = Object.entries(pair.files)
    .filter(([k]) => !shown.has(k))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, p]) => (
      <li>
        {fileLink(p, k === PAIR_FILE_KEYS.framesCsv ? m.download_frames_csv : `${m.download_other}: ${k}`, true)} <span class="muted mono">{p}</span>
      </li>
    ));
  return [
    items.length ? [<h4>{m.pair_links}</h4>, <ul class="links">{items}</ul>] : null,
    downloads.length ? [<h4>{m.pair_downloads}</h4>, <ul class="links">{downloads}</ul>] : null,
  ];
}

/** The name of a charted SSIM series (bundle/video-series.ts) in the page's language. */
function seriesLabel(path: string, m: Messages): string {
  if (path === 'video.ssim') return m.ssim_gaussian;
  if (path === 'video.ssim_ffmpeg.all') return m.ssim_ffmpeg_all;
  if (path === 'video.ssim_rgb7') return m.ssim_rgb7;
  const plane = /^video\.ssim_ffmpeg\.([yuv])$/.exec(path);
  return plane ? `SSIM (FFmpeg, ${plane[1]!.toUpperCase()})` : path;
}

export function PairSection({ pair, ctx }: { pair: PairReport; ctx: PairContext }): VNode {
  const { m } = ctx;
  const id = pairAnchor(ctx.comparisonIndex, pair.slot_id);
  // The chart shows the SSIM series the charting check reads, when the metric set computed it (video-series.ts).
  const charting = (name: string): boolean => checkDeclaration(name)?.chartsThreshold === true;
  const ssimCheck = ctx.policy?.checks.find((c) => charting(c.name) && c.enabled);
  const charted = pair.video ? chartedSeries(pair.video, ssimCheck?.metric) : null;
  const threshold = charted && ssimCheck && ssimCheck.metric.startsWith(`${charted.path}.`) ? (pair.checks.find((c) => charting(c.name))?.threshold ?? null) : null;
  const chartTitle = charted && charted.path !== 'video.ssim' ? `${m.chart_title}: ${seriesLabel(charted.path, m)}` : m.chart_title;
  // An invalid pair whose files were measured anyway (an invalid clip): nothing below was judged.
  const anyway = pair.status === 'invalid' && pair.video !== null;
  const metrics: Child = [
    charted
      ? [
          <h4>{chartTitle}</h4>,
          ssimChart(charted.series.per_frame, {
            threshold,
            worst: charted.series.worst_frame,
            id: `${id}-chart`,
            m,
            ...(pair.video?.psnr_y ? { psnr: pair.video.psnr_y.per_frame } : {}),
            // The same-hardware band is of the Gaussian SSIM: drawn only over that series.
            ...(ctx.ssimFloor?.length && charted.series === pair.video?.ssim ? { band: ctx.ssimFloor } : {}),
          }),
        ]
      : null,
    pairNoiseBlock(pair, m, ctx.noiseAlpha),
    stillsBlock(pair, ctx),
    pair.video ? videoBlock(pair.video, m) : null,
    <TemporalOffsetBlock offset={pair.video?.temporal_offset} m={m} />,
    pair.audio === undefined || (pair.status === 'invalid' && pair.audio === null) ? null : audioBlock(pair, pair.audio, m),
  ];
  return (
    <details class="pair" id={id}>
      {summaryLine(pair, m)}
      <div class="pair-body">
        {isIdentical(pair) ? <p class="identical-note">{m.identical_note}</p> : null}
        <KeyValues
          items={[
            [m.case, <code>{visibleId(pair.case_id)}</code>],
            [m.seed, String(pair.seed)],
            [m.repetition, String(pair.repetition)],
            [m.status, badge(pair.status, m[`status_${pair.status}`])],
            [m.prompt, <div class="prompt">{pair.prompt}</div>],
          ]}
        />
        {reasonsBlock(pair, ctx)}
        {clipFiguresBlock(pair, ctx)}
        <PairPlan pair={pair} spec={ctx.candidateRun?.plan_spec ?? ctx.baselineRun?.plan_spec} m={m} />
        {recordsBlock(pair, m)}
        {/* An invalid pair has no judged check (its reasons say why); one measured anyway has its metrics below, collapsed, as a diagnosis. */}
        {pair.status === 'invalid' ? null : checksBlock(pair.checks, m)}
        <h4>{m.videos}</h4>
        {abPlayer(pair, ctx)}
        {anyway ? <details class="anyway"><summary>{m.measured_anyway}</summary>{metrics}</details> : metrics}
        {linksBlock(pair, ctx)}
      </div>
    </details>
  );
}

