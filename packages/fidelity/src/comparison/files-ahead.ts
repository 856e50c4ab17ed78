/**
 * A pair's bundle files made while later pairs are measured. Measuring runs on the pool's threads
 * and the decoders; this thread mostly waits then. Each pair whose capture holds all its stills and
 * difference audio need (bundle/pair-files.ts renderPairFilesAhead) gets its files' bytes made here
 * as soon as it is measured, one pair at a time, and the bundle then only writes them: a short
 * comparison no longer makes every pair's files after its last pair is measured. The bytes are the
 * ones the bundle would make itself, so the bundle is the same whether or not they were made ahead.
 */
import type { PairFile } from '../bundle/assets.js';
import { renderPairFilesAhead } from '../bundle/pair-files.js';
import type { PairCapture } from '../media/frames.js';
import type { MeasureOutcome } from '../schemas/measurement.js';

/** The files made ahead, and the hook that starts them. */
export interface FilesAhead {
  /** MeasureSettings.keep.onMeasured: starts the pair's files when its capture suffices. */
  onMeasured: (id: string, outcome: MeasureOutcome) => void;
  /** Each started pair's files by pair id (WriteBundleSettings.made); null when they could not be made from the capture. */
  made: ReadonlyMap<string, Promise<readonly PairFile[] | null>>;
  /** Resolves once every started pair's files are made or have failed: nothing is left working after the command ends. */
  settled: () => Promise<void>;
}

/**
 * Files made ahead from `captures` (MeasureSettings.keep.captures): give `onMeasured` to
 * measurePairs' `keep` and `made` to writeBundle or writePartial. A capture whose files are made is
 * dropped from `captures`: the bytes stand for it, and are a fraction of its size. A failure to make
 * them is the bundle's failure, thrown where the bundle waits for them.
 */
export function filesAhead(captures: Map<string, PairCapture>): FilesAhead {
  const made = new Map<string, Promise<readonly PairFile[] | null>>();
  // One pair at a time: the pool's threads and the decoders already have the cores.
  let queue: Promise<unknown> = Promise.resolve();
  const onMeasured = (id: string, outcome: MeasureOutcome): void => {
    const capture = captures.get(id);
    if (!outcome.ok || !capture) return;
    const { video, audio } = outcome.measurement;
    const files = queue.then(async () => {
      const rendered = await renderPairFilesAhead({ video, audio: audio ?? null }, capture);
      if (rendered) captures.delete(id);
      return rendered;
    });
    queue = files.catch(() => undefined);
    made.set(id, files);
  };
  return { onMeasured, made, settled: async () => void (await queue) };
}
