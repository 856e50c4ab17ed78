/**
 * The plan's media spec next to the media's, and the temporal diagnoses in
 * words (docs/report-pages.md, "Media against the plan" and "Temporal
 * offset"): small self-contained blocks the summary and each pair section
 * place where they belong.
 */
import type { AudioMetrics, PlanField, PlanMismatch, VideoMetrics } from '../schemas/measurement.js';
import type { PairReport, PlanSpec } from '../schemas/report.js';
import { esc } from './html-escape.js';
import { num } from './html-format.js';
import { headCell, numCell, table, tx, txHtml } from './html-parts.js';
import type { MessageKey, Messages } from './i18n.js';

/** "1344×768, 24 fps, 192 frames; 32000 Hz, 2 channels" (escaped). */
export function planSpecText(spec: PlanSpec, m: Messages): string {
  const { video: v, audio: a } = spec;
  const unit = a.channels === 1 ? m.channel_one : m.channel_many;
  return tx(m, 'plan_spec', { width: v.width, height: v.height, fps: v.fps, frames: v.frames, rate: a.sample_rate, channels: a.channels, channels_unit: unit });
}

function fieldValue(field: PlanField, value: number | null, m: Messages): string {
  if (value === null) return esc(m.plan_no_audio);
  return esc(field === 'fps' ? String(Number(value.toFixed(6))) : String(value));
}

/**
 * The pair's media against the plan: a table of every field that differs (plan, baseline, candidate)
 * for a MEDIA_PLAN_MISMATCH pair; one line saying both files are as planned for a measured pair whose
 * report records the plan (`spec`); nothing otherwise (the check did not get that far).
 */
export function pairPlanBlock(pair: PairReport, spec: PlanSpec | undefined, m: Messages): string {
  const reason = pair.reason_details.find((r) => r.code === 'MEDIA_PLAN_MISMATCH' && r.plan_mismatches?.length);
  const title = `<h4>${esc(m.plan_media_title)}</h4>`;
  if (reason) {
    const list: PlanMismatch[] = reason.plan_mismatches!;
    const fields = [...new Set(list.map((x) => x.field))];
    const rows = fields.map((field) => {
      const of = (side: 'baseline' | 'candidate'): string => {
        const x = list.find((y) => y.field === field && y.side === side);
        return x ? `<mark>${fieldValue(field, x.media, m)}</mark>` : esc(m.plan_as_planned);
      };
      const plan = list.find((y) => y.field === field)!.plan;
      return [headCell(esc(m[`plan_field_${field}` as MessageKey])), numCell(fieldValue(field, plan, m)), numCell(of('baseline')), numCell(of('candidate'))];
    });
    return `${title}<p>${esc(m.plan_media_off)}</p>${table([esc(m.plan_field), esc(m.plan_value), esc(m.baseline), esc(m.candidate)], rows)}`;
  }
  if (pair.video && spec) return `${title}<p class="muted">${txHtml(m, 'plan_media_ok', { spec: planSpecText(spec, m) })}</p>`;
  return '';
}

/** The temporal offset diagnosis in words, with what it measured; '' when the pair has none. */
export function temporalOffsetBlock(video: VideoMetrics, m: Messages): string {
  const t = video.temporal_offset;
  if (!t) return '';
  const n = Math.abs(t.frames);
  const unit = n === 1 ? m.frame_one : m.frame_many;
  const at = num(t.ssim_mean_at_offset, 3, m.unavailable);
  const zero = num(t.ssim_mean_at_zero, 3, m.unavailable);
  const offsets = t.searched.offsets;
  const line =
    t.frames > 0
      ? tx(m, 'offset_ahead', { n, unit, at, zero })
      : t.frames < 0
        ? tx(m, 'offset_behind', { n, unit, at, zero })
        : tx(m, 'offset_none', { from: signed(offsets[0] ?? 0), to: signed(offsets.at(-1) ?? 0), zero });
  const cells = offsets.map((_, i) => numCell(esc(num(t.searched.ssim_means[i], 4, m.unavailable))));
  return (
    `<h4>${esc(m.offset_title)}</h4><p${t.frames === 0 ? '' : ' class="why"'}>${line}</p>` +
    table(offsets.map((k) => esc(signed(k))), [cells]) +
    `<p class="muted small">${tx(m, 'offset_note', { k: t.searched.sampled_frames.length })}</p>`
  );
}

function signed(k: number): string {
  return k > 0 ? `+${k}` : k < 0 ? `−${-k}` : '0';
}

/** The audio lag estimate in words, samples and milliseconds (positive: the candidate is late); '' without channels. */
export function audioLagBlock(audio: AudioMetrics, m: Messages): string {
  if (audio.channels.length === 0) return '';
  const byLag = new Map<number, number[]>();
  for (const c of audio.channels) byLag.set(c.lag_estimate_samples, [...(byLag.get(c.lag_estimate_samples) ?? []), c.channel]);
  const lines = [...byLag]
    .filter(([lag]) => lag !== 0)
    .sort(([a], [b]) => a - b)
    .map(([lag, channels]) => tx(m, lag > 0 ? 'lag_late' : 'lag_early', { samples: Math.abs(lag), ms: lagMs(Math.abs(lag), audio.sample_rate), channels: channels.join(', ') }));
  const text = lines.length ? lines.join(' ') : esc(m.lag_none);
  return `<p>${text} <span class="muted">${esc(m.lag_note)}</span></p>`;
}

/** A lag in samples as milliseconds at the stream's rate, two decimals. */
export function lagMs(samples: number, sampleRate: number): string {
  return num((samples / sampleRate) * 1000, 2, '—');
}
