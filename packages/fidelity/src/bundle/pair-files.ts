/**
 * A measured pair's own files in a bundle or a partial: the per-frame CSV and, when the pair was
 * measured, its stills, heat map and difference audio (bundle/assets.ts). Either made here from
 * the pair's media and what measuring kept, or written from bytes made earlier
 * ({@link renderPairFilesAhead}: compare makes them while later pairs are measured).
 */
import type { ResolveOptions } from '../media/ffmpeg.js';
import type { PairCapture } from '../media/frames.js';
import type { PairReport } from '../schemas/report.js';
import { pairAssetFiles, renderCapturedAssets, writePairFolder, type PairFile } from './assets.js';
import { PAIR_FILE_KEYS } from './assets-keys.js';
import { pairFramesCsv } from './frames-csv.js';

/** The per-frame CSV's name in the pair's folder. */
const FRAMES_CSV = 'frames.csv';

/** One pair's files to write: where, for which pair report, from which media. */
export interface PairFilesInput {
  /** The folder being written (bundle or partial). */
  dir: string;
  /** The pair's figures: a pair has video figures only when it was measured (an invalid pair has none). */
  pair: Pick<PairReport, 'video' | 'audio'>;
  /** Folder-relative prefix of this pair's files, `pairs/<candidate run>/<slot_id>`. */
  prefix: string;
  /** Readable files with the pair's media bytes; null where that side has none. */
  baselinePath: string | null;
  candidatePath: string | null;
  /** What measuring kept of the pair (pool/frame-capture.ts): what it holds is not decoded again. */
  capture?: PairCapture;
  /**
   * The pair's files made ahead from the same figures ({@link renderPairFilesAhead}): written as they
   * are. Null (nothing made) falls back to making them here.
   */
  made?: Promise<readonly PairFile[] | null>;
  ffmpeg: ResolveOptions;
  /** Wall-clock limit of each still / audio extraction (the pairs' decode limit). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * A measured pair's own files: the per-frame CSV and, when it is valid, the
 * stills, heat map and difference audio (FLAC). Returns them in PairReport.files
 * order; nothing for a pair without video metrics.
 */
export async function writePairFiles(input: PairFilesInput): Promise<Record<string, string>> {
  const { pair, prefix, dir } = input;
  if (!pair.video) return {};
  const made = input.made ? await input.made : null;
  if (made) return writePairFolder(dir, prefix, made);
  const assets =
    input.baselinePath !== null && input.candidatePath !== null
      ? await pairAssetFiles({
          pair,
          baselinePath: input.baselinePath,
          candidatePath: input.candidatePath,
          ...(input.capture ? { capture: input.capture } : {}),
          ffmpeg: input.ffmpeg,
          ...(input.timeoutMs ? { timeoutMs: input.timeoutMs } : {}),
          ...(input.signal ? { signal: input.signal } : {}),
        })
      : [];
  return writePairFolder(dir, prefix, [framesCsvFile(pair.video), ...assets]);
}

/**
 * The files {@link writePairFiles} writes for a measured pair whose media are both present, made from
 * what measuring kept alone, in the same order and with the same bytes. Null when the pair has no
 * video figures or the capture lacks what its stills or difference audio need (the bundle then makes
 * them from the media).
 */
export function renderPairFilesAhead(pair: Pick<PairReport, 'video' | 'audio'>, capture: PairCapture): Promise<PairFile[]> | null {
  if (!pair.video) return null;
  const assets = renderCapturedAssets(pair, capture);
  if (!assets) return null;
  const csv = framesCsvFile(pair.video);
  return assets.then((files) => [csv, ...files]);
}

/** The per-frame CSV, the first of a measured pair's files. */
function framesCsvFile(video: NonNullable<PairReport['video']>): PairFile {
  return { name: FRAMES_CSV, keys: [PAIR_FILE_KEYS.framesCsv], bytes: pairFramesCsv(video) };
}
