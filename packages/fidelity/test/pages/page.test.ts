import { describe, expect, it } from 'vitest';
import { renderReport } from '../../src/pages/page.js';
import { DEFAULT_POLICY } from '../../src/policy/default.js';
import { messages } from '../../src/pages/i18n.js';
import { duration, kilojoules } from '../../src/pages/format.js';
import { formatDuration } from '../../src/timing/duration.js';
import { PAGE_DATA_ID, PAGE_SCRIPT, PAGE_SCRIPT_HASH } from '../../src/pages/script.js';
import type { MessageKey } from '../../src/pages/i18n.js';
import { Report } from '../../src/schemas/report.js';
import { HOSTILE_ERROR, HOSTILE_PROMPT, htmlText, SAMPLE_MEDIA, sampleReport } from './html-fixture.js';

function withFiles(): Report {
  const report = sampleReport(SAMPLE_MEDIA);
  const [p0, p1] = report.comparisons[0]!.pairs;
  p0!.files = {
    frames_csv: 'pairs/0/measurement-r000-c000/frames.csv',
    baseline_worst_webp: 'pairs/0/measurement-r000-c000/baseline-worst.webp',
    candidate_worst_webp: 'pairs/0/measurement-r000-c000/candidate-worst.webp',
    ssim_heatmap_png: 'pairs/0/measurement-r000-c000/ssim-heatmap.png',
    abs_diff_webp: 'pairs/0/measurement-r000-c000/abs-diff.webp',
    audio_diff_normalized_flac: 'pairs/0/measurement-r000-c000/audio-diff-normalized.flac',
  };
  p1!.files = { frames_csv: 'pairs/0/measurement-r000-c001/frames.csv', sneaky: '../outside.txt' };
  report.comparisons[0]!.files = { frames_csv: 'pairs/0/frames.csv' };
  return Report.parse(report);
}

/** Every value of href/src/poster attributes, entity-decoded enough for our own output. */
function linkValues(html: string): string[] {
  return [...html.matchAll(/\s(?:href|src|poster|srcset|data|action)="([^"]*)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
}

describe('renderReport', () => {
  const report = withFiles();
  const en = renderReport(report, 'en');
  const zh = renderReport(report, 'zh');

  it('is a self-contained page: one hashed inline script, no external stylesheet, font or image', () => {
    for (const page of [en, zh]) {
      expect(page.startsWith('<!doctype html>')).toBe(true);
      expect(page).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
      expect(page).toContain('<meta charset="utf-8">');
      expect(page.match(/<style>/g)).toHaveLength(1);
      // Exactly the page script (allowed by its hash in the policy) and its JSON data block, nothing else.
      const scripts = [...page.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
      expect(scripts.map((s) => s[1])).toEqual([` type="application/json" id="${PAGE_DATA_ID}"`, '']);
      expect(scripts[1]![2]).toBe(PAGE_SCRIPT);
      expect(page).toContain(`script-src ${PAGE_SCRIPT_HASH};`.replaceAll("'", '&#39;'));
      expect(scripts[0]![2]).not.toMatch(/[<>&]/);
      expect(JSON.parse(scripts[0]![2]!).m.play).toBe(messages(page === en ? 'en' : 'zh').play);
      expect(PAGE_SCRIPT).not.toMatch(/fetch|XMLHttpRequest|import\(|eval|Function\(|\.src\b|\.href\s*=|innerHTML|location\s*=|setAttribute\('(?:src|href|poster)/);
      expect(page).not.toMatch(/<link\b/i);
      expect(page).not.toMatch(/url\(|@import/i);
      for (const value of linkValues(page)) {
        const ok = value.startsWith('#') || value.startsWith('https://github.com/example-org/') || /^[a-z0-9][a-z0-9._/-]*$/i.test(value);
        expect(ok, value).toBe(true);
      }
    }
  });

  it('says in both languages that the example thresholds are not a verdict', () => {
    expect(en).toContain(htmlText(messages('en').disclaimer_title));
    expect(en).toContain('not a quality or release verdict');
    expect(zh).toContain('不是质量结论，也不是发布结论');
    expect(zh).toContain(htmlText(messages('zh').disclaimer_uncalibrated));
    for (const page of [en, zh]) expect(page).toContain(htmlText(report.disclaimer));
  });

  it('escapes run text everywhere, prompts and errors included', () => {
    for (const page of [en, zh]) {
      expect(page).toContain(htmlText(HOSTILE_PROMPT));
      expect(page).toContain(htmlText(HOSTILE_ERROR));
      expect(page).not.toContain('<b>chef</b>');
      expect(page).not.toContain('<img src=x');
      expect(page).not.toContain('</textarea><script>');
      expect(page).toContain('🎬');
    }
  });

  it('is deterministic: only generated_at differs between two renderings', () => {
    expect(renderReport(withFiles(), 'en')).toBe(en);
    const later = withFiles();
    later.generated_at = '2030-01-01T00:00:00.000Z';
    const other = renderReport(later, 'en');
    expect(other).not.toBe(en);
    expect(other.replace('2030-01-01T00:00:00.000Z', report.generated_at)).toBe(en);
  });

  it('keeps every video from loading until asked', () => {
    const videos = en.match(/<video\b[^>]*>/g) ?? [];
    // two sides of two valid pairs, plus the invalid pair's baseline
    expect(videos).toHaveLength(5);
    for (const v of videos) expect(v).toContain('preload="none"');
    expect(en).toContain(htmlText(messages('en').no_media));
    const audios = en.match(/<audio\b[^>]*>/g) ?? [];
    expect(audios).toHaveLength(1);
    expect(audios[0]).toContain('preload="none"');
  });

  it('puts each pair in a closed <details> section with a chart and its checks', () => {
    const details = en.match(/<details class="pair" id="pair-0-measurement-r000-c00\d">/g) ?? [];
    expect(details).toHaveLength(3);
    expect(en).not.toMatch(/<details[^>]* open/);
    const polylines = [...en.matchAll(/<polyline class="series" points="([^"]*)"/g)];
    expect(polylines).toHaveLength(2);
    expect(polylines[0]![1]!.split(' ')).toHaveLength(SAMPLE_MEDIA.frames);
    expect(en).toContain('class="limit"');
    expect(en).toContain('<code>CANDIDATE_FAILED</code>');
    expect(en).toMatch(/<span class="badge fail">fail<\/span>/);
    expect(zh).toMatch(/<span class="badge fail">未通过<\/span>/);
  });

  it('links the pages to each other, report.json and the per-pair files, and refuses paths leaving the bundle', () => {
    expect(en).toContain('href="index.zh.html"');
    expect(zh).toContain('href="index.html"');
    for (const page of [en, zh]) {
      expect(page).toContain('href="report.json"');
      expect(page).toContain('href="pairs/0/frames.csv"');
      expect(page).toContain('src="pairs/0/measurement-r000-c000/ssim-heatmap.png"');
      expect(page).toContain('src="pairs/0/measurement-r000-c000/abs-diff.webp"');
      expect(page).toContain('poster="pairs/0/measurement-r000-c000/baseline-worst.webp"');
      expect(page).toContain('poster="pairs/0/measurement-r000-c000/candidate-worst.webp"');
      expect(page).toContain('src="pairs/0/measurement-r000-c000/audio-diff-normalized.flac"');
      expect(page).toContain('href="sources/30054883436-1/run.json"');
      expect(page).not.toContain('../outside.txt"');
    }
  });

  it('links CI pages only over https on the run’s own server', () => {
    const hostile = withFiles();
    hostile.runs[0]!.links.run = 'javascript:alert(1)';
    hostile.runs[0]!.links.artifact = 'https://evil.example/x';
    hostile.runs[1]!.links.run = 'http://github.com/example-org/video-serving-bench/actions/runs/1';
    const page = renderReport(hostile, 'en');
    expect(page).not.toContain('href="javascript:');
    expect(page).not.toContain('href="https://evil.example');
    expect(page).not.toContain('href="http://');
    expect(page).toContain('href="https://github.com/example-org/video-serving-bench/actions/runs/30054883999/artifacts/83999"');
  });

  it('shows missing evidence as unavailable, never as zero', () => {
    const row = (page: string, label: string): string => page.match(new RegExp(`<tr><th scope="row">${label.replace(/[()]/g, '\\$&')}</th>(.*?)</tr>`))?.[1] ?? '';
    // The candidate's power is invalid: its energy must not read 0, and it says why.
    expect(row(en, 'Total GPU energy')).toBe('<td class="n">91.234 kJ</td><td><span class="muted">unavailable</span></td>');
    expect(row(en, 'Reasons')).toContain('<code>GPU_COUNT_MISMATCH</code> The telemetry covers a different number of GPUs');
    expect(row(zh, 'GPU 总能耗')).toContain('不可用');
    // The candidate has no timing at all: every stage reads unavailable, with TIMING_ABSENT.
    expect(row(en, 'Queue delay (accepted → dispatched), median')).toBe('<td class="n">90.00 ms</td><td><span class="muted">unavailable</span></td>');
    expect(en).toContain('<code>TIMING_ABSENT</code> Records without server_timing');
    // The candidate has no accounting: unavailable, not 0.
    expect(row(en, 'GPU-seconds per valid clip')).toBe('<td class="n">75.0</td><td><span class="muted">unavailable</span></td>');
    const bare = withFiles();
    for (const r of bare.runs) {
      delete r.timing;
      delete r.accounting;
      r.power = null;
      r.power_audit = null;
      r.power_detail = null;
    }
    const page = renderReport(bare, 'en');
    expect(row(page, 'Clock')).toBe('<td><span class="muted">unavailable</span></td><td><span class="muted">unavailable</span></td>');
    expect(row(page, 'Power figures valid')).toBe('<td><span class="muted">no telemetry</span></td><td><span class="muted">no telemetry</span></td>');
  });

  it('puts the verdict first and names what failed, worst first', () => {
    const r = structuredClone(report);
    const failed = r.comparisons[0]!.pairs.find((p) => p.status === 'failed')!;
    failed.checks = [
      { name: 'min_ssim', outcome: 'pass', value: 0.99, threshold: 0.92, comparator: '>=', note: null },
      { name: 'rms_ratio_deviation', outcome: 'fail', value: 0.2005, threshold: 0.1, comparator: '<=', note: null },
    ];
    const passed = r.comparisons[0]!.pairs.find((p) => p.status === 'passed')!;
    passed.video!.identical = true;
    if (passed.audio) passed.audio.identical = true;
    const en = renderReport(r, 'en');
    const zh = renderReport(r, 'zh');
    // The verdict and the failing pair's line come before the run evidence and the setup.
    const verdictAt = en.indexOf('id="verdict"');
    expect(verdictAt).toBeGreaterThan(0);
    expect(verdictAt).toBeLessThan(en.indexOf('id="overview"'));
    expect(en.indexOf('id="overview"')).toBeLessThan(en.indexOf('id="pairs"'));
    expect(en.indexOf('id="pairs"')).toBeLessThan(en.indexOf('id="summary"'));
    expect(en.indexOf('id="summary"')).toBeLessThan(en.indexOf('id="evidence"'));
    const anchor = `#pair-0-${failed.slot_id.replace(/[^A-Za-z0-9_-]/g, '_')}`;
    const line = en.slice(en.indexOf(`<ul class="problems">`), en.indexOf('</ul>', en.indexOf('<ul class="problems">')));
    expect(line).toContain(`href="${anchor}"`);
    expect(line).toContain('audio |RMS ratio − 1| 0.2005 (needs ≤ 0.1)');
    expect(zh).toContain('音频 |RMS 比 − 1| 0.2005 (需要 ≤ 0.1)');
    // A bit-identical pair says so instead of a row of 1.0000s.
    const summary = en.slice(en.indexOf(`<details class="pair" id="pair-0-${passed.slot_id}`));
    expect(summary.slice(0, summary.indexOf('</summary>'))).toContain('<strong>identical</strong>');
    // Worst first in the overview: the failed pair's row before the passed one's.
    const overview = en.slice(en.indexOf('id="overview"'), en.indexOf('id="pairs"'));
    expect(overview.indexOf(`href="${anchor}"`)).toBeLessThan(overview.indexOf(`href="#pair-0-${passed.slot_id}"`));
  });

  it('leads a failed pair with its diagnosed cause (a channel newly silent, a temporal offset), then the metric', () => {
    const r = structuredClone(report);
    const failed = r.comparisons[0]!.pairs.find((p) => p.status === 'failed')!;
    failed.audio = { ...failed.audio!, newly_silent_channels: [1] };
    failed.checks = [{ name: 'spectral_cosine', outcome: 'fail', value: 0, threshold: 0.95, comparator: '>=', note: null }];
    // The page's text: tags and bidi isolates removed.
    const text = (html: string) => html.replace(/<[^>]+>/g, '').replace(/[\u2066-\u2069]/g, '');
    const en = text(renderReport(r, 'en'));
    expect(en).toContain('Cause: channel 1 went silent (newly_silent) — audio spectral cosine 0.000000 (needs ≥ 0.95)');
    expect(text(renderReport(r, 'zh'))).toContain('原因: 声道 1 变为静音 (newly_silent) — ');
    failed.audio = { ...failed.audio!, newly_silent_channels: [] };
    failed.video = { ...failed.video!, temporal_offset: { frames: 1, ssim_mean_at_offset: 0.99, ssim_mean_at_zero: 0.6, searched: { offsets: [-1, 0, 1], sampled_frames: [0], ssim_by_frame: [[0.5, 0.6, 0.99]], ssim_means: [0.5, 0.6, 0.99] } } };
    expect(text(renderReport(r, 'en'))).toContain('Cause: the candidate looks 1 frame ahead (a dropped frame?) — audio spectral cosine');
    // Nothing diagnosed: the metric alone, as before.
    delete failed.video!.temporal_offset;
    expect(text(renderReport(r, 'en'))).not.toContain('Cause:');
  });

  it("states the warm-up's outcome beside the measurement slots' (and only the count for a report that has none)", () => {
    const r = structuredClone(report);
    r.runs[1]!.slots = { ...r.runs[1]!.slots, warmup_ok: 0, warmup_failed: 1 };
    const text = (html: string) => html.replace(/<[^>]+>/g, '').replace(/[\u2066-\u2069]/g, '');
    const en = text(renderReport(r, 'en'));
    expect(en).toContain('3 measurement: 3 ok, 1 failed; 1 warm-up: 0 ok, 1 failed');
    // The baseline's report has no warm-up outcome (written before it was recorded): the count alone, never a guess.
    expect(en).toContain('3 measurement: 4 ok, 0 failed; 1 warm-up');
    expect(text(renderReport(r, 'zh'))).toContain('预热 1：成功 0，失败 1');
  });

  it('translates check notes and names the note when a failed check has no value', () => {
    const r = structuredClone(report);
    const failed = r.comparisons[0]!.pairs.find((p) => p.status === 'failed')!;
    failed.checks = [{ name: 'rms_ratio_deviation', outcome: 'fail', value: null, threshold: 0.1, comparator: '<=', note: 'baseline_silent' }];
    expect(renderReport(r, 'en')).toContain('audio |RMS ratio − 1| the baseline channel is silent: the ratio is undefined (needs ≤ 0.1)');
    const zh = renderReport(r, 'zh');
    expect(zh).toContain('基线声道无声：比值无定义');
    expect(zh).not.toContain('the baseline channel is silent');
  });

  it('translates the policy texts the tool writes, and shows a policy file\'s own words as written', () => {
    const r = structuredClone(report);
    r.policy = { ...structuredClone(DEFAULT_POLICY), calibration_status: 'uncalibrated' } as typeof r.policy;
    const zh = renderReport(r, 'zh');
    expect(zh).toContain(htmlText(messages('zh').policy_desc_default));
    expect(zh).not.toContain('Example thresholds from metrics.md');
    expect(zh).toContain('SGLang 的视频默认值');
    expect(zh).not.toContain('InferenceX example policy');
    const own = structuredClone(r);
    own.policy.description = 'Our own thresholds, agreed in review';
    own.policy.checks[0]!.source = 'team decision';
    const page = renderReport(own, 'zh');
    expect(page).toContain('<span class="data">Our own thresholds, agreed in review</span>');
    expect(page).toContain('<span class="data">team decision</span>');
  });

  it('marks the settings that differ between the compared runs', () => {
    const r = structuredClone(report);
    r.runs.forEach((run, i) => {
      run.runtime = { attention_backend: i === 0 ? 'fa3' : 'flashinfer', dtype: 'bf16' };
    });
    const page = renderReport(r, 'en');
    expect(page).toContain('<mark><code>attention_backend</code>: fa3</mark>');
    expect(page).not.toContain('<mark><code>dtype</code>');
    expect(page).toMatch(/<th scope="row">Runtime <span class="badge differs">differs<\/span><\/th>/);
    const same = structuredClone(report);
    same.runs.forEach((run) => (run.runtime = { dtype: 'bf16' }));
    expect(renderReport(same, 'en')).not.toContain('<th scope="row">Runtime <span class="badge differs">');
  });

  it('shows one still and says why there is no difference picture when every video frame is bit-identical', () => {
    const r = structuredClone(report);
    const p0 = r.comparisons[0]!.pairs[0]!;
    p0.video!.identical = true;
    const still = 'pairs/0/measurement-r000-c000/worst.webp';
    p0.files = { frames_csv: 'pairs/0/measurement-r000-c000/frames.csv', baseline_worst_webp: still, candidate_worst_webp: still, audio_diff_normalized_flac: 'pairs/0/measurement-r000-c000/audio-diff-normalized.flac' };
    for (const lang of ['en', 'zh'] as const) {
      const m = messages(lang);
      const page = renderReport(r, lang);
      const section = page.slice(page.indexOf('<details class="pair" id="pair-0-measurement-r000-c000"'), page.indexOf('</details>', page.indexOf('id="pair-0-measurement-r000-c000"')));
      expect(section.match(/<img class="still"/g), lang).toHaveLength(1);
      expect(section).toContain(`src="${still}"`);
      expect(section.match(new RegExp(`poster="${still}"`, 'g'))).toHaveLength(2);
      expect(section).not.toMatch(/abs-diff|ssim-heatmap|class="heat"|class="legend"/);
      expect(section).toContain(htmlText(m.video_identical_no_diff));
      expect(section).toContain(htmlText(m.still_identical_title));
    }
    // The Chinese sentences are Chinese throughout.
    for (const k of ['video_identical_no_diff', 'still_identical_title', 'audio_diff_normalized_note'] as const) expect(messages('zh')[k].replace(/\{[a-z]+\}|dBFS|dB/g, ''), k).not.toMatch(/[A-Za-z]/);
  });

  it('offers one difference FLAC: normalised with its gain stated, or at true level when the difference is loud', () => {
    const r = structuredClone(report);
    const p0 = r.comparisons[0]!.pairs[0]!;
    const section = (page: string): string => page.slice(page.indexOf('id="pair-0-measurement-r000-c000"'), page.indexOf('</details>', page.indexOf('id="pair-0-measurement-r000-c000"')));
    const normalised = section(renderReport(r, 'en'));
    expect(normalised.match(/<audio /g)).toHaveLength(1);
    expect(normalised).toMatch(/amplified by \+\d+\.\d dB so its peak is at -1 dBFS/);
    for (const c of p0.audio!.channels) c.max_abs_diff = 0.6;
    p0.files = { audio_diff_flac: 'pairs/0/measurement-r000-c000/audio-diff.flac' };
    const loud = section(renderReport(r, 'en'));
    expect(loud.match(/<audio /g)).toHaveLength(1);
    expect(loud).toContain('src="pairs/0/measurement-r000-c000/audio-diff.flac"');
    expect(loud).toContain('<a href="pairs/0/measurement-r000-c000/audio-diff.flac" download>FLAC</a>');
    expect(loud).toContain('at its true level (not amplified)');
  });

  it('says the temporal offset and the audio lag in words, in both languages, with what was searched', () => {
    const r = structuredClone(report);
    const p0 = r.comparisons[0]!.pairs[0]!;
    const section = (page: string): string => page.slice(page.indexOf('id="pair-0-measurement-r000-c000"'), page.indexOf('</details>', page.indexOf('id="pair-0-measurement-r000-c000"')));
    const offset = (frames: number, means: number[]) => ({
      frames,
      ssim_mean_at_offset: means[frames + 2]!,
      ssim_mean_at_zero: means[2]!,
      searched: { offsets: [-2, -1, 0, 1, 2], sampled_frames: [2, 5], ssim_by_frame: [means, means], ssim_means: means },
    });
    // The example, word for word.
    p0.video!.temporal_offset = offset(1, [0.85, 0.88, 0.919, 0.998, 0.9]);
    p0.audio!.channels[1]!.lag_estimate_samples = 24;
    const en = section(renderReport(Report.parse(r), 'en'));
    expect(en).toContain('<p class="why">The candidate looks 1 frame ahead (SSIM 0.998 at +1 against 0.919 at 0): a dropped frame?</p>');
    expect(en).toContain('<th>−2</th><th>−1</th><th>0</th><th>+1</th><th>+2</th>');
    expect(en).toContain("FFmpeg's SSIM on Y of 2 sampled candidate frames against the baseline shifted by each offset");
    expect(en).toContain("The candidate's audio looks 24 samples (3.00 ms) late on channel 1 (the cross-correlation peaks there).");
    expect(en).toContain('<td class="n">24 (3.00 ms)</td>');
    const zh = section(renderReport(Report.parse(r), 'zh'));
    expect(zh).toContain('候选视频看起来超前 1 帧（偏移 +1 时 SSIM 为 0.998，偏移 0 时为 0.919）：是否丢了一帧？');
    expect(zh).toContain('候选音频在声道 1 上看起来晚了 24 个采样（3.00 毫秒）');
    p0.video!.temporal_offset = offset(-2, [0.97, 0.6, 0.5, 0.55, 0.5]);
    p0.audio!.channels[1]!.lag_estimate_samples = -8;
    expect(section(renderReport(Report.parse(r), 'en'))).toContain('The candidate looks 2 frames behind (SSIM 0.970 at −2 against 0.500 at 0): a repeated frame?');
    expect(section(renderReport(Report.parse(r), 'en'))).toContain("audio looks 8 samples (1.00 ms) early on channel 1");
    expect(section(renderReport(Report.parse(r), 'zh'))).toContain('候选视频看起来落后 2 帧（偏移 −2 时 SSIM 为 0.970，偏移 0 时为 0.500）：是否重复了一帧？');
    p0.video!.temporal_offset = offset(0, [0.9, 0.93, 0.95, 0.94, 0.9]);
    p0.audio!.channels[1]!.lag_estimate_samples = 0;
    const none = section(renderReport(Report.parse(r), 'en'));
    expect(none).toContain('<p>No temporal offset: no shift of −2..+2 frames matches better than the frames as they are aligned (SSIM 0.950 at 0).</p>');
    expect(none).toContain('No audio lag: the cross-correlation peaks at 0 samples on every channel.');
    // A silent candidate has no peak: the lag could not be estimated, never "no lag" (the reason from report.json, or from the peaks of an older report).
    for (const fromPeaks of [false, true]) {
      const c1 = p0.audio!.channels[1]!;
      c1.candidate_peak = 0;
      if (fromPeaks) delete c1.lag_estimate_reason;
      else c1.lag_estimate_reason = 'candidate_silent';
      const silent = section(renderReport(Report.parse(r), 'en'));
      expect(silent, String(fromPeaks)).not.toContain('No audio lag: the cross-correlation peaks at 0 samples on every channel.');
      expect(silent, String(fromPeaks)).toContain('The audio lag could not be estimated on channel 1: the candidate is silent (all zeros), and a signal of zeros has no cross-correlation peak.');
      expect(silent, String(fromPeaks)).toContain('No audio lag on channel 0 (the cross-correlation peaks at 0 samples).');
      expect(silent, String(fromPeaks)).toContain('<code>candidate_silent</code>');
      expect(section(renderReport(Report.parse(r), 'zh')), String(fromPeaks)).toContain('无法估计声道 1 的音频延迟：候选音频无声（全为零），全零信号的互相关没有峰值。');
    }
    delete p0.video!.temporal_offset;
    expect(section(renderReport(Report.parse(r), 'en'))).not.toContain('Temporal offset');
  });

  it("shows the plan's media spec in the summary and, per measured pair, that both files are as planned", () => {
    const r = structuredClone(report);
    for (const run of r.runs) run.plan_spec = { video: { width: 64, height: 48, fps: 24, frames: 10 }, audio: { sample_rate: 8000, channels: 2 } };
    const en = renderReport(Report.parse(r), 'en');
    expect(en).toMatch(/sha256 [0-9a-f]{12}<\/span><br\/>64×48, 24 fps, 10 frames; 8000 Hz, 2 channels<\/dd>/);
    expect(en).toContain('<h4>Media against the plan</h4><p class="muted">Both files as the plan says: 64×48, 24 fps, 10 frames; 8000 Hz, 2 channels (checked before measuring).</p>');
    expect(renderReport(Report.parse(r), 'zh')).toContain('两个文件都符合计划：64×48，24 帧/秒，10 帧；8000 Hz，2 声道（测量前已检查）。');
    // Reports written before the check have no plan_spec: nothing is claimed.
    expect(renderReport(report, 'en')).not.toContain('Media against the plan');
  });

  it('translates every UI string into Chinese', () => {
    const enM = messages('en');
    const zhM = messages('zh');
    const same = (Object.keys(enM) as MessageKey[]).filter((k) => enM[k] === zhM[k]);
    // Technical names that read the same in both languages.
    expect(same.sort()).toEqual(['chart_ssim', 'ffmpeg_sha256', 'ffprobe_sha256', 'gpu', 'provider_github', 'provider_gitlab']);
    for (const k of Object.keys(enM) as MessageKey[]) {
      if (same.includes(k) || k.startsWith('other_lang') || k === 'html_lang') continue;
      expect(zhM[k], k).toMatch(/[\u4e00-\u9fff]/);
    }
    expect(zh).toContain('<html lang="zh-CN">');
    for (const english of ['Summary', 'Worst frame', 'Per-frame SSIM', 'Run evidence', 'Thresholds', 'unavailable']) {
      expect(zh).not.toContain(`>${english}<`);
    }
  });
});

describe('duration', () => {
  it('keeps the digits of a server time by choosing its unit', () => {
    expect(duration(0.0000052)).toBe('5 ns');
    expect(duration(0.0007)).toBe('700 ns');
    expect(duration(0.0123)).toBe('12.30 µs');
    expect(duration(0.5)).toBe('500.0 µs');
    expect(duration(12.3456)).toBe('12.35 ms');
    expect(duration(1234.5)).toBe('1.234 s');
    // One formatter for the pages and the CLI (fidelity power): the same function, not a copy.
    expect(duration).toBe(formatDuration);
  });
  it('writes energy as grouped kJ', () => {
    expect(kilojoules(395436.87)).toBe('395.437 kJ');
    expect(kilojoules(12345678)).toBe('12\u202f345.678 kJ');
    expect(kilojoules(-1234567.8)).toBe('-1\u202f234.568 kJ');
    expect(kilojoules(5)).toBe('0.005 kJ');
  });
});
