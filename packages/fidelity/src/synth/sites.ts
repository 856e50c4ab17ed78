/**
 * Who "produced" each synthetic run: one CI run per hardware site, with its
 * own ids, commit and artifact, and the timing and power figures its
 * synthetic clock and telemetry are drawn from.
 */
import { CiJson, type CiProvider } from '../schemas/run-archive.js';
import type { SiteName } from './options.js';

export interface SiteIdentity {
  site: SiteName;
  /** `rerun`: another run of the baseline's hardware, for calibration; never a comparison candidate. */
  role: 'baseline' | 'candidate' | 'rerun';
  /** Folder name under outDir. */
  folder: string;
  runId: number;
  runAttempt: number;
  headSha: string;
  artifactId: number;
  attentionBackend: string;
  /** The measurement window opens here (UTC, whole milliseconds). */
  windowStartIso: string;
  /** Seconds of request latency per second of generated clip. */
  latencyPerClipSecond: number;
  idleWatts: number;
  busyWatts: number;
  /** Uptime at the window start, for the CLOCK_MONOTONIC stamps of server_timing. */
  uptimeSeconds: number;
  bootId: string;
}

export const SITES: Record<SiteName, SiteIdentity> = {
  H200: {
    site: 'H200', role: 'baseline', folder: 'h200',
    runId: 30054883436, runAttempt: 1, headSha: 'c2f27fe453ef613f4eb0f8d356a6dbd80ffed7dd', artifactId: 4242001,
    attentionBackend: 'flash-attention', windowStartIso: '2026-11-29T21:40:00.250Z',
    latencyPerClipSecond: 7.9, idleWatts: 118, busyWatts: 642, uptimeSeconds: 261_337, bootId: '6b1f3a52-8e0d-4c1b-9a57-2f4c3d8e9a10',
  },
  B200: {
    site: 'B200', role: 'candidate', folder: 'b200',
    runId: 30061277519, runAttempt: 2, headSha: '9d4e1b7a03c8f25e6a1d0b9c4f7e2a8d5b3c6e01', artifactId: 4243117,
    attentionBackend: 'flashinfer', windowStartIso: '2026-11-30T03:12:00.500Z',
    latencyPerClipSecond: 5.6, idleWatts: 164, busyWatts: 913, uptimeSeconds: 88_412, bootId: 'c03e7d91-2a4b-4f68-8d15-7b9e0a6c3f22',
  },
  H100: {
    site: 'H100', role: 'candidate', folder: 'h100',
    runId: 30049902211, runAttempt: 1, headSha: '4a7c2e9f1b3d5a8c0e6f2b4d7a9c1e3f5b8d0a26', artifactId: 4240875,
    attentionBackend: 'flash-attention', windowStartIso: '2026-11-28T18:05:00.750Z',
    latencyPerClipSecond: 11.2, idleWatts: 93, busyWatts: 561, uptimeSeconds: 1_204_990, bootId: '1e5d8b2c-7f3a-4e90-b6c4-0d2a9f8e7b35',
  },
  H200R: {
    site: 'H200R', role: 'rerun', folder: 'h200-rerun',
    runId: 30057310862, runAttempt: 1, headSha: 'c2f27fe453ef613f4eb0f8d356a6dbd80ffed7dd', artifactId: 4242655,
    attentionBackend: 'flash-attention', windowStartIso: '2026-11-30T00:20:00.125Z',
    latencyPerClipSecond: 8.1, idleWatts: 121, busyWatts: 637, uptimeSeconds: 270_911, bootId: '6b1f3a52-8e0d-4c1b-9a57-2f4c3d8e9a10',
  },
};

/** The GPU model a site's ci.json names: a rerun is the same hardware class as the run it repeats. */
export function gpuModel(s: SiteIdentity): string {
  return s.site === 'H200R' ? 'H200' : s.site;
}

export const GPUS_ALLOCATED = 8;
export const GPUS_PARTICIPATING = 2;

/** A site as another CI would number it: GitLab numbers no attempts (a retried job is a new job), so its attempt is 1. */
export function siteFor(s: SiteIdentity, provider: CiProvider): SiteIdentity {
  return provider === 'gitlab' ? { ...s, runAttempt: 1 } : s;
}

/** The synthetic GitLab project and the pipeline a site's job ran in: made-up ids of the same kind GitLab has. */
export const SYNTH_GITLAB = { server_url: 'https://gitlab.example.com', project_path: 'example-org/serving/video-serving-bench', project_id: 4242 } as const;

export function ciJson(s: SiteIdentity, provider: CiProvider = 'github'): CiJson {
  const common = {
    job: `H3 video ${gpuModel(s)} smoke`,
    run_id: s.runId,
    run_attempt: s.runAttempt,
    head_sha: s.headSha,
    artifact: { name: `h3-video-${s.runId}-${s.runAttempt}` },
    hardware: { gpu_model: gpuModel(s), gpus_allocated: GPUS_ALLOCATED, gpus_participating: GPUS_PARTICIPATING },
    runtime: { attention_backend: s.attentionBackend, dtype: 'bf16', topology: 'TP2/Ulysses2' },
  };
  if (provider === 'gitlab') {
    return CiJson.parse({ schema_version: 2, provider: 'gitlab', ...SYNTH_GITLAB, pipeline_id: Math.floor(s.runId / 1000), ...common });
  }
  if (provider === 'other') {
    return CiJson.parse({ schema_version: 2, provider: 'other', run_ref: `Jenkins video-serving-bench #${s.runId % 100_000} (build ${s.runId}, attempt ${s.runAttempt})`, ...common });
  }
  return CiJson.parse({
    schema_version: 1,
    server_url: 'https://github.com',
    repository: 'example-org/video-serving-bench',
    workflow: 'h3-serving',
    job: `H3 video ${gpuModel(s)} smoke`,
    run_id: s.runId,
    run_attempt: s.runAttempt,
    head_sha: s.headSha,
    artifact: { id: s.artifactId, name: `h3-video-${s.runId}-${s.runAttempt}` },
    hardware: { gpu_model: gpuModel(s), gpus_allocated: GPUS_ALLOCATED, gpus_participating: GPUS_PARTICIPATING },
    runtime: { attention_backend: s.attentionBackend, dtype: 'bf16', topology: 'TP2/Ulysses2' },
  });
}
