/**
 * `fidelity verify RUN --clips`: every completed clip of one run analysed on its own, for a run
 * that has no partner yet (a new site's first run). The same analysis as a compare's
 * (`pairs[].clips`, docs/metrics.md "Clip validity"): one clip after the other, each with its own
 * decoders (pool/analyse-clip.ts), checked against the run's own plan.
 */
import { FidelityError } from '../errors.js';
import type { ResolveOptions } from '../media/ffmpeg.js';
import type { MediaPlanSpec } from '../media/plan-conformance.js';
import { analyseClip } from '../pool/analyse-clip.js';
import { byClipOrder } from '../schemas/clip.js';
import type { ClipAnalysis } from '../schemas/clip.js';
import type { VerifiedRun } from './types.js';
import { checkTempDirs } from '../temp.js';
import { checkBounded } from '../bounds.js';

/** One ok slot's clip: its analysis, or why it could not be decoded. */
export interface SlotClip {
  slot_id: string;
  kind: 'warmup' | 'measurement';
  /** The clip's SHA-256, as the run's seal lists it. */
  sha256: string;
  clip: ClipAnalysis | null;
  /** Set when the clip could not be decoded (its reason code and message); `clip` is null then. */
  failure?: { code: string; message: string };
}

/** What {@link analyseRunClips} found: every ok slot's clip, and the counts a report's `runs[].clips` has. */
export interface RunClipsAnalysis {
  clips: SlotClip[];
  /**
   * Measurement clips: analysed (every one, also one that could not be decoded), valid, and the
   * invalid ones by code, a clip that could not be analysed under its failure's code (warm-ups are
   * listed, never counted).
   */
  analysed: number;
  valid: number;
  invalid_by_code: Record<string, number>;
}

/** Options of {@link analyseRunClips}. */
export interface RunClipsOptions {
  /** Which ffmpeg / ffprobe (default: resolved as {@link resolveFfmpeg} does). */
  ffmpeg?: ResolveOptions;
  /** Wall-clock limit of each ffmpeg/ffprobe child, in milliseconds (default {@link DEFAULT_DECODE_TIMEOUT_MS}). */
  timeoutMs?: number;
  /** Cancels: the ffmpeg children are killed and the promise rejects with a FidelityError `ABORTED`. */
  signal?: AbortSignal;
  /** Called after each clip, with how many of how many are done. */
  onProgress?: (progress: { done: number; total: number; slot_id: string }) => void;
}

/**
 * Analyses the clip of every ok slot of a verified run, in run.json order.
 *
 * @throws FidelityError `ABORTED` when `signal` fires; `FFMPEG_NOT_FOUND` / `FFMPEG_BROKEN`.
 * @example
 * ```ts
 * const checked = await verifyRun('runs/h200.zip');
 * if (checked.ok) {
 *   const clips = await analyseRunClips(checked.run);
 *   console.log(`${clips.valid} of ${counted(clips.analysed, 'clip')} valid`, clips.invalid_by_code);
 *   await checked.run.close();
 * }
 * ```
 */
export async function analyseRunClips(run: VerifiedRun, options: RunClipsOptions = {}): Promise<RunClipsAnalysis> {
  checkBounded('timeoutMs', options.timeoutMs);
  const plan: MediaPlanSpec = {
    video: { ...run.plan.video },
    audio: { ...run.plan.audio },
    ...(run.plan.max_av_start_skew_seconds === undefined ? {} : { max_av_start_skew_seconds: run.plan.max_av_start_skew_seconds }),
    ...(run.plan.max_av_end_skew_seconds === undefined ? {} : { max_av_end_skew_seconds: run.plan.max_av_end_skew_seconds }),
  };
  // Each clip's decoders read it through links in a temp folder: one that cannot be made is refused before the first clip.
  await checkTempDirs();
  const records = run.records.filter((r) => r.status === 'ok' && run.media.has(r.slot_id));
  const clips: SlotClip[] = [];
  for (const record of records) {
    if (options.signal?.aborted) throw new FidelityError('ABORTED', 'the clip analysis was cancelled');
    const file = await run.mediaPath(record.slot_id);
    const outcome = await analyseClip(file, {
      plan,
      ...(options.ffmpeg ? { ffmpeg: options.ffmpeg } : {}),
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    // The bytes analysed are the bytes verified (docs/media.md, "Media that change").
    await run.checkMedia(record.slot_id);
    const sha256 = run.media.get(record.slot_id)!.sha256;
    clips.push(
      outcome.ok
        ? { slot_id: record.slot_id, kind: record.kind, sha256, clip: { sha256, ...outcome.clip } }
        : { slot_id: record.slot_id, kind: record.kind, sha256, clip: null, failure: outcome.failure },
    );
    options.onProgress?.({ done: clips.length, total: records.length, slot_id: record.slot_id });
  }
  // A clip that could not be analysed (undecodable, off the plan) is counted, invalid under its failure's
  // code, as report.json's runs[].clips counts it: every completed clip is judged.
  const measured = clips.filter((c) => c.kind === 'measurement');
  const counts: Record<string, number> = {};
  for (const c of measured) for (const code of c.clip ? c.clip.reasons.map((r) => r.code) : [c.failure!.code]) counts[code] = (counts[code] ?? 0) + 1;
  return {
    clips,
    analysed: measured.length,
    valid: measured.filter((c) => c.clip?.valid === true).length,
    invalid_by_code: byClipOrder(counts),
  };
}
