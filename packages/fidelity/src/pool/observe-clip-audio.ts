/**
 * The sample loop's observer of one side's clip audio analysis (metrics/clip-audio.ts): every chunk
 * that side delivered, before the chunk's arrays go to the sink (which may move them to its thread).
 */
import type { ClipAudioAccumulator } from '../metrics/clip-audio.js';
import type { ClipAudio } from '../schemas/clip.js';
import type { SampleObserver } from './sample-loop.js';

/** Feeds side `side` (0 baseline, 1 candidate) of every chunk pair to `clip`, skipping a side that has ended. */
export function observeClipAudio(clip: ClipAudioAccumulator, side: 0 | 1): SampleObserver<ClipAudio> {
  return {
    addChunk(a, b) {
      const chunk = side === 0 ? a : b;
      if ((chunk?.[0]?.length ?? 0) > 0) clip.push(chunk!);
    },
    finish: (end) => clip.finish(end, end.corrupt),
  };
}
