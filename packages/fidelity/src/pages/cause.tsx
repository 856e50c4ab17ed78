/**
 * The cause of a pair's outcome, where the measurement diagnoses one: a channel that went silent
 * (`newly_silent`), a temporal offset (a dropped or repeated frame). The pages lead with it, then
 * the metric that failed: "audio spectral cosine 0.000000" says what, "channel 1 went silent" why.
 * An invalid pair leads with its reason code already (a failed request, an incompatible pair, an
 * invalid clip).
 */
import type { PairReport } from '../schemas/report.js';
import { countKey, type Messages } from './i18n.js';
import { joined, tx, type Child } from './parts.js';

/** The diagnosed causes of a measured pair, in words; empty when the measurement diagnoses none. */
export function pairCauses(pair: PairReport, m: Messages): Child[] {
  const causes: Child[] = [];
  const silent = pair.audio?.newly_silent_channels ?? [];
  if (silent.length > 0) {
    const unit = m[countKey('channel', silent.length)];
    causes.push([tx(m, 'cause_newly_silent', { unit, channels: silent.join(', ') }), ' (', <code>newly_silent</code>, ')']);
  }
  const offset = pair.video?.temporal_offset;
  if (offset && offset.frames !== 0) {
    const n = Math.abs(offset.frames);
    causes.push(tx(m, offset.frames > 0 ? 'cause_offset_ahead' : 'cause_offset_behind', { n, unit: m[countKey('frame', n)] }));
  }
  return causes;
}

/** "Cause: channel 1 went silent (newly_silent)": the lead of a failed pair's line; null when nothing is diagnosed. */
export function causeLead(pair: PairReport, m: Messages): Child | null {
  const causes = pairCauses(pair, m);
  if (causes.length === 0) return null;
  return <span class="cause"><strong>{m.cause_label}:</strong> {joined(causes, '; ')}</span>;
}
