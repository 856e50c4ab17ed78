/**
 * The plan's media spec next to the media's, and the temporal diagnoses in
 * words (docs/report-pages.md, "Media against the plan" and "Temporal
 * offset"): small components the setup section and each pair section place
 * where they belong. Every value is a child, escaped by the renderer.
 */
import type { VNode } from 'preact';
import type { AudioChannelMetrics, AudioMetrics, LagEstimateReason, PlanField, PlanMismatch, TemporalOffset } from '../schemas/measurement.js';
import type { PairReport, PlanSpec } from '../schemas/report.js';
import { planFpsText } from '../media/plan-conformance.js';
import { num } from './format.js';
import { countKey, type MessageKey, type Messages } from './i18n.js';
import { headCell, numCell, Table, tx, type Child } from './parts.js';

/** "1344×768, 24 fps, 192 frames; 32000 Hz, 2 channels". */
export function planSpecText(spec: PlanSpec, m: Messages): Child {
  const { video: v, audio: a } = spec;
  const unit = m[countKey('channel', a.channels)];
  return tx(m, 'plan_spec', { width: v.width, height: v.height, fps: planFpsText(v.fps), frames: v.frames, frames_unit: m[countKey('frame', v.frames)], rate: a.sample_rate, channels: a.channels, channels_unit: unit });
}

function fieldValue(field: PlanField, value: number | null, m: Messages): string {
  if (value === null) return m.plan_no_audio;
  // The one frame rate formatter of every text: six decimals, never a nonzero rate shown as 0.
  return field === 'fps' ? planFpsText(value) : field === 'audio_duration' ? String(Number(value.toFixed(3))) : String(value);
}

/**
 * The pair's media against the plan: a table of every field that differs (plan, baseline, candidate)
 * for a MEDIA_PLAN_MISMATCH pair; one line saying both files are as planned for a measured pair whose
 * report records the plan (`spec`); nothing otherwise (the check did not get that far).
 */
export function PairPlan({ pair, spec, m }: { pair: PairReport; spec: PlanSpec | undefined; m: Messages }): VNode | null {
  const reason = pair.reason_details.find((r) => r.code === 'MEDIA_PLAN_MISMATCH' && r.plan_mismatches?.length);
  if (reason?.plan_mismatches) {
    const list: PlanMismatch[] = reason.plan_mismatches;
    const fields = [...new Set(list.map((x) => x.field))];
    const rows = fields.map((field) => {
      const of = (side: 'baseline' | 'candidate'): Child => {
        const x = list.find((y) => y.field === field && y.side === side);
        return x ? <mark>{fieldValue(field, x.media, m)}</mark> : m.plan_as_planned;
      };
      const plan = list.find((y) => y.field === field)!.plan;
      return [headCell(m[`plan_field_${field}` as MessageKey]), numCell(fieldValue(field, plan, m)), numCell(of('baseline')), numCell(of('candidate'))];
    });
    return (
      <>
        <h4>{m.plan_media_title}</h4>
        <p>{m.plan_media_off}</p>
        <Table cls="fits" head={[m.plan_field, m.plan_value, m.baseline, m.candidate]} rows={rows} />
      </>
    );
  }
  if (!pair.video || !spec) return null;
  return (
    <>
      <h4>{m.plan_media_title}</h4>
      <p class="muted">{tx(m, 'plan_media_ok', { spec: planSpecText(spec, m) })}</p>
    </>
  );
}

/** An offset with its sign: +1, −2 (a minus sign, not a hyphen), 0. */
function signed(k: number): string {
  return k > 0 ? `+${k}` : k < 0 ? `−${-k}` : '0';
}

/** The temporal offset diagnosis in words, with what it measured; nothing when the pair has none. */
export function TemporalOffsetBlock({ offset: t, m }: { offset: TemporalOffset | undefined; m: Messages }): VNode | null {
  if (!t) return null;
  const n = Math.abs(t.frames);
  const unit = m[countKey('frame', n)];
  const at = num(t.ssim_mean_at_offset, 3, m.unavailable);
  const zero = num(t.ssim_mean_at_zero, 3, m.unavailable);
  const offsets = t.searched.offsets;
  const line =
    t.frames > 0
      ? tx(m, 'offset_ahead', { n, unit, at, zero })
      : t.frames < 0
        ? tx(m, 'offset_behind', { n, unit, at, zero })
        : tx(m, 'offset_none', { from: signed(offsets[0] ?? 0), to: signed(offsets.at(-1) ?? 0), zero });
  const cells = offsets.map((_, i) => numCell(num(t.searched.ssim_means[i], 4, m.unavailable)));
  return (
    <>
      <h4>{m.offset_title}</h4>
      <p class={t.frames === 0 ? undefined : 'why'}>{line}</p>
      <Table cls="fits" head={offsets.map(signed)} rows={[cells]} />
      <p class="muted small">{tx(m, 'offset_note', { k: t.searched.sampled_frames.length })}</p>
    </>
  );
}

/** A lag in samples as milliseconds at the stream's rate, two decimals. */
export function lagMs(samples: number, sampleRate: number): string {
  return num((samples / sampleRate) * 1000, 2, '—');
}

/**
 * Why a channel's lag was not estimated, or null when it was: report.json's `lag_estimate_reason`,
 * or for a report written before that field, the same fact from the peaks (a peak of 0 is a side
 * of all zeros, which has no cross-correlation peak).
 */
export function lagNotEstimated(c: AudioChannelMetrics): LagEstimateReason | null {
  if (c.lag_estimate_reason) return c.lag_estimate_reason;
  if (c.baseline_peak === 0 && c.candidate_peak === 0) return 'both_silent';
  if (c.baseline_peak === 0) return 'baseline_silent';
  if (c.candidate_peak === 0) return 'candidate_silent';
  return null;
}

/** The audio lag estimate in words, samples and milliseconds (positive: the candidate is late); nothing without channels. */
export function AudioLag({ audio, m }: { audio: AudioMetrics; m: Messages }): VNode | null {
  if (audio.channels.length === 0) return null;
  const byLag = new Map<number, number[]>();
  const unknown = new Map<LagEstimateReason, number[]>();
  for (const c of audio.channels) {
    const why = lagNotEstimated(c);
    if (why) unknown.set(why, [...(unknown.get(why) ?? []), c.channel]);
    else byLag.set(c.lag_estimate_samples, [...(byLag.get(c.lag_estimate_samples) ?? []), c.channel]);
  }
  const said = [...byLag]
    .filter(([lag]) => lag !== 0)
    .sort(([a], [b]) => a - b)
    .map(([lag, channels]) => tx(m, countKey(lag > 0 ? 'lag_late' : 'lag_early', Math.abs(lag)), { n: Math.abs(lag), ms: lagMs(Math.abs(lag), audio.sample_rate), channels: channels.join(', ') }));
  // A silent side has no peak: "could not be estimated", never "no lag".
  for (const [why, channels] of unknown) said.push(tx(m, 'lag_unknown', { channels: channels.join(', '), why: m[`lag_why_${why}`] }));
  const zero = byLag.get(0);
  // "No audio lag" only when every channel was estimated at 0; beside other findings, the channels at 0 by name.
  if (zero && said.length) said.push(tx(m, 'lag_none_on', { channels: zero.join(', ') }));
  const text: Child = said.length ? said.flatMap((s, i) => (i === 0 ? s : [' ', ...s])) : m.lag_none;
  return (
    <p>
      {text} <span class="muted">{m.lag_note}</span>
    </p>
  );
}
