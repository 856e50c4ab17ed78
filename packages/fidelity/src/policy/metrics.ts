/**
 * Which report figure each check may read. A check's name fixes its meaning
 * (what a null value says, whether a deviation from 1 is taken), so a policy
 * may point a check at a sibling figure of the same family but never at an
 * unrelated one: a typo must be refused when the policy is loaded, not
 * silently judged as "no value" on every pair.
 */
import type { CheckName } from '../schemas/policy.js';

const SSIM_SERIES = '(min|mean|p05|max|harmonic_mean)';

export const METRIC_PATTERNS: Record<CheckName, RegExp> = {
  min_ssim: new RegExp(`^video\\.(ssim|ssim_rgb7|ssim_ffmpeg\\.(y|u|v|all))\\.${SSIM_SERIES}$`),
  video_psnr_db: /^video\.(psnr_db|psnr_y\.(min|mean|p05|max))$/,
  spectral_cosine: /^audio\.spectral_cosine$/,
  rms_ratio_deviation: /^audio\.rms_ratio$/,
};

/** Follows a dotted path through plain objects; undefined when any step is missing. */
export function readPath(root: unknown, dotted: string): unknown {
  let node: unknown = root;
  for (const key of dotted.split('.')) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}
