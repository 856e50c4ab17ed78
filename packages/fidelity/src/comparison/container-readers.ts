/**
 * What read each media file's container, for report.json's
 * `decoder.container_readers`: the library's own MP4 / QuickTime reader
 * (media/mp4-reader.ts) for the files it vouches for, ffprobe for the rest.
 * Which one reads a file is a function of its bytes (and the library's
 * version), so it is told here by asking the reader again of every media file
 * of the plan's runs (every readable clip of a run a command reads is
 * probed): a moov box read, no process started.
 */
import { readMp4 } from '../media/mp4-reader.js';
import type { ContainerReaderEntry } from '../schemas/report.js';
import { TOOL_VERSION } from '../version.js';
import type { DecoderIdentity } from './types.js';
import type { VerifiedRun } from '../archive/types.js';

/** `decoder` with `container_readers` filled in from the media of `runs`. */
export async function withContainerReaders(decoder: DecoderIdentity, runs: readonly VerifiedRun[]): Promise<DecoderIdentity> {
  const seen = new Set<string>();
  let own = 0;
  const byFfprobe: string[] = [];
  for (const run of runs) {
    for (const entry of run.media.values()) {
      if (seen.has(entry.sha256)) continue;
      seen.add(entry.sha256);
      const reading = await readMp4(await run.mediaPath(entry.slot_id));
      if (reading.ok) own++;
      else byFfprobe.push(entry.sha256);
    }
  }
  const readers: ContainerReaderEntry[] = [];
  if (own > 0) readers.push({ reader: 'media-fidelity', version: TOOL_VERSION, files: own });
  if (byFfprobe.length > 0) readers.push({ reader: 'ffprobe', version: decoder.ffprobe_version, files: byFfprobe.length, sha256: byFfprobe.sort() });
  return { ...decoder, container_readers: readers };
}
