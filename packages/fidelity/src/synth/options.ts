/**
 * What a caller may ask of the generator, and the two size profiles. The
 * options are a zod schema so that a bad value is refused before any ffmpeg
 * process starts, with sharp's "Expected X for Y but received Z" message.
 */
import { z } from 'zod';
import { invalidParameter } from '../errors.js';

/**
 * Every site the generator knows. `H200R` is a second H200 run of the same
 * workload (another run id): same-hardware evidence for `fidelity calibrate`,
 * made only when asked for, so the default set stays H200, B200 and H100.
 */
export const SITE_NAMES = ['H200', 'B200', 'H100', 'H200R'] as const;
/** A synthetic site name: `H200`, `B200`, `H100` or `H200R` (the H200 rerun). */
export const SiteName = z.enum(SITE_NAMES);
export type SiteName = z.infer<typeof SiteName>;
/** The sites generated when `sites` is not given. */
export const DEFAULT_SITES: readonly SiteName[] = ['H200', 'B200', 'H100'];

/**
 * The size profile of synthetic runs: `small` (112x64, 1 s, 10 cases) or `full` (the formal 1344x768, 8 s, 20 cases).
 */
export const SynthSize = z.enum(['small', 'full']);
export type SynthSize = z.infer<typeof SynthSize>;

/** A progress event of {@link generateRuns}. */
export interface GenerateProgress {
  stage: 'encode' | 'write';
  done: number;
  total: number;
  /** What just finished: an encoded variant ("c003 heavy_noise") or a written run ("B200"). */
  item: string;
}

const PositiveInt = (what: string, max: number) => z.number({ error: what }).int({ error: what }).min(1, { error: what }).max(max, { error: what });

/** The options of {@link generateRuns} (a zod schema; the type is its input). */
export const GenerateRunsOptions = z.object({
  outDir: z.string({ error: 'a folder path' }).min(1, { error: 'a folder path' }),
  size: SynthSize.default('small'),
  sites: z
    .array(SiteName, { error: 'a list of "H200", "B200", "H100", "H200R"' })
    .min(1, { error: 'at least one site' })
    .refine((s) => new Set(s).size === s.length, { error: 'a list without duplicates' })
    .optional(),
  /** Clip length; the frame count is seconds x fps. */
  seconds: PositiveInt('an integer number of seconds from 1 to 3600', 3600).optional(),
  repetitions: PositiveInt('an integer from 1 to 100', 100).default(1),
  /** Keep only the first N plan cases (for benchmarks); N below the full list may drop controlled differences. */
  cases: PositiveInt('an integer from 1 to 20', 20).optional(),
  /** How each run is written: a folder (default), a `.zip` like a CI artifact download, or a `.tar.gz`; archives get a `<file>.sha256` digest beside them. */
  format: z.enum(['dir', 'zip', 'tar.gz'], { error: 'one of "dir", "zip", "tar.gz"' }).default('dir'),
  /**
   * The CI provider a site's ci.json names (docs/run-archive.md, "ci.json"); `github` for every site not named.
   * A GitLab site's run id is its job id and its attempt 1; an `other` site has a free-text run reference and no links.
   */
  providers: z
    .partialRecord(SiteName, z.enum(['github', 'gitlab', 'other'], { error: 'one of "github", "gitlab", "other"' }), { error: 'an object of site name to provider' })
    .default({}),
  /**
   * What plan.json states instead of the media's own spec, field by field (the media are made as the
   * size profile says): runs whose media break their plan, as when clips of another size, length or
   * audio layout are archived under the formal plan. Every ok slot then differs from the plan, so
   * `verify` warns about each and every measured pair is invalid (`MEDIA_PLAN_MISMATCH`, or a pair
   * difference the slot already has); the manifest expects `invalid` for every slot.
   */
  planOverride: z
    .object(
      {
        video: z
          .object({ width: PositiveInt('an integer from 1 to 65536', 65536), height: PositiveInt('an integer from 1 to 65536', 65536), fps: z.number({ error: 'a number above 0, at most 1000' }).positive({ error: 'a number above 0, at most 1000' }).max(1000, { error: 'a number above 0, at most 1000' }), frames: PositiveInt('an integer from 1 to 10000000', 10_000_000) })
          .partial()
          .optional(),
        audio: z.object({ sample_rate: PositiveInt('an integer from 1 to 1000000', 1_000_000), channels: PositiveInt('an integer from 1 to 256', 256) }).partial().optional(),
      },
      { error: 'an object { video?, audio? } of plan.json fields' },
    )
    .optional(),
  /** Replace run folders that already exist (each is swapped in whole, never merged). */
  overwrite: z.boolean({ error: 'a boolean' }).default(false),
  /** The ffmpeg to encode with; an ffprobe must sit beside it, since the two always come from one place. Default: the resolved pair. */
  ffmpegPath: z.string({ error: 'a file path' }).min(1, { error: 'a file path' }).optional(),
  /** ffmpeg processes at once; each runs single-threaded so the bytes do not depend on this. */
  concurrency: PositiveInt('an integer from 1 to 64', 64).optional(),
  signal: z.custom<AbortSignal>((v) => v instanceof AbortSignal, { error: 'an AbortSignal' }).optional(),
  onProgress: z.custom<(event: GenerateProgress) => void>((v) => typeof v === 'function', { error: 'a function' }).optional(),
});
export type GenerateRunsOptions = z.input<typeof GenerateRunsOptions>;
export type ResolvedOptions = z.output<typeof GenerateRunsOptions>;

export function parseOptions(input: unknown): ResolvedOptions {
  if (input === null || typeof input !== 'object') throw invalidParameter('options', 'an object', input);
  const result = GenerateRunsOptions.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const key = issue?.path.map(String).join('.') ?? '';
  let received: unknown = input;
  for (const part of issue?.path ?? []) received = (received as Record<PropertyKey, unknown> | undefined)?.[part as PropertyKey];
  throw invalidParameter(`options.${key}`, issue?.message ?? 'a valid value', received);
}

export interface SizeProfile {
  size: SynthSize;
  width: number;
  height: number;
  fps: number;
  seconds: number;
  sampleRate: number;
  seeds: readonly number[];
  /** Block size of the cellular sources: pixel-level life is incompressible noise, so it is drawn coarse and scaled up. */
  cell: number;
  mandelbrotIterations: number;
  x264Preset: string;
  crf: number;
  audioBitrate: string;
  /** Latency and timeout scale with clip length so the small set's telemetry stays a few KB. */
  timeoutSecondsPerClipSecond: number;
}

/**
 * The formal H3 shape and a small one for tests and the committed set. The
 * small one keeps 7:4 (112x64 like 1344x768) and 2 seeds per prompt, which is
 * still room for every controlled difference.
 */
export function sizeProfile(size: SynthSize, seconds?: number): SizeProfile {
  if (size === 'full') {
    return {
      size, width: 1344, height: 768, fps: 24, seconds: seconds ?? 8, sampleRate: 32_000, seeds: [11, 29, 47, 83],
      cell: 8, mandelbrotIterations: 96, x264Preset: 'veryfast', crf: 26, audioBitrate: '96k', timeoutSecondsPerClipSecond: 75,
    };
  }
  return {
    size, width: 112, height: 64, fps: 12, seconds: seconds ?? 1, sampleRate: 32_000, seeds: [11, 29],
    cell: 4, mandelbrotIterations: 96, x264Preset: 'medium', crf: 20, audioBitrate: '16k', timeoutSecondsPerClipSecond: 75,
  };
}
