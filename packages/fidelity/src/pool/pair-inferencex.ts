/**
 * InferenceX's `compare_media` figures of a pair (metrics/inferencex.ts) as measuring reports them:
 * from the sums of the pair's pass and the probes' timestamps, or InferenceX's template when it
 * refuses the pair on what the probes say.
 */
import { inferencexRefuses } from '../media/compat.js';
import type { MediaProbe } from '../media/probe.js';
import type { AudioChannelSums } from '../metrics/audio-channel.js';
import { exactDeltaSeconds, inferencexFigures, inferencexRefused, maxDeltaSeconds } from '../metrics/inferencex.js';
import type { MetricName } from '../metrics/registry.js';
import type { InferencexFigures, MeasureFailure, MeasureOutcome, VideoMetrics } from '../schemas/measurement.js';

/** InferenceX's figures need the pooled rgb24 PSNR and MAE and the audio: every set that computes all three has them. */
export function computesInferencex(metrics: readonly MetricName[]): boolean {
  return metrics.includes('psnr_db') && metrics.includes('mae') && metrics.includes('audio');
}

/** A refused pair: with InferenceX's template when the set computes its figures and InferenceX refuses the pair too. */
export function refused(failure: MeasureFailure, probes: [MediaProbe, MediaProbe], metrics: readonly MetricName[]): MeasureOutcome {
  if (!computesInferencex(metrics) || inferencexRefuses(probes[0], probes[1]) !== true) return { ok: false, failure };
  return { ok: false, failure, inferencex: inferencexRefused() };
}

/**
 * InferenceX's `compare_media` figures of a measured pair (metrics/inferencex.ts), from the sums of
 * this pass and the probes' timestamps; the template when InferenceX refuses the pair on what the
 * probes say. The clips' verdicts on InferenceX's unconditional checks are applied by the caller
 * (withClipValidity), from the per-clip analysis of the same pass.
 */
export function inferencexOf(probes: [MediaProbe, MediaProbe], video: VideoMetrics, sums: AudioChannelSums[] | null): InferencexFigures {
  if (inferencexRefuses(probes[0], probes[1]) !== false) return inferencexRefused();
  const [va, vb] = [probes[0].video!, probes[1].video!];
  const [xa, xb] = [probes[0].audio, probes[1].audio];
  const start = (x: NonNullable<typeof xa>): { pts: number; tb: { num: number; den: number } } | null =>
    x.startPts === null ? null : { pts: x.startPts, tb: x.startTimeBase ?? x.timeBase };
  const [sa, sb] = xa && xb ? [start(xa), start(xb)] : [null, null];
  return inferencexFigures(
    { mae: video.mae!, psnrDb: video.psnr_db ?? null, frames: video.frames, maxAlignmentDeltaSeconds: maxDeltaSeconds(va.pts, va.timeBase, vb.pts, vb.timeBase) },
    sums ? { sums, maxAlignmentDeltaSeconds: sa && sb ? exactDeltaSeconds(sa.pts, sa.tb, sb.pts, sb.tb) : null } : null,
  );
}
