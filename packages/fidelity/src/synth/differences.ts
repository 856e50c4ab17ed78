/**
 * The controlled differences a candidate run carries, one per case, and the
 * outcome each one must produce under the example thresholds (docs/report.md, "Policy and outcomes").
 * The baseline (H200) is always clean. Keyed by case id rather than slot, so
 * the small and the full set give the same case the same difference.
 *
 * Each difference is a deterministic re-encode of the case's own lavfi source
 * with one extra filter (seeded noise, blur, gain, pan, trim), never a random
 * perturbation of the baseline file, so the same command gives the same bytes.
 */
import type { SiteName } from './options.js';
import { seedFrom } from './prng.js';

/** Every controlled difference the synthetic candidates carry, by name. */
export const DIFFERENCES = [
  'identical',
  'light_noise',
  'slight_blur',
  'heavy_noise',
  'audio_gain_0_8',
  'channel_silenced',
  'request_failed',
  'shorter_stream',
  'missing_audio',
  'gpu_nondeterminism',
] as const;
/** One of {@link DIFFERENCES}. */
export type Difference = (typeof DIFFERENCES)[number];

/**
 * What a synthetic slot should end as in a comparison: every check passes, a check fails, or the pair is invalid.
 */
export type ExpectedOutcome = 'pass' | 'fail' | 'invalid';

/** What a difference is, the outcome it should give, and why. */
export interface DifferenceInfo {
  description: string;
  outcome: ExpectedOutcome;
  /** Which check fails, or why the pair is invalid; for a pass, why it still passes. */
  detail: string;
}

/** Description, expected outcome and explanation of every {@link Difference}. */
export const DIFFERENCE_INFO: Record<Difference, DifferenceInfo> = {
  identical: { description: 'byte-identical copy of the baseline MP4', outcome: 'pass', detail: 'identical video and audio; every check passes' },
  light_noise: {
    description: 'light uniform noise on every plane, new on every frame (seeded)',
    outcome: 'pass',
    detail: 'min SSIM >= 0.92 and video PSNR >= 30 dB; audio identical',
  },
  slight_blur: { description: 'slight Gaussian blur of the luma plane', outcome: 'pass', detail: 'min SSIM >= 0.92 and video PSNR >= 30 dB; audio identical' },
  heavy_noise: {
    description: 'heavy uniform noise on every plane, the same pattern on every frame (seeded)',
    outcome: 'fail',
    detail: 'fails min SSIM >= 0.92 and video PSNR >= 30 dB; audio identical',
  },
  audio_gain_0_8: { description: 'audio gain 0.8 on both channels', outcome: 'fail', detail: 'fails |rms_ratio - 1| <= 0.10 (rms_ratio ~ 0.8); video identical' },
  channel_silenced: {
    description: 'right audio channel silenced',
    outcome: 'fail',
    detail: 'right channel newly_silent: fails spectral_cosine >= 0.95 (0) and |rms_ratio - 1| <= 0.10 (0); video identical',
  },
  request_failed: {
    description: 'the request failed: status "failed", error text, media null, latency null',
    outcome: 'invalid',
    detail: 'invalid: the candidate record failed; no metrics',
  },
  shorter_stream: {
    description: 'stream cut short: video and audio end after 5/6 of the planned frames',
    outcome: 'invalid',
    detail: 'invalid: incompatible streams (frame count differs)',
  },
  missing_audio: { description: 'MP4 without an audio track', outcome: 'invalid', detail: 'invalid: incompatible streams (audio present on one side only)' },
  gpu_nondeterminism: {
    description: 'same-hardware rerun: +-3 level seeded noise on the video, as nondeterministic GPU kernels give',
    outcome: 'pass',
    detail: 'min SSIM well above 0.92 and video PSNR above 40 dB; audio identical',
  },
};

/**
 * Which candidate gets what. B200 carries almost every difference; H100 is
 * mostly identical plus a pass (blur), a fail (gain) and the telemetry gap,
 * so a report compares one messy and one nearly clean candidate.
 */
export const SITE_DIFFERENCES: Record<SiteName, Readonly<Record<string, Difference>>> = {
  H200: {},
  B200: {
    'spoken-greeting-s29': 'light_noise',
    'night-market-s11': 'slight_blur',
    'night-market-s29': 'heavy_noise',
    'cafe-duet-s11': 'audio_gain_0_8',
    'cafe-duet-s29': 'channel_silenced',
    'caption-markup-s11': 'request_failed',
    'caption-markup-s29': 'shorter_stream',
    'ocean-waves-s11': 'missing_audio',
  },
  H100: {
    'spoken-greeting-s29': 'slight_blur',
    'ocean-waves-s29': 'audio_gain_0_8',
  },
  // A same-hardware rerun: some cases differ by nondeterminism-sized noise, the others are identical.
  H200R: {
    'spoken-greeting-s29': 'gpu_nondeterminism',
    'night-market-s11': 'gpu_nondeterminism',
    'cafe-duet-s29': 'gpu_nondeterminism',
    'caption-markup-s11': 'gpu_nondeterminism',
    'ocean-waves-s29': 'gpu_nondeterminism',
  },
};

/** The one run whose telemetry has a sampling gap > 3 s inside its measurement window. */
export const TELEMETRY_GAP_SITE: SiteName = 'H100';
export const TELEMETRY_GAP_SECONDS = 6;

export function differenceFor(site: SiteName, caseId: string): Difference {
  return SITE_DIFFERENCES[site][caseId] ?? 'identical';
}


export interface FilterEdit {
  /** Appended to the video chain after format=yuv420p; '' for none. */
  video: string;
  /** Appended to the audio chain; '' for none. */
  audio: string;
  /** Frames kept, as a fraction of the plan's frame count. */
  keepFraction: number;
  audioTrack: boolean;
}

/**
 * `caseId` seeds the noise: the same case gets the same noise in the small and
 * the full set, and temporal noise is still the same noise on every generation.
 */
export function filterEdit(difference: Difference, caseId: string): FilterEdit {
  // The noise filter takes seeds up to INT_MAX.
  const seed = seedFrom(`noise/${caseId}`) >>> 1;
  const none: FilterEdit = { video: '', audio: '', keepFraction: 1, audioTrack: true };
  switch (difference) {
    case 'light_noise':
      return { ...none, video: `noise=alls=4:allf=t+u:all_seed=${seed}` };
    case 'slight_blur':
      return { ...none, video: 'gblur=sigma=0.4:planes=1' };
    case 'heavy_noise':
      // A fixed pattern (no `t` flag): temporal noise this strong would triple the committed fixtures' size for no extra insight.
      return { ...none, video: `noise=alls=40:allf=u:all_seed=${seed}` };
    case 'audio_gain_0_8':
      return { ...none, audio: 'volume=0.8' };
    case 'channel_silenced':
      return { ...none, audio: 'pan=stereo|c0=c0|c1=0*c1' };
    case 'shorter_stream':
      return { ...none, keepFraction: 5 / 6 };
    case 'missing_audio':
      return { ...none, audioTrack: false };
    case 'gpu_nondeterminism':
      // Its own seed: the rerun's noise is not the light_noise of a candidate, only its size class is small.
      return { ...none, video: `noise=alls=3:allf=t+u:all_seed=${seedFrom(`nondeterminism/${caseId}`) >>> 1}` };
    default:
      return none;
  }
}

/** Differences that need their own encode; the rest reuse the baseline bytes or have no media. */
export function needsOwnEncode(difference: Difference): boolean {
  return difference !== 'identical' && difference !== 'request_failed';
}
