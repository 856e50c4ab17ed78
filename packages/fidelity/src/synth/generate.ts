/**
 * generateRuns: writes synthetic run archives (docs/run-archive.md, version 1) for
 * the H200 baseline and the B200 / H100 candidates, with the controlled
 * differences of differences.ts. Same options and same ffmpeg binary give
 * byte-identical output.
 *
 * Flow: encode every distinct (case, difference) once into a work folder,
 * then assemble each run in a staging folder (JSON, media copies, telemetry,
 * seal), and only when every run is complete rename them into place.
 */
import { makeFolders } from '../output/out-guard.js';
import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { copyFile, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { FidelityError, invalidParameter } from '../errors.js';
import { resolveFfmpeg } from '../media/ffmpeg.js';
import { PlanJson, RunJson, type CiProvider } from '../schemas/run-archive.js';
import { caseSource, planCases, type SynthCase } from './cases.js';
import {
  DIFFERENCE_INFO,
  differenceFor,
  filterEdit,
  needsOwnEncode,
  TELEMETRY_GAP_SECONDS,
  TELEMETRY_GAP_SITE,
  type Difference,
  type ExpectedOutcome,
  type FilterEdit,
} from './differences.js';
import { encodeArgs, planFrames, runFfmpeg } from './encode.js';
import { exists, publish, stagingDir } from './atomic.js';
import { RUN_FORMAT_SUFFIX, writeRunArchive, type RunFormat } from './archive-file.js';
import { DEFAULT_SITES, parseOptions, SITE_NAMES, sizeProfile, type GenerateRunsOptions, type SiteName, type SizeProfile, type SynthSize } from './options.js';
import { listFiles, writeSeal } from './seal.js';
import { ciJson, GPUS_PARTICIPATING, siteFor, SITES, type SiteIdentity } from './sites.js';
import { gpuMetricsCsv, serverTimingJsonl } from './telemetry.js';
import { buildTimeline, slotPlan, type SlotPlan } from './timeline.js';

/**
 * The name of the manifest {@link generateRuns} writes beside the runs (every slot's difference and expected outcome).
 */
export const MANIFEST_FILE = 'synth-manifest.json';

/** One run {@link generateRuns} wrote: its site and role, where it is, its identity and files. */
export interface GeneratedRun {
  site: SiteName;
  /** `rerun`: another run of the baseline's hardware (same-hardware evidence for calibrate), never a candidate. */
  role: 'baseline' | 'candidate' | 'rerun';
  /** Absolute path of the run as written: its folder, or its `.zip` / `.tar.gz` file (see `format`). */
  dir: string;
  /** The site's folder name (h200, ...); an archive is that name plus `.zip` or `.tar.gz`. */
  folder: string;
  format: RunFormat;
  /** The archive's `<file>.sha256` digest file, beside it; absent for a folder. */
  digest_file?: string;
  run_id: number;
  run_attempt: number;
  /** Every file of the run, SHA256SUMS included, sorted. */
  files: string[];
  telemetry_gap: boolean;
  /** Whether power integration over this run's window should succeed (false: the sampling gap). */
  expected_power_valid: boolean;
}

/**
 * One candidate measurement slot and the controlled difference {@link generateRuns} gave it, with the outcome it should have.
 */
export interface GeneratedSlot {
  site: SiteName;
  slot_id: string;
  case_id: string;
  seed: number;
  repetition: number;
  difference: Difference;
  description: string;
  /** The ffmpeg edit that made the difference (filters, trim, dropped track); '' for none. */
  edit: string;
  expected: ExpectedOutcome;
  detail: string;
}

/**
 * What {@link generateRuns} wrote: the plan, the ffmpeg that encoded it, the runs, every candidate slot and the manifest.
 */
export interface GeneratedRuns {
  outDir: string;
  size: SynthSize;
  plan: { plan_id: string; plan_sha256: string; cases: number; repetitions: number; width: number; height: number; fps: number; frames: number; seconds: number };
  ffmpeg: { path: string; version: string; sha256: string };
  runs: GeneratedRun[];
  /** Every measurement slot of every candidate run, with its controlled difference and expected outcome. */
  slots: GeneratedSlot[];
  /** Path of the manifest written next to the runs. */
  manifest: string;
}

const MODEL = { id: 'MiniMaxAI/MiniMax-H3', revision: '42ed227e0000000000000000000000000000beef' };

function planId(profile: SizeProfile, repetitions: number, caseLimit: number | undefined): string {
  const parts = ['h3-cross-hardware', profile.size === 'full' ? 'formal' : 'small', `${profile.seconds}s`];
  if (repetitions > 1) parts.push(`r${repetitions}`);
  if (caseLimit !== undefined) parts.push(`c${caseLimit}`);
  return `${parts.join('-')}-v1`;
}

function jsonBytes(value: unknown): Buffer {
  return Buffer.from(`${JSON.stringify(value, null, 2)}\n`, 'utf8');
}

/** Runs tasks with at most `limit` in flight; the first failure stops new starts and is rethrown. */
async function runLimited(tasks: (() => Promise<void>)[], limit: number): Promise<void> {
  let next = 0;
  let failed: unknown;
  const worker = async () => {
    while (failed === undefined && next < tasks.length) {
      const task = tasks[next++] as () => Promise<void>;
      try {
        await task();
      } catch (error) {
        failed ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  if (failed !== undefined) throw failed;
}

function variantKey(c: SynthCase, d: Difference): string {
  return `c${String(c.index).padStart(3, '0')}-${d}`;
}

/**
 * Writes synthetic H200 (baseline), B200 and H100 (candidate) run archives in the format of
 * docs/run-archive.md, with documented, controlled differences per slot (noise, blur, gain, a
 * silenced channel, a failed request, a shorter stream, a missing audio track, ...), so that
 * `verifyRun` and `compare` can be tried end to end. Each run appears whole or not at all; with
 * `format: 'zip'` or `'tar.gz'` each run is one archive file with its `<file>.sha256` digest beside
 * it. The same options give the same bytes.
 *
 * @throws FidelityError `INVALID_ARGUMENT` for a bad option, `OUTPUT_EXISTS` when a run is already
 *   there and `overwrite` is not set, `OUTPUT_UNWRITABLE`, `FFMPEG_NOT_FOUND` / `FFMPEG_BROKEN`, and
 *   `ABORTED` when `signal` fires.
 * @example
 * ```ts
 * const { runs } = await generateRuns({ outDir: 'runs', format: 'zip' });
 * for (const r of runs) console.log(r.site, r.role, r.dir); // H200 baseline /abs/runs/h200.zip ...
 * ```
 */
export async function generateRuns(options: GenerateRunsOptions): Promise<GeneratedRuns> {
  const opts = parseOptions(options);
  const profile = sizeProfile(opts.size, opts.seconds);
  const siteNames = SITE_NAMES.filter((s) => (opts.sites ?? DEFAULT_SITES).includes(s));
  const sites = siteNames.map((s) => siteFor(SITES[s], opts.providers[s] ?? 'github'));
  const outDir = path.resolve(opts.outDir);
  const signal = opts.signal;
  if (signal?.aborted) throw new FidelityError('ABORTED', 'generation was cancelled');
  const available = planCases(profile).length;
  if (opts.cases !== undefined && opts.cases > available) {
    throw invalidParameter('options.cases', `an integer from 1 to ${available} (the ${profile.size} plan's case count)`, opts.cases);
  }

  if (!opts.overwrite) {
    for (const s of sites) {
      const target = path.join(outDir, s.folder + RUN_FORMAT_SUFFIX[opts.format]);
      if (await exists(target)) throw new FidelityError('OUTPUT_EXISTS', `${target} already exists; pass overwrite (--force) to replace it`);
    }
  }
  const tools = await resolveFfmpeg(opts.ffmpegPath ? { ffmpegPath: opts.ffmpegPath } : {});
  const ffmpeg = tools.ffmpeg;

  const cases = planCases(profile, opts.cases);
  const plan = PlanJson.parse({
    plan_id: planId(profile, opts.repetitions, opts.cases),
    model: MODEL,
    // The media's spec, unless the caller asked for a plan the media break (planOverride).
    video: { width: profile.width, height: profile.height, fps: profile.fps, frames: planFrames(profile), ...opts.planOverride?.video },
    audio: { sample_rate: profile.sampleRate, channels: 2, ...opts.planOverride?.audio },
    warmup_runs: 1,
    repetitions: opts.repetitions,
    cases: cases.map((c) => ({ case_id: c.case_id, prompt: c.prompt, seed: c.seed })),
  });
  const offPlan = plan.video.width !== profile.width || plan.video.height !== profile.height || plan.video.fps !== profile.fps || plan.video.frames !== planFrames(profile) || plan.audio.sample_rate !== profile.sampleRate || plan.audio.channels !== 2;
  const planBytes = jsonBytes(plan);
  const planSha = createHash('sha256').update(planBytes).digest('hex');

  const slotsBySite = new Map<SiteName, SlotPlan[]>(
    sites.map((s) => [s.site, slotPlan(cases, plan.repetitions, plan.warmup_runs, (c) => differenceFor(s.site, c.case_id))]),
  );

  try {
    // Not mkdir's recursive form: under /proc it loops forever (makeFolders fails with the errno instead).
    await makeFolders(outDir);
  } catch (cause) {
    throw new FidelityError('OUTPUT_UNWRITABLE', `Cannot create the output folder ${outDir}: ${(cause as Error).message}`, { cause });
  }
  const work = await stagingDir(path.join(outDir, 'synth-work'));
  const staged: { site: SiteIdentity; dir: string }[] = [];
  try {
    // One encode per distinct variant: identical slots reuse the clean file, so copies are byte-identical by construction.
    const variants = new Map<string, { c: SynthCase; d: Difference }>();
    for (const slots of slotsBySite.values()) {
      for (const slot of slots) {
        if (slot.difference === 'request_failed') continue;
        const d: Difference = needsOwnEncode(slot.difference) ? slot.difference : 'identical';
        variants.set(variantKey(slot.case, d), { c: slot.case, d });
      }
    }
    const keys = [...variants.keys()].sort();
    let done = 0;
    await runLimited(
      keys.map((key) => async () => {
        const { c, d } = variants.get(key) as { c: SynthCase; d: Difference };
        const args = encodeArgs({ source: caseSource(c, profile), edit: filterEdit(d, c.case_id), profile, output: path.join(work, `${key}.mp4`) });
        await runFfmpeg(ffmpeg.path, args, signal);
        opts.onProgress?.({ stage: 'encode', done: ++done, total: keys.length, item: key });
      }),
      opts.concurrency ?? Math.max(1, availableParallelism()),
    );

    let written = 0;
    for (const site of sites) {
      if (signal?.aborted) throw new FidelityError('ABORTED', 'generation was cancelled');
      const slots = slotsBySite.get(site.site) as SlotPlan[];
      const dir = await stagingDir(path.join(outDir, site.folder));
      staged.push({ site, dir });
      await assembleRun(dir, site, opts.providers[site.site] ?? 'github', profile, planBytes, planSha, slots, work);
      opts.onProgress?.({ stage: 'write', done: ++written, total: sites.length, item: site.site });
    }

    const runs: GeneratedRun[] = [];
    for (const { site, dir } of staged) {
      const gap = site.site === TELEMETRY_GAP_SITE;
      const common = { site: site.site, role: site.role, folder: site.folder, run_id: site.runId, run_attempt: site.runAttempt, telemetry_gap: gap, expected_power_valid: !gap };
      if (opts.format === 'dir') {
        const target = path.join(outDir, site.folder);
        await publish(dir, target, opts.overwrite);
        runs.push({ ...common, dir: target, format: 'dir', files: await listFiles(target) });
      } else {
        const target = path.join(outDir, site.folder + RUN_FORMAT_SUFFIX[opts.format]);
        const files = await listFiles(dir);
        await writeRunArchive(dir, target, opts.format);
        await rm(dir, { recursive: true, force: true });
        runs.push({ ...common, dir: target, format: opts.format, digest_file: `${target}.sha256`, files });
      }
    }
    staged.length = 0;

    const slots: GeneratedSlot[] = [];
    for (const site of sites) {
      if (site.role !== 'candidate') continue;
      for (const slot of slotsBySite.get(site.site) as SlotPlan[]) {
        if (slot.kind !== 'measurement') continue;
        const info = DIFFERENCE_INFO[slot.difference];
        slots.push({
          site: site.site, slot_id: slot.slot_id, case_id: slot.case.case_id, seed: slot.case.seed, repetition: slot.repetition,
          difference: slot.difference, description: info.description, edit: describeEdit(filterEdit(slot.difference, slot.case.case_id), profile),
          ...(offPlan
            ? { expected: 'invalid' as const, detail: 'invalid: the media differ from the plan (MEDIA_PLAN_MISMATCH, unless a pair difference comes first)' }
            : { expected: info.outcome, detail: info.detail }),
        });
      }
    }
    const result: Omit<GeneratedRuns, 'manifest'> = {
      outDir,
      size: profile.size,
      plan: {
        plan_id: plan.plan_id, plan_sha256: planSha, cases: cases.length, repetitions: plan.repetitions,
        width: plan.video.width, height: plan.video.height, fps: plan.video.fps, frames: plan.video.frames, seconds: profile.seconds,
      },
      ffmpeg: { path: ffmpeg.path, version: ffmpeg.version, sha256: ffmpeg.sha256 },
      runs,
      slots,
    };
    const manifest = await writeManifest(outDir, result);
    return { ...result, manifest };
  } finally {
    await rm(work, { recursive: true, force: true });
    for (const s of staged) await rm(s.dir, { recursive: true, force: true });
  }
}

async function assembleRun(
  dir: string,
  site: SiteIdentity,
  provider: CiProvider,
  profile: SizeProfile,
  planBytes: Buffer,
  planSha: string,
  slots: SlotPlan[],
  work: string,
): Promise<void> {
  const timeline = buildTimeline(site, profile, slots);
  const run = RunJson.parse({
    run_id: site.runId,
    run_attempt: site.runAttempt,
    plan_sha256: planSha,
    expected_gpu_count: GPUS_PARTICIPATING,
    measurement_window: timeline.measurementWindow,
    records: timeline.records,
  });
  await writeFile(path.join(dir, 'ci.json'), jsonBytes(ciJson(site, provider)));
  await writeFile(path.join(dir, 'plan.json'), planBytes);
  await writeFile(path.join(dir, 'run.json'), jsonBytes(run));
  await mkdir(path.join(dir, 'media'));
  for (const slot of slots) {
    if (slot.difference === 'request_failed') continue;
    const d: Difference = needsOwnEncode(slot.difference) ? slot.difference : 'identical';
    await copyFile(path.join(work, `${variantKey(slot.case, d)}.mp4`), path.join(dir, 'media', `${slot.slot_id}.mp4`));
  }
  await mkdir(path.join(dir, 'telemetry'));
  const gapSeconds = site.site === TELEMETRY_GAP_SITE ? TELEMETRY_GAP_SECONDS : 0;
  await writeFile(path.join(dir, 'telemetry', 'gpu_metrics.csv'), gpuMetricsCsv(site, timeline, { gpus: GPUS_PARTICIPATING, gapSeconds }));
  await writeFile(path.join(dir, 'telemetry', 'server_timing.jsonl'), serverTimingJsonl(timeline));
  await writeSeal(dir);
}

function describeEdit(edit: FilterEdit, profile: SizeProfile): string {
  const parts = [edit.video && `video: ${edit.video}`, edit.audio && `audio: ${edit.audio}`];
  if (edit.keepFraction < 1) {
    const frames = planFrames(profile);
    parts.push(`trim: ${Math.max(1, Math.floor(frames * edit.keepFraction))} of ${frames} frames`);
  }
  if (!edit.audioTrack) parts.push('no audio track');
  return parts.filter(Boolean).join('; ');
}

/** The manifest leaves out absolute paths so that it is as reproducible as the runs it describes. */
async function writeManifest(outDir: string, result: Omit<GeneratedRuns, 'manifest'>): Promise<string> {
  const doc = {
    generator: 'fidelity synth',
    size: result.size,
    plan: result.plan,
    ffmpeg: { version: result.ffmpeg.version, sha256: result.ffmpeg.sha256 },
    runs: result.runs.map(({ site, role, folder, format, run_id, run_attempt, telemetry_gap, expected_power_valid }) => ({
      site, role, folder, ...(format === 'dir' ? {} : { file: folder + RUN_FORMAT_SUFFIX[format] }), run_id, run_attempt, telemetry_gap, expected_power_valid,
    })),
    slots: result.slots,
  };
  const file = path.join(outDir, MANIFEST_FILE);
  const tmp = `${file}.tmp-${process.pid}`;
  await writeFile(tmp, jsonBytes(doc));
  await rename(tmp, file);
  return file;
}
