/**
 * The run archive's JSON files (docs/run-archive.md, version 1) as zod schemas.
 * These schemas are the types: everything else uses z.infer of them.
 * Shape rules live here; cross-file rules (ids equal, plan hash, slot order)
 * live in archive/verify.ts, where every problem can be collected.
 */
import { z } from 'zod';
import { repositoryPathProblem } from './ci-links.js';
import { ServerUrl } from './server-url.js';

export const Sha40 = z.string().regex(/^[0-9a-f]{40}$/i, 'expected 40 hex digits');
export const Sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 lowercase hex digits');
const PositiveInt = z.number().int().positive();
const NonEmpty = z.string().min(1);

/**
 * Marks a range issue, so verification gives it VALUE_OUT_OF_RANGE rather
 * than the file's schema code: 1e308 watts, windows or nanoseconds are
 * finite JSON numbers, and their sums and differences overflow to Infinity later.
 */
export const OUT_OF_RANGE = 'outOfRange';

/** `schema`, limited to [min, max] (`unit` for the message); the lower end only where `schema` does not already have one. */
function within<T extends z.ZodType<number>>(schema: T, min: number, max: number, unit = ''): T {
  return schema.refine((v) => !(v < min) && !(v > max), {
    message: `out of range: expected ${min === -Infinity ? 'at most' : `${min} to`} ${max}${unit}`,
    params: { [OUT_OF_RANGE]: true },
  }) as T;
}

/** Sane ranges for the numbers of docs/run-archive.md (docs/reason-codes.md, "Limits and refusals"). */
export const RANGES = {
  gpus: 65536,
  videoSide: 65536,
  fps: 1000,
  frames: 10_000_000,
  sampleRate: 1_000_000,
  channels: 256,
  runsPerPlan: 10_000,
  cases: 10_000,
  /** warmup_runs + repetitions x cases. */
  plannedSlots: 100_000,
  /** Unix seconds: 1970 to 2286. */
  unixSeconds: 1e10,
  /** One year. */
  latencySeconds: 31_536_000,
  /** 2^63 ns, the most a 64-bit clock can count. */
  clockNs: 2 ** 63,
} as const;

const Gpus = within(PositiveInt, -Infinity, RANGES.gpus);
const UnixSeconds = within(z.number(), 0, RANGES.unixSeconds, ' (unix seconds)');
const ClockNs = within(z.number(), 0, RANGES.clockNs, ' (nanoseconds)');

/** The CI providers ci.json can name (docs/run-archive.md, "ci.json"); `github` when `provider` is absent. */
export const CI_PROVIDERS = ['github', 'gitlab', 'other'] as const;
/** A CI provider ci.json can name: `github` (the default), `gitlab` or `other`. */
export type CiProvider = (typeof CI_PROVIDERS)[number];

/** What every provider's ci.json says about the hardware. */
const Hardware = z.object({
  gpu_model: NonEmpty,
  gpus_allocated: Gpus,
  gpus_participating: Gpus,
});

/** The run links are built from these path segments: no `.` or `..` part (schemas/ci-links.ts). */
function segmentsOf(provider: 'github' | 'gitlab'): (value: string, ctx: z.RefinementCtx) => void {
  return (value, ctx) => {
    const why = repositoryPathProblem(provider, value);
    // The shape (owner/name) is the regex's message; this adds only the dot parts.
    if (why !== null && /^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)+$/.test(value)) ctx.addIssue({ code: 'custom', message: why });
  };
}

/** Free text shown in the pages as it is: one line, at most 500 characters. */
const FreeText = NonEmpty.max(500).regex(/^[^\n\r]*$/, 'expected one line');

/**
 * GitHub Actions (the default): version 1 (no `provider`) or 2 (`provider` absent or `"github"`).
 * Links: `{server_url}/{repository}/actions/runs/{run_id}/attempts/{run_attempt}` and `…/artifacts/{artifact.id}`.
 */
export const GithubCiJson = z.object({
  schema_version: z.union([z.literal(1), z.literal(2)]),
  provider: z.literal('github').optional(),
  server_url: ServerUrl,
  repository: z.string().regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, 'expected owner/name').superRefine(segmentsOf('github')),
  workflow: NonEmpty,
  job: NonEmpty,
  run_id: PositiveInt,
  run_attempt: z.number().int().min(1),
  head_sha: Sha40,
  artifact: z.object({ id: PositiveInt, name: NonEmpty }),
  hardware: Hardware,
  runtime: z.record(z.string(), z.unknown()).optional(),
});
export type GithubCiJson = z.infer<typeof GithubCiJson>;

/**
 * GitLab CI (version 2): the ids GitLab has. A job makes the artifact, so `run_id` is the job id
 * (`CI_JOB_ID`); GitLab numbers no attempts (a retried job is a new job with a new id), so
 * `run_attempt` is 1. Links: `{server_url}/{project_path}/-/jobs/{run_id}`, its pipeline
 * `…/-/pipelines/{pipeline_id}` and artifacts `…/-/jobs/{run_id}/artifacts/browse`.
 */
export const GitlabCiJson = z.object({
  schema_version: z.literal(2, { message: 'provider "gitlab" needs schema_version 2' }),
  provider: z.literal('gitlab'),
  /** `CI_SERVER_URL`. */
  server_url: ServerUrl,
  /** `CI_PROJECT_PATH`: the namespace (groups and subgroups) and the project. */
  project_path: z.string().regex(/^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)+$/, 'expected group[/subgroup...]/project').superRefine(segmentsOf('gitlab')),
  /** `CI_PROJECT_ID`. */
  project_id: PositiveInt,
  /** `CI_PIPELINE_ID`, the instance-wide pipeline id (not the per-project `CI_PIPELINE_IID`). */
  pipeline_id: PositiveInt,
  /** `CI_JOB_NAME`. */
  job: NonEmpty,
  /** `CI_JOB_ID`. */
  run_id: PositiveInt,
  run_attempt: z.literal(1, { message: 'GitLab numbers no attempts: a retried job is a new job with its own id (run_id), so run_attempt is 1' }),
  /** `CI_COMMIT_SHA`. */
  head_sha: Sha40,
  /** The job's `artifacts:name`; GitLab has no artifact id of its own. */
  artifact: z.object({ name: NonEmpty }),
  hardware: Hardware,
  runtime: z.record(z.string(), z.unknown()).optional(),
});
export type GitlabCiJson = z.infer<typeof GitlabCiJson>;

/**
 * Any other CI (version 2): a run number and attempt the CI gives (or the archive's author
 * assigns, unique per run), and a free-text reference a reader can find the run by. No server and
 * no links: nothing is built from these fields, so nothing can point to a page that does not exist.
 */
export const OtherCiJson = z.object({
  schema_version: z.literal(2, { message: 'provider "other" needs schema_version 2' }),
  provider: z.literal('other'),
  /** How to find the run, in words: "Jenkins video-bench #812 on ci.example.internal". Shown as text, never linked. */
  run_ref: FreeText,
  repository: FreeText.optional(),
  workflow: FreeText.optional(),
  job: NonEmpty,
  run_id: PositiveInt,
  run_attempt: z.number().int().min(1),
  head_sha: Sha40,
  artifact: z.object({ name: NonEmpty }),
  hardware: Hardware,
  runtime: z.record(z.string(), z.unknown()).optional(),
});
export type OtherCiJson = z.infer<typeof OtherCiJson>;

/**
 * ci.json: who produced a run (docs/run-archive.md, "ci.json"), one shape per provider; the shape
 * rules, the cross-file ones are checked by verifyRun. Version 1 files (GitHub, no `provider`) read
 * as before.
 */
export const CiJson = z.union([GithubCiJson, GitlabCiJson, OtherCiJson]);
export type CiJson = z.infer<typeof CiJson>;

/** The provider a parsed ci.json names: `github` when it names none. */
export function ciProvider(ci: Pick<CiJson, 'provider'>): CiProvider {
  return ci.provider ?? 'github';
}

/**
 * The schema of the shape `raw.provider` asks for, so every problem is reported against that shape
 * (a union would only say "matches none"); null when `provider` names no known provider.
 */
export function ciSchemaFor(raw: unknown): typeof GithubCiJson | typeof GitlabCiJson | typeof OtherCiJson | null {
  const provider = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as { provider?: unknown }).provider : undefined;
  if (provider === undefined || provider === 'github') return GithubCiJson;
  if (provider === 'gitlab') return GitlabCiJson;
  if (provider === 'other') return OtherCiJson;
  return null;
}

/** One case of a plan: its id, prompt and seed. */
export const PlanCase = z.object({
  case_id: NonEmpty,
  prompt: z.string(),
  seed: z.number().int(),
});
export type PlanCase = z.infer<typeof PlanCase>;

/** A fraction 0..1 (a plan's max_frozen_fraction, max_blank_fraction). */
const UnitFraction = z.number().min(0).max(1);
/** A positive, finite number of seconds (a plan's duration_seconds, duration_tolerance_seconds). */
const PositiveSeconds = z.number().positive().finite();
/** A non-negative, finite number of seconds (a plan's A/V skew limits). */
const SkewSeconds = z.number().min(0).finite();

/** plan.json: the frozen workload (docs/run-archive.md, "plan.json"). */
export const PlanJson = z.object({
  plan_id: NonEmpty,
  model: z.object({ id: NonEmpty, revision: NonEmpty }),
  video: z.object({
    width: within(PositiveInt, -Infinity, RANGES.videoSide),
    height: within(PositiveInt, -Infinity, RANGES.videoSide),
    fps: within(z.number().positive(), -Infinity, RANGES.fps),
    frames: within(PositiveInt, -Infinity, RANGES.frames),
    // Optional clip expectations (docs/run-archive.md, docs/metrics.md "Clip validity"), checked like
    // InferenceX's _validate_expected: a wrong type or a value out of its domain refuses the plan, naming the field.
    requires_motion: z.boolean().optional(),
    max_frozen_fraction: UnitFraction.optional(),
    max_blank_fraction: UnitFraction.optional(),
    duration_seconds: PositiveSeconds.optional(),
    duration_tolerance_seconds: PositiveSeconds.optional(),
  }),
  audio: z.object({
    sample_rate: within(PositiveInt, -Infinity, RANGES.sampleRate),
    channels: within(PositiveInt, -Infinity, RANGES.channels),
    requires_sound: z.boolean().optional(),
  }),
  max_av_start_skew_seconds: SkewSeconds.optional(),
  max_av_end_skew_seconds: SkewSeconds.optional(),
  warmup_runs: within(z.number().int().min(0), -Infinity, RANGES.runsPerPlan),
  repetitions: within(PositiveInt, -Infinity, RANGES.runsPerPlan),
  cases: z
    .array(PlanCase)
    .min(1)
    .refine((cases) => cases.length <= RANGES.cases, { message: `out of range: expected at most ${RANGES.cases} cases`, params: { [OUT_OF_RANGE]: true } }),
});
export type PlanJson = z.infer<typeof PlanJson>;

/** A time window in Unix seconds (fractions allowed). */
export const Window = z.object({ start_unix: z.number(), end_unix: z.number() });
export type Window = z.infer<typeof Window>;

/** A window as a run archive may state it: both ends within RANGES.unixSeconds. */
const ArchiveWindow = z.object({ start_unix: UnixSeconds, end_unix: UnixSeconds });

/** A record's server-side stamps: one clock id and five nanosecond stamps along the pipeline. */
export const ServerTiming = z.object({
  clock_id: NonEmpty,
  http_received_ns: ClockNs,
  http_accepted_ns: ClockNs,
  scheduler_dispatch_ns: ClockNs,
  forward_finished_ns: ClockNs,
  media_ready_ns: ClockNs,
});
export type ServerTiming = z.infer<typeof ServerTiming>;

/** One record of run.json: one planned slot, ok with its media or failed with its error. */
export const RunRecord = z.object({
  slot_id: NonEmpty,
  kind: z.enum(['warmup', 'measurement']),
  case_id: NonEmpty,
  prompt: z.string(),
  seed: z.number().int(),
  repetition: z.number().int().min(0),
  status: z.enum(['ok', 'failed']),
  error: z.string().nullish(),
  media: z.string().nullable(),
  latency_s: within(z.number().nonnegative(), -Infinity, RANGES.latencySeconds, ' s').nullable(),
  window: ArchiveWindow.nullish(),
  server_timing: ServerTiming.nullish(),
});
export type RunRecord = z.infer<typeof RunRecord>;

/** run.json: one record per planned slot (docs/run-archive.md, "run.json"). */
export const RunJson = z.object({
  run_id: PositiveInt,
  run_attempt: z.number().int().min(1),
  plan_sha256: Sha256Hex,
  expected_gpu_count: Gpus,
  measurement_window: ArchiveWindow.nullish(),
  records: z.array(RunRecord),
});
export type RunJson = z.infer<typeof RunJson>;

/** measurement-r{rep:03d}-c{case:03d}: the only slot ids a measurement may have. */
export function measurementSlotId(repetition: number, caseIndex: number): string {
  return `measurement-r${String(repetition).padStart(3, '0')}-c${String(caseIndex).padStart(3, '0')}`;
}

export const WARMUP_SLOT = /^warmup-\d{3}$/;
