/**
 * probePair: what measuring learns of a pair before its first frame (both
 * probes and the compatibility verdict), for a caller that checks someone
 * else's measurement of the pair against the media (shard merge).
 */
import { FidelityError } from '../errors.js';
import { checkCompatibility } from '../media/compat.js';
import { resolveFfmpeg } from '../media/ffmpeg.js';
import { probeMedia } from '../media/probe.js';
import type { MediaProbe, ProbeTools } from '../media/probe.js';
import { ProcessScope } from '../media/process.js';
import type { MeasureFailure } from '../schemas/measurement.js';
import type { MeasureOptions } from './api.js';
import { checkArguments, DEFAULT_DECODE_TIMEOUT_MS } from './pair-options.js';
import { checkPlanSpec } from './plan-spec.js';
import { bothSides, blame, pairFailure } from './side-failure.js';

/**
 * What measuring learns about a pair before any frame is decoded: both
 * probes when the pair is comparable, else the failure measuring would
 * report for it (a probe that failed, or checkCompatibility's reason).
 */
export type PairFacts = { ok: true; baseline: MediaProbe; candidate: MediaProbe } | { ok: false; failure: MeasureFailure };

/**
 * Probes both files and judges their compatibility exactly as measurePair
 * does before its first frame, without measuring: for a caller that checks
 * someone else's measurement of the pair against the media (merge). With
 * `sha256`, the two files' sealed SHA-256 (checked against their bytes), a
 * file whose bytes this process has probed already with the same ffprobe is
 * not probed again (media/probe-cache.ts): one probe per file per command,
 * and across commands in one process.
 *
 * @throws FidelityError ABORTED when `signal` aborts; FFMPEG_NOT_FOUND / FFMPEG_BROKEN.
 */
export async function probePair(
  baseline: string,
  candidate: string,
  options: Pick<MeasureOptions, 'ffmpeg' | 'timeoutMs' | 'signal' | 'plan'> = {},
  sha256?: { baseline: string; candidate: string },
): Promise<PairFacts> {
  checkArguments(baseline, candidate, options);
  checkPlanSpec(options.plan);
  if (options.signal?.aborted) throw new FidelityError('ABORTED', 'the probing was cancelled');
  const toolchain = await resolveFfmpeg(options.ffmpeg);
  const tools: ProbeTools = { ffmpeg: toolchain.ffmpeg.path, ffprobe: toolchain.ffprobe.path, timeoutMs: options.timeoutMs ?? DEFAULT_DECODE_TIMEOUT_MS };
  const scope = new ProcessScope(options.signal);
  try {
    // Only a probe that succeeded is kept: a failure is reported with this pair's side, every time.
    const side = (file: string, label: 'baseline' | 'candidate'): Promise<MediaProbe> => probeMedia(scope, tools, file, label, sha256?.[label]);
    const probes = await bothSides(blame('baseline', side(baseline, 'baseline')), blame('candidate', side(candidate, 'candidate')));
    scope.throwIfAborted();
    const failure = checkCompatibility(probes[0], probes[1], options.plan);
    return failure ? { ok: false, failure } : { ok: true, baseline: probes[0], candidate: probes[1] };
  } catch (error) {
    if (options.signal?.aborted) throw new FidelityError('ABORTED', 'the probing was cancelled', { cause: error });
    const failed = pairFailure(error);
    if (failed && !failed.ok) return failed;
    throw error;
  } finally {
    await scope.close();
  }
}
