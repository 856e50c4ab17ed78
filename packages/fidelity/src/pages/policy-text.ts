/**
 * The policy texts this tool writes itself (the default example policy's
 * description and check sources, a calibrated policy's), in the page's
 * language. A policy file's own words are shown as written: only text that
 * matches what the tool writes, exactly, is translated, with its figures
 * carried over.
 */
import { DEFAULT_POLICY } from '../policy/default.js';
import { fill, fillCount } from './i18n.js';
import type { Messages } from './i18n.js';

// "pair" or "pairs": calibrate writes the noun in agreement with n (1 pair, 2 pairs).
const CALIBRATED_SOURCE = /^worst of (\d+) same-hardware pairs?$/;
const CALIBRATED_DESC = /^Calibrated by fidelity (\S+) from n = (\d+) same-hardware pairs? \(alpha = ([^)]+)\) of (.+): each threshold is the worst value the same hardware produced\.$/;

/** The policy description in the page's language when the tool wrote it; null when it is the policy file's own text. */
export function policyDescriptionText(description: string, m: Messages): string | null {
  if (description === DEFAULT_POLICY.description) return m.policy_desc_default;
  const c = CALIBRATED_DESC.exec(description);
  if (c) return fill(m.policy_desc_calibrated, { version: c[1]!, pairs: fillCount(m, 'same_hw_pairs', Number(c[2]!)), alpha: c[3]!, runs: c[4]! });
  return null;
}

/** A check's source in the page's language when the tool wrote it; null otherwise. */
export function checkSourceText(source: string, m: Messages): string | null {
  if (source === "SGLang's video default") return m.source_sglang_video;
  if (source === 'InferenceX example policy') return m.source_inferencex;
  const c = CALIBRATED_SOURCE.exec(source);
  return c ? fill(m.source_calibrated, { pairs: fillCount(m, 'same_hw_pairs', Number(c[1]!)) }) : null;
}
