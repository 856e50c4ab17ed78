/**
 * A hand-made report for the page tests: one comparison with a passed, a
 * failed and an invalid pair, hostile run text (markup, quotes, Chinese,
 * emoji), valid power, accounting and server timing on the baseline, an
 * invalid power result and no timing on the candidate. It goes through the
 * zod schema, so a contract change breaks here first.
 */
import { gpuAccounting } from '../../src/power/accounting.js';
import { Report } from '../../src/schemas/report.js';
import type { PairReport, RunReport } from '../../src/schemas/report.js';
import type { AudioMetrics, SsimSeries, VideoMetrics } from '../../src/schemas/measurement.js';
import type { RunRecord } from '../../src/schemas/run-archive.js';
import { isolateBidi } from '../../src/pages/render.js';
import { deriveServerTiming } from '../../src/timing/derive.js';

export interface FixtureMedia {
  width: number;
  height: number;
  frames: number;
  /** null: the clips have no audio. */
  audio: { sampleRate: number; channels: number; samples: number } | null;
  baselineMedia: string;
  candidateMedia: string;
}

/** The small media the page tests describe: 64x48, 10 frames, 8 kHz stereo, content-addressed names. */
export const SAMPLE_MEDIA: FixtureMedia = {
  width: 64,
  height: 48,
  frames: 10,
  audio: { sampleRate: 8000, channels: 2, samples: 8000 },
  baselineMedia: `media/${'1'.repeat(64)}.mp4`,
  candidateMedia: `media/${'2'.repeat(64)}.mp4`,
};

export const HOSTILE_PROMPT = 'A <b>chef</b> says "bonjour" & \'你好\' 🎬 </textarea><script>alert(1)</script>';
export const HOSTILE_ERROR = 'request timed out after 600 s <img src=x onerror=alert(2)>';

function series(values: number[]): SsimSeries {
  const sorted = [...values].sort((a, b) => a - b);
  let worst = 0;
  values.forEach((v, i) => {
    if (v < values[worst]!) worst = i;
  });
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return {
    min: sorted[0]!,
    mean,
    p05: sorted[Math.floor(0.05 * (sorted.length - 1))]!,
    max: sorted.at(-1)!,
    worst_frame: worst,
    harmonic_mean: values.length / values.reduce((a, v) => a + 1 / v, 0),
    per_frame: values,
  };
}

function video(media: FixtureMedia, dip: number): VideoMetrics {
  // A smooth curve with one dip, so the chart and the worst frame are easy to see.
  const worstAt = Math.floor((media.frames * 2) / 3);
  const ssim = Array.from({ length: media.frames }, (_, i) => Number((0.985 - 0.01 * Math.sin(i / 3) ** 2 - (i === worstAt ? dip : 0)).toFixed(6)));
  const s = series(ssim);
  const psnr = ssim.map((v) => Number((20 + 30 * v).toFixed(3)));
  return {
    width: media.width,
    height: media.height,
    frames: media.frames,
    ssim: s,
    ssim_ffmpeg: { y: s, u: s, v: s, all: s },
    ssim_rgb7: s,
    psnr_y: { min: Math.min(...psnr), mean: psnr.reduce((a, b) => a + b, 0) / psnr.length, p05: Math.min(...psnr), max: Math.max(...psnr), worst_frame: s.worst_frame, identical_frames: 0, per_frame: psnr },
    psnr_db: 38.25,
    mae: 0.004321,
    identical: false,
  };
}

function audio(media: FixtureMedia): AudioMetrics | null {
  if (!media.audio) return null;
  const channels = Array.from({ length: media.audio.channels }, (_, c) => ({
    channel: c,
    samples: media.audio!.samples,
    max_abs_diff: 0.0123,
    mae: 0.0011,
    rmse: 0.0015,
    snr_db: 31.5 - c,
    pearson: 0.9991,
    rms_ratio: c === 0 ? 1.02 : null,
    rms_ratio_reason: c === 0 ? null : 'baseline_silent',
    spectral_cosine: 0.998 - c * 0.01,
    newly_silent: false,
    identical: false,
    baseline_peak: 0.5,
    candidate_peak: 0.49,
    lag_estimate_samples: 0,
  }));
  return { sample_rate: media.audio.sampleRate, channels, spectral_cosine: Math.min(...channels.map((c) => c.spectral_cosine)), rms_ratio: 1.02, identical: false, newly_silent_channels: [] };
}

function run(role: 'baseline' | 'candidate', gpu: string, runId: number, attempt: number, extra: Partial<RunReport>): RunReport {
  return {
    role,
    run_id: runId,
    run_attempt: attempt,
    head_sha: 'c2f27fe453ef613f4eb0f8d356a6dbd80ffed7dd',
    server_url: 'https://github.com',
    repository: 'example-org/video-serving-bench',
    workflow: 'h3-serving',
    job: `H3 video ${gpu} smoke`,
    artifact: { id: runId % 100000, name: `h3-video-${runId}-${attempt}` },
    hardware: { gpu_model: gpu, gpus_allocated: 8, gpus_participating: 2 },
    runtime: { attention_backend: 'flash-attention', dtype: 'bf16', topology: 'TP2/Ulysses2' },
    plan_id: 'h3-cross-hardware-formal-8s-v1',
    plan_sha256: 'a'.repeat(64),
    source: { name: `${gpu.toLowerCase()}-run.zip`, kind: 'zip' },
    digest: { checked: role === 'baseline', archive_sha256: 'b'.repeat(64), expected: role === 'baseline' ? 'b'.repeat(64) : null },
    links: {
      run: `https://github.com/example-org/video-serving-bench/actions/runs/${runId}/attempts/${attempt}`,
      artifact: `https://github.com/example-org/video-serving-bench/actions/runs/${runId}/artifacts/${runId % 100000}`,
    },
    sources_dir: `sources/${runId}-${attempt}`,
    slots: { warmup: 1, measurement: 3, ok: role === 'baseline' ? 4 : 3, failed: role === 'baseline' ? 0 : 1 },
    power: null,
    ...extra,
  };
}

const CHECK_BASE = [
  { name: 'min_ssim', comparator: '>=', threshold: 0.92 },
  { name: 'video_psnr_db', comparator: '>=', threshold: 30 },
  { name: 'spectral_cosine', comparator: '>=', threshold: 0.95 },
  { name: 'rms_ratio_deviation', comparator: '<=', threshold: 0.1 },
] as const;

function checksFor(v: VideoMetrics | null, a: AudioMetrics | null): PairReport['checks'] {
  const values = [v?.ssim?.min ?? null, v?.psnr_db ?? null, a?.spectral_cosine ?? null, a?.rms_ratio === null || a === null ? null : Math.abs(a.rms_ratio - 1)];
  return CHECK_BASE.map((c, i) => {
    const value = values[i] ?? null;
    const pass = value === null ? null : c.comparator === '>=' ? value >= c.threshold : value <= c.threshold;
    return {
      ...c,
      value,
      outcome: v === null ? 'inconclusive' : pass === null ? 'not_applicable' : pass ? 'pass' : 'fail',
      note: v === null ? 'invalid_pair' : pass === null ? 'no_audio' : null,
    };
  });
}

const CLOCK = 'linux:5f0c7a1e-boot:CLOCK_MONOTONIC';

function untimed(slot: string): RunRecord {
  return { slot_id: slot, kind: 'measurement', case_id: 'c', prompt: 'p', seed: 11, repetition: 0, status: 'ok', media: `media/${slot}.mp4`, latency_s: 62 };
}

/** A record whose server stages take the given milliseconds: pre-queue 0.25, queue `queueMs`, execution `execMs`, post-processing 1900. */
function timed(slot: string, execMs: number, queueMs: number): RunRecord {
  const ms = 1e6;
  const received = 5_000_000_000;
  const accepted = received + 0.25 * ms;
  const dispatched = accepted + queueMs * ms;
  const finished = dispatched + execMs * ms;
  return {
    ...untimed(slot),
    server_timing: { clock_id: CLOCK, http_received_ns: received, http_accepted_ns: accepted, scheduler_dispatch_ns: dispatched, forward_finished_ns: finished, media_ready_ns: finished + 1900 * ms },
  };
}

export function sampleReport(media: FixtureMedia): Report {
  const good = video(media, 0);
  const bad = video(media, 0.2);
  const sound = audio(media);
  const pairs: PairReport[] = [
    {
      slot_id: 'measurement-r000-c000', case_id: 'spoken-greeting-s11', prompt: 'A person says hello to the camera, 你好。', seed: 11, repetition: 0,
      status: 'passed', reasons: [], reason_details: [],
      baseline_media: media.baselineMedia, candidate_media: media.candidateMedia, baseline_status: 'ok', candidate_status: 'ok', baseline_error: null, candidate_error: null,
      video: good, audio: sound, checks: checksFor(good, sound), files: {},
    },
    {
      slot_id: 'measurement-r000-c001', case_id: 'kitchen-s29', prompt: HOSTILE_PROMPT, seed: 29, repetition: 0,
      status: 'failed', reasons: [], reason_details: [],
      baseline_media: media.baselineMedia, candidate_media: media.candidateMedia, baseline_status: 'ok', candidate_status: 'ok', baseline_error: null, candidate_error: null,
      video: bad, audio: sound, checks: checksFor(bad, sound), files: {},
    },
    {
      slot_id: 'measurement-r000-c002', case_id: 'street-s47', prompt: 'A street at night', seed: 47, repetition: 0,
      status: 'invalid', reasons: ['CANDIDATE_FAILED'],
      reason_details: [{ code: 'CANDIDATE_FAILED', message: HOSTILE_ERROR, side: 'candidate' }],
      baseline_media: media.baselineMedia, candidate_media: null, baseline_status: 'ok', candidate_status: 'failed', baseline_error: null, candidate_error: HOSTILE_ERROR,
      video: null, audio: null, checks: checksFor(null, null), files: {},
    },
  ];
  const report = {
    schema_version: 1,
    generated_at: '2026-11-29T22:00:00.000Z',
    tool: { name: 'fidelity', version: '0.1.0' },
    decoder: { ffmpeg_version: 'ffmpeg version 4.1 test', sha256: 'c'.repeat(64), source: 'installer', ffprobe_version: 'ffprobe version 4.1 test', ffprobe_sha256: 'd'.repeat(64) },
    policy: {
      schema_version: 1, name: 'example-uncalibrated', calibration_status: 'uncalibrated', description: 'Example thresholds from metrics.md.',
      checks: [
        { name: 'min_ssim', metric: 'video.ssim.min', comparator: '>=', threshold: 0.92, source: "SGLang's video default", enabled: true },
        { name: 'video_psnr_db', metric: 'video.psnr_db', comparator: '>=', threshold: 30, source: 'InferenceX example policy', enabled: true },
        { name: 'spectral_cosine', metric: 'audio.spectral_cosine', comparator: '>=', threshold: 0.95, source: 'InferenceX example policy', enabled: true },
        { name: 'rms_ratio_deviation', metric: 'audio.rms_ratio', comparator: '<=', threshold: 0.1, source: 'InferenceX example policy', enabled: true },
      ],
    },
    disclaimer: 'The thresholds of policy "example-uncalibrated" are uncalibrated examples. A pass or a fail against them is not a quality or release verdict.',
    runs: [
      run('baseline', 'H200', 30054883436, 1, {
        power: {
          power_valid: true, reasons: [], expected_gpu_count: 2, observed_gpu_count: 2, total_gpu_energy_j: 91234.5, avg_total_gpu_power_w: 811.2,
          joules_per_valid_clip: 30411.5, valid_clips: 3, max_gap_s: 3, method: 'trapezoid-linear-edges-v1',
        },
        power_audit: 'power/30054883436-1.json',
        power_detail: {
          window: { start_unix: 1764450000, end_unix: 1764450112.47 }, duration_s: 112.47, truncated_last_line: false,
          per_gpu: [
            { index: 0, id: '0', samples_in_range: 119, samples_used: 115, missing_readings: 0, max_gap_s: 1.004, bracketed: true, energy_j: 46500.25, avg_power_w: 413.45, reasons: [] },
            { index: 1, id: '1', samples_in_range: 119, samples_used: 115, missing_readings: 0, max_gap_s: 1.003, bracketed: true, energy_j: 44734.25, avg_power_w: 397.75, reasons: [] },
          ],
        },
        timing: deriveServerTiming([timed('measurement-r000-c000', 61_400, 120), timed('measurement-r000-c001', 62_000, 90), timed('measurement-r000-c002', 60_100, 0.5)]),
        accounting: gpuAccounting({ gpusAllocated: 8, gpusParticipating: 2, expectedGpuCount: 2, windowS: 112.47, validClips: 3, energyJ: 91234.5, measuredGpuCount: 2 }),
      }),
      run('candidate', 'B200', 30054883999, 2, {
        power: { power_valid: false, reasons: ['GPU_COUNT_MISMATCH'], expected_gpu_count: 2, observed_gpu_count: 1, valid_clips: 2, max_gap_s: 3, method: 'trapezoid-linear-edges-v1' },
        power_audit: 'power/30054883999-2.json',
        power_detail: {
          window: { start_unix: 1764460000, end_unix: 1764460090 }, duration_s: 90, truncated_last_line: true,
          per_gpu: [{ index: 0, id: '0', samples_in_range: 95, samples_used: 93, missing_readings: 0, max_gap_s: 1.002, bracketed: true, energy_j: null, avg_power_w: null, reasons: [] }],
        },
        timing: deriveServerTiming([untimed('measurement-r000-c000'), untimed('measurement-r000-c001')]),
      }),
    ],
    comparisons: [
      {
        baseline_run_id: 30054883436, baseline_run_attempt: 1, candidate_run_id: 30054883999, candidate_run_attempt: 2,
        baseline_gpu_model: 'H200', candidate_gpu_model: 'B200',
        summary: { planned: 3, valid_pairs: 2, passed: 1, failed: 1, invalid: 1 },
        pairs,
        cases: [
          { case_id: 'kitchen-s29', seed: 29, status: 'failed', repetitions: 1, worst: [{ check: 'min_ssim', value: bad.ssim!.min, repetition: 0, slot_id: 'measurement-r000-c001' }] },
        ],
      },
    ],
  };
  return Report.parse(report);
}

/** A text value as the pages write it: direction-changing text isolated (pages/render.ts), then `&`, `<` and `"` escaped as preact-render-to-string escapes them. */
export function htmlText(value: string): string {
  return isolateBidi(value).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
}
