/**
 * `fidelity verify`'s look at the media of a verified run: every ok slot's
 * MP4 is probed (media/probe.ts: one ffprobe run, demuxing only, the same
 * probe measuring makes) and checked against the plan's `video` / `audio`
 * spec (media/plan-conformance.ts). A slot whose media differ from the plan is a
 * warning with the code its pairs would get in a comparison
 * (MEDIA_PLAN_MISMATCH), as a failed request is reported and kept: the run
 * stays valid, and its other slots can still be compared. A file ffprobe
 * cannot read is a warning with the probe's code (UNDECODABLE, ...), which
 * its pairs would get too.
 *
 * The probe needs ffprobe, resolved as everywhere else (media/ffmpeg.ts).
 * Without a usable one nothing is probed: the result says `checked: false`
 * and a warning (FFMPEG_NOT_FOUND / FFMPEG_BROKEN) says why. The archive's
 * own rules do not need ffprobe, and a mismatch is only a warning, so not
 * being able to look for one is not a refusal either.
 */
import { FidelityError, isFidelityError } from '../errors.js';
import type { Problem } from '../errors.js';
import type { VerifiedRun } from './types.js';
import type { FieldMismatch } from '../schemas/measurement.js';
import { defaultThreadCount } from '../pool/threads.js';
import { resolveFfmpeg } from '../media/ffmpeg.js';
import type { ResolveOptions } from '../media/ffmpeg.js';
import { describeFieldMismatches, describePlanSpec, planFieldMismatches } from '../media/plan-conformance.js';
import type { MediaPlanSpec } from '../media/plan-conformance.js';
import { probeMedia } from '../media/probe.js';
import { forgetProbes } from '../media/probe-cache.js';
import { ProcessScope } from '../media/process.js';
import { checkBounded } from '../bounds.js';

/** What the probe found for one ok slot. */
export interface SlotMediaCheck {
  slot_id: string;
  kind: 'warmup' | 'measurement';
  /** The media file inside the archive (media/<slot_id>.mp4). */
  media: string;
  /** `conforms`: every field as planned; `mismatch`: MEDIA_PLAN_MISMATCH; `unreadable`: ffprobe could not read it (`code` says how). */
  outcome: 'conforms' | 'mismatch' | 'unreadable';
  /** `mismatch` only: every field that differs, with the plan's and the media's value. */
  mismatches?: FieldMismatch[];
  /** `unreadable` only: the probe's reason code and message (the code the slot's pairs would get). */
  code?: string;
  message?: string;
}

/** What {@link checkRunMedia} found: per ok slot, and the warnings to report. */
export interface RunMediaCheck {
  /** false when no usable ffprobe was found: nothing was probed, and a warning says why. */
  checked: boolean;
  /** The plan's spec the media were checked against. */
  plan: MediaPlanSpec;
  /** The ffprobe that ran (its `-version` line), null when none did. */
  ffprobe: { path: string; version: string } | null;
  /** Every ok slot with verified media, in run.json order (empty when not checked). */
  slots: SlotMediaCheck[];
  /** MEDIA_PLAN_MISMATCH per slot that differs, the probe's code per unreadable slot, or FFMPEG_NOT_FOUND / FFMPEG_BROKEN. */
  warnings: Problem[];
}

/** Options of {@link checkRunMedia}. */
export interface RunMediaOptions {
  /** Which ffprobe (default: resolved as {@link resolveFfmpeg} does). */
  ffmpeg?: ResolveOptions;
  /** Per ffprobe run (default 2 minutes). */
  timeoutMs?: number;
  /** Cancels: the ffprobe children are killed and the promise rejects with a FidelityError `ABORTED`. */
  signal?: AbortSignal;
  /** ffprobe runs at once (default: one per core). */
  concurrency?: number;
}

const DEFAULT_PROBE_TIMEOUT_MS = 120_000;

/** Probe failures that are about the file (the codes a pair would get), as opposed to the setup or a cancellation. */
const FILE_CODES = new Set(['UNDECODABLE', 'NO_VIDEO_STREAM', 'DECODE_TIMEOUT']);

async function inLanes<T, R>(items: readonly T[], lanes: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(lanes, items.length)) }, lane));
  return out;
}

/**
 * Probes the media of every ok slot of a verified run (one ffprobe per file, no decoding) and checks
 * each against the plan's `video` (width, height, fps, frames) and `audio` (sample_rate, channels)
 * spec, as a comparison does before measuring (docs/media.md, "Media against the plan"). Findings are
 * warnings: the run stays valid. A zip's or tar.gz's media are copied out to the run's temp folder
 * to be probed (`run.close()` removes them).
 *
 * @throws FidelityError `ABORTED` when `signal` fires; `MEDIA_CHANGED` when a file no longer matches its seal.
 * @example
 * ```ts
 * const checked = await verifyRun('runs/h200.zip');
 * if (checked.ok) {
 *   const media = await checkRunMedia(checked.run);
 *   for (const w of media.warnings) console.warn(w.code, w.message); // MEDIA_PLAN_MISMATCH slot measurement-r000-c001: its media differ from the plan (...): width 640 px (plan 1344 px)
 *   await checked.run.close();
 * }
 * ```
 */
export async function checkRunMedia(run: VerifiedRun, options: RunMediaOptions = {}): Promise<RunMediaCheck> {
  checkBounded('timeoutMs', options.timeoutMs);
  checkBounded('threads', options.concurrency, 'options.concurrency');
  const plan: MediaPlanSpec = { video: { ...run.plan.video }, audio: { ...run.plan.audio } };
  const spec = describePlanSpec(plan);
  let tools;
  try {
    tools = await resolveFfmpeg(options.ffmpeg);
  } catch (error) {
    if (!isFidelityError(error) || (error.code !== 'FFMPEG_NOT_FOUND' && error.code !== 'FFMPEG_BROKEN')) throw error;
    const message = `the media were not checked against the plan (${spec}): ${error.message}`;
    return { checked: false, plan, ffprobe: null, slots: [], warnings: [{ code: error.code, message }] };
  }
  const probeTools = { ffmpeg: tools.ffmpeg.path, ffprobe: tools.ffprobe.path, timeoutMs: options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS };
  const records = run.records.filter((r) => r.status === 'ok' && run.media.has(r.slot_id));
  const scope = new ProcessScope(options.signal);
  let slots: SlotMediaCheck[];
  try {
    slots = await inLanes(records, options.concurrency ?? defaultThreadCount(), async (record): Promise<SlotMediaCheck> => {
      scope.throwIfAborted();
      const entry = run.media.get(record.slot_id)!;
      const base = { slot_id: record.slot_id, kind: record.kind, media: entry.path };
      try {
        const probe = await probeMedia(scope, probeTools, await run.mediaPath(record.slot_id), record.slot_id, entry.sha256);
        await run.checkMedia(record.slot_id).catch((error: unknown) => {
          forgetProbes(entry.sha256);
          throw error;
        });
        const mismatches = planFieldMismatches(probe, plan);
        return mismatches.length ? { ...base, outcome: 'mismatch', mismatches } : { ...base, outcome: 'conforms' };
      } catch (error) {
        if (options.signal?.aborted) throw new FidelityError('ABORTED', 'the media check was cancelled', { cause: error });
        if (isFidelityError(error) && FILE_CODES.has(error.code)) return { ...base, outcome: 'unreadable', code: error.code, message: error.message };
        throw error;
      }
    });
  } finally {
    await scope.close();
  }
  const warnings: Problem[] = slots.flatMap((s): Problem[] => {
    const where = { file: s.media };
    if (s.outcome === 'mismatch') {
      return [{ code: 'MEDIA_PLAN_MISMATCH', message: `slot ${s.slot_id}: its media differ from the plan (${spec}): ${describeFieldMismatches(s.mismatches!)}`, where }];
    }
    if (s.outcome === 'unreadable') return [{ code: s.code!, message: `slot ${s.slot_id}: ffprobe cannot read its media, so they were not checked against the plan: ${s.message}`, where }];
    return [];
  });
  return { checked: true, plan, ffprobe: { path: tools.ffprobe.path, version: tools.ffprobe.version }, slots, warnings };
}
