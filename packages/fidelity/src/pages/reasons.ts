/**
 * Why a pair is invalid, in the page's language. The reason messages in
 * report.json are the tool's English sentences with the figures in them; the
 * English page shows them as they are. Other pages show the translated
 * sentence for the code (its `words` in the catalogue, errors.ts) followed by the figures
 * the message names ("baseline 12, candidate 10"), or, for a failed request,
 * the run's own error text, which is run data and never translated.
 */
import { reasonDeclaration } from '../errors.js';
import type { MessageKey, Messages } from './i18n.js';
import { fill, langOf } from './i18n.js';

const RUN_ERROR_CODES = new Set(['FAILED_BASELINE', 'FAILED_CANDIDATE', 'FAILED_BOTH']);
/** "baseline X, candidate Y" as the compat and workload checks write it. */
const SIDES = /baseline ([^,;]+?), candidate ([^,;)]+?)(?: per channel)?(?:\)|$)/;
/** One field of a MEDIA_PLAN_MISMATCH message: "sample_rate none (plan 32000 Hz)" (plan-conformance's describeFieldMismatches). */
const PLAN_FIELD = /\b(width|height|fps|frames|sample_rate|channels|audio_duration) ([^,(]+?) \(plan ([^)]*)\)/g;
/** "Only the baseline has …" / "The candidate has …". */
const ONE_SIDE = /\b(baseline|candidate)\b/;

/** Plain text (not escaped) of one reason, in the page's language. */
export function reasonText(code: string, message: string | null, m: Messages): string {
  const words = reasonDeclaration(code)?.words;
  const lang = langOf(m);
  if (lang === 'en' || !words) return message ?? (words ? words.en : code);
  const generic = words[lang];
  if (message === null) return generic;
  if (RUN_ERROR_CODES.has(code)) return `${generic}: ${message}`;
  const fields = code === 'MEDIA_PLAN_MISMATCH' ? [...message.matchAll(PLAN_FIELD)] : [];
  if (fields.length > 0) {
    // Each field by its translated label, the media's value, then the plan's (its figures kept as written).
    const side = /^Both sides/.test(message) ? m.side_both : ONE_SIDE.exec(message)?.[1] === 'baseline' ? m.side_baseline : ONE_SIDE.exec(message) ? m.side_candidate : null;
    const list = fields.map((f) => `${m[`plan_field_${f[1]}` as MessageKey]} ${f[2] === 'none' ? '—' : f[2]}（${m.plan_value} ${f[3]}）`).join('；');
    return `${generic}（${side ? `${side}：` : ''}${list}）`;
  }
  const sides = SIDES.exec(message);
  if (sides) return `${generic} (${fill(m.reason_sides, { baseline: sides[1]!, candidate: sides[2]! })})`;
  const one = ONE_SIDE.exec(message);
  if (one && code === 'INCOMPATIBLE_AUDIO_PRESENCE' && !/\d/.test(message)) return fill(m.reason_audio_only, { side: one[1] === 'baseline' ? m.side_baseline : m.side_candidate });
  // No translated form for this message: its figures must not be lost, so the tool's own detail follows the sentence.
  return /\d/.test(message) ? `${generic}（${message}）` : generic;
}
