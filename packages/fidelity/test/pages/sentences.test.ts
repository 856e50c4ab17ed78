/**
 * Sentences a reviewer reads: a case line carries its repetitions' diagnosed cause; counts agree in
 * number; a clip's defect names its frames; one precision per kind of figure; "beyond noise" is
 * explained where it is shown; the Chinese case line of a clip reason has no English sentence.
 */
import { describe, expect, it } from 'vitest';
import { judgeClip } from '../../src/metrics/clip-checks.js';
import { clipReasons } from '../../src/comparison/report-model.js';
import { caseViews } from '../../src/pairing/summary.js';
import { framesText } from '../../src/pages/clip-words.js';
import { messages } from '../../src/pages/i18n.js';
import type { ComparisonNoise } from '../../src/calibrate/schema.js';
import { pairNoiseBlock } from '../../src/pages/noise.js';
import { renderReport } from '../../src/pages/page.js';
import { renderHtml } from '../../src/pages/render.js';
import type { ClipAudio, ClipVideo } from '../../src/schemas/clip.js';
import type { PairReport, Report } from '../../src/schemas/report.js';
import { SAMPLE_MEDIA, sampleReport } from './html-fixture.js';

const en = messages('en');
const zh = messages('zh');

function withPairs(pairs: PairReport[]): Report {
  const report = structuredClone(sampleReport(SAMPLE_MEDIA));
  report.comparisons[0]!.pairs = pairs;
  report.comparisons[0]!.cases = caseViews(pairs);
  return report;
}

/** `n` repetitions of the sample's failed pair on one case, each with channel `silent` newly silent. */
function silentRepetitions(n: number, silent: number[][]): PairReport[] {
  const template = sampleReport(SAMPLE_MEDIA).comparisons[0]!.pairs.find((p) => p.status === 'failed')!;
  return Array.from({ length: n }, (_, k) => {
    const pair = structuredClone(template);
    pair.case_id = 'cafe-duet-s29';
    pair.repetition = k;
    pair.slot_id = `measurement-r00${k}-c005`;
    pair.audio = { ...pair.audio!, newly_silent_channels: silent[k]! };
    return pair;
  });
}

/** The top list's text, tags removed. */
function topText(page: string): string {
  const top = page.slice(page.indexOf('id="verdict"'), page.indexOf('</section>', page.indexOf('id="verdict"')));
  return top.replace(/<[^>]+>/g, '').replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&amp;/g, '&').replace(/[\u2068\u2069]/g, '');
}

describe('a case line', () => {
  it("carries its repetitions' diagnosed cause, once with 'each time' when they agree", () => {
    const text = topText(renderReport(withPairs(silentRepetitions(4, [[1], [1], [1], [1]])), 'en'));
    expect(text).toContain('cafe-duet-s29 on B200: failed in 4 of 4 repetitions, Cause: channel 1 went silent (newly_silent) each time, ');
    const zhText = topText(renderReport(withPairs(silentRepetitions(4, [[1], [1], [1], [1]])), 'zh'));
    expect(zhText).toContain('原因: 每次都是声道 1 变为静音');
  });

  it('names the repetitions of each cause when they differ, and says nothing when none is diagnosed', () => {
    const text = topText(renderReport(withPairs(silentRepetitions(3, [[1], [0, 1], [1]])), 'en'));
    expect(text).toContain('Cause: channel 1 went silent (newly_silent) in repetitions 0, 2; channels 0, 1 went silent (newly_silent) in repetition 1');
    const none = topText(renderReport(withPairs(silentRepetitions(2, [[], []])), 'en'));
    expect(none).not.toContain('Cause');
  });

  it('agrees in number: one repetition of one is "1 repetition of 1"', () => {
    const text = topText(renderReport(withPairs(silentRepetitions(1, [[]])), 'en'));
    expect(text).toContain('failed in 1 repetition of 1');
    expect(text).not.toContain('1 of 1 repetitions');
    expect(topText(renderReport(withPairs(silentRepetitions(1, [[]])), 'zh'))).toContain('唯一的 1 次重复未通过');
  });
});

/** A clip whose audio jumps 256 ms at sample 16384 (0.512 s at 32 kHz), picture black in frames 3–4 only. */
const video: ClipVideo = {
  frame_count: 12, width: 112, height: 64,
  blank_fraction: 2 / 12, black_fraction: 2 / 12, white_fraction: 0,
  duplicate_fraction: 1 / 11, mean_adjacent_frame_mae: 0.0105, frozen_fraction: 2 / 11,
  min_frame_interval_seconds: 1 / 12, max_frame_interval_seconds: 1 / 12, missing_timestamps: 0, nonincreasing_timestamps: 0,
  corrupt_frame_count: 0, geometry_stable: true, time_base_seconds: 1 / 12288, start_seconds: 0, end_seconds: 1,
  blank_runs: [[3, 4]], frozen_runs: [[7, 9]],
};
const audio: ClipAudio = {
  sample_rate: 32000, channel_count: 2, sample_count: 32000,
  rms_channels: [0.1, 0.2], rms_dbfs_channels: [-20, -14], peak_channels: [0.5, 0.5], dc_offset_channels: [0, 0],
  clipping_fraction_channels: [0, 0], silence_fraction_channels: [0, 0], silent_channels: [], identical_channel_pairs: [],
  max_timestamp_gap_seconds: 0.256, max_timestamp_gap_at_sample: 16384, missing_timestamps: 0, nonincreasing_timestamps: 0,
  corrupt_frame_count: 0, time_base_seconds: 1 / 32000, start_seconds: 0, end_seconds: 1, silent_runs: [],
};

function withGapCandidate(): Report {
  const report = sampleReport(SAMPLE_MEDIA);
  const pair = report.comparisons[0]!.pairs[0]!;
  const good = { ...video, blank_fraction: 0, black_fraction: 0, blank_runs: [], frozen_fraction: 0, frozen_runs: [], duplicate_fraction: 0, mean_adjacent_frame_mae: 0.01 };
  const clips = { baseline: judgeClip(good, { ...audio, max_timestamp_gap_seconds: 0, max_timestamp_gap_at_sample: 0 }), candidate: judgeClip(video, audio) };
  const reasons = clipReasons(clips);
  Object.assign(pair, { status: 'invalid', clips, reasons: reasons.map((r) => r.code), reason_details: reasons });
  report.comparisons[0]!.cases = caseViews(report.comparisons[0]!.pairs);
  return report;
}

describe("a clip's defect", () => {
  it('is said in its own sentence in the case line, in Chinese too: no English sentence left', () => {
    const report = withGapCandidate();
    expect(report.comparisons[0]!.pairs[0]!.reasons).toContain('CLIP_AUDIO_GAP');
    const enText = topText(renderReport(report, 'en'));
    expect(enText).toContain("CLIP_AUDIO_GAP B200's clip: the audio jumps 256 ms at 0.512 s (sample 16384)");
    const zhText = topText(renderReport(report, 'zh'));
    expect(zhText).toContain('CLIP_AUDIO_GAP B200 的片段：音频在 0.512 秒处跳变 256 毫秒（第 16384 个采样）');
    expect(zhText).not.toMatch(/audio jumps|continuous|at most/);
  });

  it('names the frames of its black and frozen runs, with one precision per kind of figure', () => {
    expect(framesText([[3, 4]], en)).toBe('frames 3–4');
    expect(framesText([[12, 12]], en)).toBe('frame 12');
    expect(framesText([[0, 1], [5, 5], [8, 9], [11, 12], [14, 15], [17, 18], [20, 21], [23, 24]], en)).toBe('frames 0–1, 5, 8–9, 11–12, 14–15, 17–18, 2 more');
    expect(framesText([[12, 12]], zh)).toBe('第 12 帧');
    expect(framesText([], en)).toBe('');
    const page = renderReport(withGapCandidate(), 'en').replace(/[\u2068\u2069]/g, '');
    const table = page.slice(page.indexOf(en.clip_figures_title), page.indexOf('</table>', page.indexOf(en.clip_figures_title)));
    expect(table).toContain('16.7% (2/12): frames 3–4');
    expect(table).toContain('18.2% (2/11): frames 7–9');
    expect(table).toContain('0.0% (0/12)');
    // The mean change in one precision on both sides: 1.05 beside 1.00, never beside 1.
    expect(table).toContain('<td>1.00</td><td>1.05</td>');
    expect(table).toContain('0.100000 and 0.200000');
    // A figure and where it is, in words ("at"), as the sentences say it; not "@".
    expect(table).toContain('256.000 ms at 0.512 s');
  });

  it("is worded plainly in the tool's message: no 'at most … is continuous'", () => {
    const message = judgeClip(video, audio).reasons.find((r) => r.code === 'CLIP_AUDIO_GAP')!.message;
    expect(message).toBe('audio jumps 256 ms at 0.51 s (sample 16384), where a jump over 0.031 ms (one sample or one timestamp tick) already breaks the audio');
  });
});

describe('the noise-floor table of a pair', () => {
  it('says what "beyond noise" means where it is shown: a p-value against the whole same-hardware spread, not the worst value', () => {
    const pair = structuredClone(sampleReport(SAMPLE_MEDIA).comparisons[0]!.pairs.find((p) => p.status === 'failed')!);
    pair.noise = {
      'video.ssim.min': { p: 0.0495, beyond: true, noise_worst: 0.975082, n: 100 },
      pair: { p: 0.198, beyond: false, k: 4 },
    } as unknown as PairReport['noise'];
    for (const [m, words] of [
      [en, 'p ranks this pair among the 100 same-hardware pairs'],
      [zh, 'p 是本配对在 100 个同硬件配对中的排位'],
    ] as const) {
      const html = renderHtml(() => pairNoiseBlock(pair, m, 0.05)!);
      expect(html).toContain(words);
      expect(html).toContain(m === en ? 'A metric is beyond noise when p ≤ 0.05' : 'p ≤ 0.05 时该指标超出噪声');
      expect(html).toContain(m === en ? 'It is not a comparison with the worst same-hardware value' : '它不是与同硬件最差值的比较');
    }
  });
});

/** The sample report with its comparison judged against a noise sample of `n` pairs, `valid` of its pairs valid. */
function calibrated(n: number, valid: number, k = 4): Report {
  const report = structuredClone(sampleReport(SAMPLE_MEDIA));
  const noise: ComparisonNoise = {
    alpha: 0.05,
    n,
    metrics: ['video.ssim.min'],
    verdict_metrics: ['video.ssim.min', 'video.ssim.mean', 'audio.snr_db', 'audio.spectral_cosine'].slice(0, k),
    valid_pairs: valid,
    beyond_pairs: 1,
    beyond_by_metric: { 'video.ssim.min': 1 },
    binomial_p: 0.05,
    binomial_p_by_metric: { 'video.ssim.min': 0.05 },
    note: null,
    sources: [{ run_id: 1, run_attempt: 1, gpu_model: 'H200' }],
  };
  report.comparisons[0]!.noise = noise;
  return report;
}

describe('the verdict card', () => {
  it('explains "beyond noise" where it counts the pairs: a p-value against the same hardware\'s spread, not its worst value (EN and ZH)', () => {
    const text = topText(renderReport(calibrated(100, 28), 'en'));
    expect(text).toContain('Beyond the same-hardware noise floor: 1 of 28 valid pairs');
    expect(text).toContain('"Beyond noise": the pair\'s p-value against the baseline hardware\'s own spread is at most 0.05.');
    expect(text).toContain("p is the share of the calibration's 100 same-hardware pairs that differ at least as much (a conformal p-value");
    expect(text).toContain('not a comparison with the worst same-hardware value');
    const zhText = topText(renderReport(calibrated(100, 28), 'zh'));
    expect(zhText).toContain('超出同硬件噪声基线：28 个有效配对中 1 个');
    expect(zhText).toContain('“超出噪声”指该配对相对基线硬件自身波动的 p 值不超过 0.05');
    expect(zhText).toContain('校准所用的 100 个同硬件配对中差异至少与该配对一样大的比例（共形 p 值');
    expect(zhText).toContain('不是与同硬件最差值的比较');
    // Not calibrated: no count and no explanation.
    expect(topText(renderReport(sampleReport(SAMPLE_MEDIA), 'en'))).not.toContain('Beyond noise');
  });

  it('counts agree in number: one valid pair, a noise sample of one pair, a verdict over one metric', () => {
    const page = renderReport(calibrated(1, 1, 1), 'en');
    const text = topText(page);
    expect(text).toContain('Beyond the same-hardware noise floor: 1 of 1 valid pair');
    expect(text).toContain("the calibration's 1 same-hardware pair that differ");
    expect(page).toContain('Bonferroni over 1 judged metric)');
    expect(page).toContain('The noise floor is what it gives: 1 same-hardware pair (');
    expect(page).not.toMatch(/\b1 (valid pairs|same-hardware pairs|judged metrics)/);
  });
});

describe('counts on the pages agree in number', () => {
  it('one measured pair, an audio lag of one sample, one repetition that differs', () => {
    const r = structuredClone(sampleReport(SAMPLE_MEDIA));
    r.measurement_origin = { pairs: 1, measured_here: 1, taken_from_shards: 0 };
    const lagged = r.comparisons[0]!.pairs.find((p) => p.audio && p.audio.channels.length > 1)!;
    lagged.audio!.channels[1]!.lag_estimate_samples = 1;
    const en = renderReport(r, 'en');
    expect(en).toContain('The 1 measured pair was measured by the command that wrote this bundle.');
    expect(en).toContain("The candidate's audio looks 1 sample (");
    lagged.audio!.channels[1]!.lag_estimate_samples = -1;
    expect(renderReport(r, 'en')).toContain("The candidate's audio looks 1 sample (");
    expect(renderReport(r, 'zh')).toContain('候选音频在声道 1 上看起来早了 1 个采样');
    const pairs = silentRepetitions(3, [[1], [1], [1]]);
    pairs[2]!.status = 'passed';
    pairs[2]!.checks = pairs[2]!.checks.map((c) => ({ ...c, outcome: 'pass' as const }));
    const varies = topText(renderReport(withPairs(pairs), 'en'));
    expect(varies).toContain('varies: repetition 2 differs from the others');
  });
});

describe('a threshold', () => {
  it('reads as the policy states it everywhere on the page: the chart says "threshold 0.92" as the checks table says "≥ 0.92"', () => {
    const report = structuredClone(sampleReport(SAMPLE_MEDIA));
    const failed = report.comparisons[0]!.pairs.find((p) => p.status === 'failed')!;
    const threshold = failed.checks.find((c) => c.name === 'min_ssim')!.threshold;
    expect(threshold).toBe(0.92);
    const page = renderReport(report, 'en');
    const section = page.slice(page.indexOf(`id="pair-0-${failed.slot_id}"`), page.indexOf('</details>', page.indexOf(`id="pair-0-${failed.slot_id}"`)));
    expect(section).toContain('threshold 0.92<');
    expect(section).not.toContain('threshold 0.920');
    expect(renderReport(report, 'zh')).not.toContain('0.920');
  });
});
