/**
 * The noise-floor parts of the pages (docs/calibration.md): per comparison, a
 * plain-language paragraph, the one assumption and the counts; per pair, each
 * calibrated metric's value against the worst same-hardware value, with p and
 * the verdict. Shown only when the report was judged against a calibration.
 */
import { CALIBRATED_METRICS } from '../calibrate/metrics.js';
import type { MetricNoise, PairNoise } from '../calibrate/schema.js';
import type { Comparison, PairReport } from '../schemas/report.js';
import { esc } from './html-escape.js';
import { num } from './html-format.js';
import { badge, headCell, numCell, table, tx } from './html-parts.js';
import type { Messages } from './i18n.js';

const DIGITS: Record<string, number> = { 'video.psnr_db': 2, 'audio.snr_db': 2, 'audio.rms_ratio_deviation': 4 };
const digits = (key: string): number => DIGITS[key] ?? 6;

/** A p-value as read: 3 significant digits, small ones in exponent form. */
function pText(p: number): string {
  return p >= 0.001 ? p.toPrecision(3) : p.toExponential(2);
}

function verdict(beyond: boolean | null, m: Messages): string {
  if (beyond === null) return badge('inconclusive', m.noise_undecided);
  return beyond ? badge('failed', m.noise_yes) : badge('passed', m.noise_no);
}

/** The comparison's noise paragraph and counts; '' when not calibrated. */
export function comparisonNoiseBlock(c: Comparison, m: Messages): string {
  const noise = c.noise;
  if (!noise) return '';
  const sources = noise.sources.map((s) => `${s.gpu_model} ${s.run_id}/${s.run_attempt}`).join(', ');
  const rows = noise.metrics.map((k) => [headCell(`<code>${esc(k)}</code>`), numCell(esc(noise.beyond_by_metric[k] ?? 0)), numCell(esc(pText(noise.binomial_p_by_metric[k] ?? 1)))]);
  return (
    `<div class="noise"><h4>${esc(m.noise_title)}</h4>` +
    `<p>${tx(m, 'noise_explainer', { n: noise.n, sources, alpha: noise.alpha })}</p>` +
    `<p class="muted">${esc(m.noise_assumption)}</p>` +
    (noise.note ? `<p><strong>${esc(noise.note)}</strong></p>` : '') +
    `<p>${tx(m, 'noise_counts', { beyond: noise.beyond_pairs, valid: noise.valid_pairs, k: noise.verdict_metrics.length, alpha: noise.alpha, p: pText(noise.binomial_p) })}</p>` +
    `<h5>${esc(m.noise_by_metric)}</h5>` +
    table([esc(m.noise_metric), esc(m.noise_pairs_beyond), esc(m.noise_binomial)], rows) +
    `</div>`
  );
}

/** One pair's metrics against the noise floor; '' when the pair has no noise verdict. */
export function pairNoiseBlock(pair: PairReport, m: Messages): string {
  const noise: PairNoise | undefined = pair.noise;
  if (!noise) return '';
  const value = (key: string): number | null | undefined => CALIBRATED_METRICS.find((x) => x.key === key)?.read({ video: pair.video!, audio: pair.audio });
  const shown = (v: number | null | undefined, key: string): string => (v === null ? m.noise_identical : num(v, digits(key), m.unavailable));
  const rows = CALIBRATED_METRICS.filter((x) => noise[x.key]).map((x) => {
    const n = noise[x.key] as MetricNoise;
    return [headCell(`<code>${esc(x.key)}</code>`), numCell(esc(shown(value(x.key), x.key))), numCell(esc(shown(n.noise_worst, x.key))), numCell(esc(pText(n.p))), verdict(n.beyond, m)];
  });
  const p = noise.pair;
  return (
    `<h4>${esc(m.noise_title)}</h4>` +
    table([esc(m.noise_metric), esc(m.value), esc(m.noise_worst), esc(m.noise_p), esc(m.noise_beyond)], rows) +
    `<p>${tx(m, 'noise_pair_verdict', { k: p.k, p: pText(p.p), verdict: p.beyond === null ? m.noise_undecided : p.beyond ? m.noise_yes : m.noise_no })}</p>`
  );
}
