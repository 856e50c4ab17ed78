/**
 * The noise-floor parts of the pages (docs/calibration.md): per comparison, a
 * plain-language paragraph, the one assumption and the counts; per pair, each
 * calibrated metric's value against the worst same-hardware value, with p and
 * the verdict. Shown only when the report was judged against a calibration.
 */
import { CALIBRATED_METRICS } from '../calibrate/metrics.js';
import type { MetricNoise, PairNoise } from '../calibrate/schema.js';
import type { Comparison, PairReport } from '../schemas/report.js';
import type { VNode } from 'preact';
import { num, runRef } from './format.js';
import { badge, headCell, numCell, Table, tx } from './parts.js';
import { countKey, fillCount, type Messages } from './i18n.js';

const digits = (key: string): number => CALIBRATED_METRICS.find((x) => x.key === key)?.digits ?? 6;

/** A p-value as read: 3 significant digits, small ones in exponent form. */
function pText(p: number): string {
  return p >= 0.001 ? p.toPrecision(3) : p.toExponential(2);
}

function verdict(beyond: boolean | null, m: Messages): VNode {
  if (beyond === null) return badge('inconclusive', m.noise_undecided);
  return beyond ? badge('failed', m.noise_yes) : badge('passed', m.noise_no);
}

/** The comparison's noise paragraph and counts; null when not calibrated. */
export function comparisonNoiseBlock(c: Comparison, m: Messages): VNode | null {
  const noise = c.noise;
  if (!noise) return null;
  const sources = noise.sources.map((s) => `${s.gpu_model} ${runRef(s.run_id, s.run_attempt)}`).join(', ');
  const rows = noise.metrics.map((k) => [headCell(<code>{k}</code>), numCell(String(noise.beyond_by_metric[k] ?? 0)), numCell(pText(noise.binomial_p_by_metric[k] ?? 1))]);
  return (
    <div class="noise">
      <h4>{m.noise_title}</h4>
      <p>{tx(m, 'noise_explainer', { pairs: fillCount(m, 'same_hw_pairs', noise.n), sources, alpha: noise.alpha })}</p>
      <p class="muted">{m.noise_assumption}</p>
      {noise.note ? (
        <p>
          <strong>{noise.note}</strong>
        </p>
      ) : null}
      <p>{tx(m, countKey('noise_counts', noise.verdict_metrics.length), { beyond: noise.beyond_pairs, valid: noise.valid_pairs, n: noise.verdict_metrics.length, alpha: noise.alpha, p: pText(noise.binomial_p) })}</p>
      <h5>{m.noise_by_metric}</h5>
      <Table head={[m.noise_metric, m.noise_pairs_beyond, m.noise_binomial]} rows={rows} />
    </div>
  );
}

/** One pair's metrics against the noise floor; null when the pair has no noise verdict. */
export function pairNoiseBlock(pair: PairReport, m: Messages, alpha?: number): VNode | null {
  const noise: PairNoise | undefined = pair.noise;
  if (!noise) return null;
  const value = (key: string): number | null | undefined => CALIBRATED_METRICS.find((x) => x.key === key)?.read({ video: pair.video!, audio: pair.audio });
  const shown = (v: number | null | undefined, key: string): string => (v === null ? m.noise_identical : num(v, digits(key), m.unavailable));
  const rows = CALIBRATED_METRICS.filter((x) => noise[x.key]).map((x) => {
    const n = noise[x.key] as MetricNoise;
    return [headCell(<code>{x.key}</code>), numCell(shown(value(x.key), x.key)), verdict(n.beyond, m), numCell(pText(n.p)), numCell(shown(n.noise_worst, x.key))];
  });
  const p = noise.pair;
  const n = CALIBRATED_METRICS.map((x) => noise[x.key]?.n).find((v) => v !== undefined);
  return (
    <>
      <h4>{m.noise_title}</h4>
      {/* The verdict beside the value, then its p, the worst same-hardware value (for scale only) last: on a phone the verdict shows before the table scrolls. */}
      <Table cls="fits" head={[m.noise_metric, m.value, m.noise_beyond, m.noise_p, m.noise_worst]} rows={rows} />
      {/* "Beyond noise" is a p-value against the whole same-hardware spread, not a comparison with its worst value: said where it is shown. */}
      {n === undefined ? null : <p class="muted small">{tx(m, 'noise_pair_how', { pairs: fillCount(m, 'same_hw_pairs', n), n, alpha: alpha ?? 0.05 })}</p>}
      <p>{tx(m, countKey('noise_pair_verdict', p.k), { n: p.k, p: pText(p.p), verdict: p.beyond === null ? m.noise_undecided : p.beyond ? m.noise_yes : m.noise_no })}</p>
    </>
  );
}
