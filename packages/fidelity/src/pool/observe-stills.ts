/**
 * The bundle's still capture (frame-capture.ts) as an observer of both loops: of the frame loop it
 * follows the values as the accumulator files them and sees each frame once it is measured (a frame
 * whose value is still out is copied aside); of the sample loop, the head of both sides' audio. What
 * it kept is read at the end of the pair (FrameCapture.finish), once the pair is known to be measured.
 */
import type { FrameCapture } from './frame-capture.js';
import type { FrameObserver } from './frame-loop.js';
import type { SampleObserver } from './sample-loop.js';

/** The capture's part in the frame loop: nothing before the sink, the values and the measured frames after. */
export function observeStills(capture: FrameCapture): FrameObserver<void> {
  return {
    addFrame() {},
    addValues: (index, values) => capture.onValues(index, values),
    atHand: (index, a, b, pending) => capture.frame(index, a, b, pending),
    finish() {},
    close() {},
  };
}

/** The capture's part in the sample loop: the first chunks of both sides, copied (the sink may move the arrays). */
export function observeAudioHead(capture: FrameCapture): SampleObserver<void> {
  return {
    addChunk: (a, b) => capture.audio(a ?? undefined, b ?? undefined),
    finish() {},
  };
}
