/**
 * The pair's frame loop: reads both sides' frames, in order, and hands each
 * frame pair to the *observers* (every one sees every frame, in frame order,
 * before the sink takes it: each clip's analysis, the temporal offset
 * search, the stills) and then to the one *frame sink* chosen for the pair
 * (inline, SSIM beside, helper threads: measures the frame, hands its
 * buffers back to the decoders, counts it done). The loop knows no observer
 * or sink by name, as libvmaf's frame loop knows no feature extractor: a new
 * per-frame part is a file of its own and one line where the caller lists it.
 *
 * A clip analysed on its own (analyse-clip.ts) goes through the same loop, one decoder standing
 * for both sides, with its observer and no sink. Frame counts are the loop's: a side that ends early, or both sides going
 * past the containers' count, is the pair's failure, named as before.
 */
import type { AudioFacts } from '../media/audio-facts.js';
import type { FrameSummary } from '../media/audio-facts.js';
import type { VideoDecoder, VideoLog } from '../media/video-decoder.js';
import type { DecodedFrame } from '../metrics/frame.js';
import type { FrameValues } from '../metrics/video.js';
import type { VideoMetrics } from '../schemas/measurement.js';
import type { MeasureProgress } from './api.js';
import { bothSides, blame, endedEarly, onBoth, SideFailure } from './side-failure.js';

/** Frames after which every video buffer and the metrics' memory are in use (the audio starts then). */
export const WARM_FRAMES = 8;

/** What the decoders said once they exited, and the pair's video metrics, for the observers' finish. */
export interface FrameLoopEnd {
  /** Per side, the decoded frames' timestamps. */
  times: [FrameSummary, FrameSummary];
  /** Per side, what the decoder's log said of the video. */
  logs: [VideoLog, VideoLog];
  /** The pair's video metrics (computed once, on the first call); null when no sink measured the frames. */
  video(): VideoMetrics | null;
}

/**
 * A part that sees every frame pair in frame order, before the sink takes it (the frame's buffers may
 * move to another thread right after addFrame, so what an observer keeps, it copies).
 */
export interface FrameObserver<R> {
  /** Frame `index` of both sides (the same frame twice when both sides hold the same bytes). */
  addFrame(index: number, a: DecodedFrame, b: DecodedFrame): void;
  /** Every filed part of a frame's values, in the order the accumulator files them (optional). */
  addValues?(index: number, values: FrameValues): void;
  /** Frame `index` once the sink measured it, before its buffers go back; `pending`: its value is still to come (optional). */
  atHand?(index: number, a: DecodedFrame, b: DecodedFrame, pending: boolean): void;
  /** The observer's result, once every frame was added; called in the order the observers are listed. */
  finish(end: FrameLoopEnd): R;
  /** Gives back what the observer holds (error paths too); safe after finish(). */
  close(): void;
}

/** What the sink tells the loop of a frame it took: the loop fans it out to the observers and the progress. */
export interface FrameSettle {
  /** The frame is measured and at hand (observers' atHand). */
  atHand(index: number, a: DecodedFrame, b: DecodedFrame, pending: boolean): void;
  /** Hands both frames' buffers back to their decoders (once each frame). */
  release(a: DecodedFrame, b: DecodedFrame): void;
  /** One more frame fully measured: the progress, and the audio's start once warm. */
  done(): void;
}

/** Where the loop sends each frame pair to be measured: one implementation per way of measuring, chosen once. */
export interface FrameSink {
  /** Takes frame `index` (its buffers are the sink's from now on); resolves, when it returns a promise, once another frame may come. */
  submit(index: number, a: DecodedFrame, b: DecodedFrame): Promise<void> | void;
  /** Resolves once every submitted frame is measured, settled and released. */
  drain(): Promise<void>;
  /** Stops whatever the sink started (threads); safe at any time, also on error paths. */
  close(): Promise<void>;
}

/** Both sides' video decoders; one decoder stands for both sides when they hold the same bytes. */
export interface PairDecoders {
  /** The same call on both sides' decoders, each failure blamed on its side; with one decoder, its answer is both sides'. */
  fromBoth<T>(call: (d: VideoDecoder) => Promise<T>): Promise<[T, T]>;
  /** Hands both frames' buffers back (one decoder: once). */
  release(a: DecodedFrame, b: DecodedFrame): void;
}

/** The decoders openVideoDecoders gave for a pair: two, or one for the same bytes on both sides. */
export function pairDecoders(decoders: readonly VideoDecoder[]): PairDecoders {
  const a = decoders[0]!;
  const b = decoders[1] ?? null;
  return {
    fromBoth: <T>(call: (d: VideoDecoder) => Promise<T>): Promise<[T, T]> =>
      b ? bothSides(blame('baseline', call(a)), blame('candidate', call(b))) : onBoth(call(a)).then((v): [T, T] => [v, v]),
    release(fa, fb) {
      a.release(fa);
      if (b) b.release(fb);
    },
  };
}

/** The observers' results, by the names they were listed under (null for a name listed as null). */
export type Observed<O> = { [K in keyof O]: ResultOf<O[K]> };
type ResultOf<T> = T extends FrameObserver<infer R> ? R : null;

/** The loop's options: one object, every part named by the caller. */
export interface FrameLoopOptions<O extends Record<string, FrameObserver<unknown> | null>> {
  decoders: PairDecoders;
  /** The frame count both containers list; null for a clip read to its end without a count to hold it to. */
  framesTotal: number | null;
  /** Every part that sees each frame, by name; null for one not wanted for this pair. */
  observers: O;
  /** The sink, made once the loop can tell it how frames settle; null: frames are observed only. */
  sink: ((settle: FrameSettle) => FrameSink) | null;
  /** The pair's video metrics once the sink drained (FrameLoopEnd.video). */
  measured: () => VideoMetrics | null;
  onProgress?: ((progress: MeasureProgress) => void) | undefined;
  /** Called once WARM_FRAMES frames are done (the caller also calls it when the loop ends, whatever happened). */
  onWarm: () => void;
}

/** What the loop hands back: each observer's result, each side's audio facts, and the video metrics. */
export interface FrameLoopResult<O> {
  observed: Observed<O>;
  audio: [AudioFacts | null, AudioFacts | null];
  video: VideoMetrics | null;
}

/**
 * Lists the observers' `addValues` as one hook for the accumulator (VideoMetricOptions.onValues), or
 * none when no observer follows the values.
 */
export function valuesHook(observers: Record<string, FrameObserver<unknown> | null>): ((index: number, values: FrameValues) => void) | undefined {
  const hooks = Object.values(observers).flatMap((o) => (o?.addValues ? [o.addValues.bind(o)] : []));
  if (hooks.length === 0) return undefined;
  return (index, values) => {
    for (const hook of hooks) hook(index, values);
  };
}

/**
 * Runs the loop to the last frame, drains the sink, and finishes the observers. Every observer and
 * the sink are closed when it settles, whatever happened.
 */
export async function runFrameLoop<O extends Record<string, FrameObserver<unknown> | null>>(options: FrameLoopOptions<O>): Promise<FrameLoopResult<O>> {
  const { decoders, framesTotal, onWarm } = options;
  const { onProgress } = options;
  // A clip read without a count reports no progress: there is no total to count towards.
  const progress = onProgress && framesTotal !== null ? (framesDone: number): void => onProgress({ framesDone, framesTotal }) : null;
  const observers = Object.values(options.observers).filter((o): o is FrameObserver<unknown> => o !== null);
  const atHand = observers.filter((o) => o.atHand);
  let sink: FrameSink | null = null;
  try {
    let framesRead = 0;
    let framesDone = 0;
    const settle: FrameSettle = {
      atHand(index, a, b, pending) {
        for (const o of atHand) o.atHand!(index, a, b, pending);
      },
      release: (a, b) => decoders.release(a, b),
      done() {
        framesDone++;
        if (framesDone === WARM_FRAMES) onWarm();
        progress?.(framesDone);
      },
    };
    sink = options.sink ? options.sink(settle) : null;
    progress?.(framesDone);
    for (;;) {
      const [fa, fb] = await decoders.fromBoth((d) => d.next());
      if (!fa || !fb) {
        if (fa || fb) throw endedEarly('frames', fa ? 'candidate' : 'baseline', framesRead, framesTotal ?? framesRead);
        break;
      }
      if (framesTotal !== null && framesRead === framesTotal) {
        throw new SideFailure('UNDECODABLE', `ffmpeg decoded more frames than the ${framesTotal} the containers list`, 'both');
      }
      const index = framesRead++;
      for (const o of observers) o.addFrame(index, fa, fb);
      if (sink) {
        // Awaited only when the sink waits (a helper's free slot): the inline sink costs no turn per frame.
        const wait = sink.submit(index, fa, fb);
        if (wait) await wait;
      } else {
        settle.release(fa, fb);
        settle.done();
      }
    }
    await sink?.drain();
    await decoders.fromBoth((d) => d.finished());
    if (framesTotal !== null && framesRead !== framesTotal) throw endedEarly('frames', 'both', framesRead, framesTotal);
    const audio = await decoders.fromBoth((d) => d.audioFacts());
    const times = await decoders.fromBoth((d) => d.frameTimes());
    const logs = await decoders.fromBoth((d) => d.videoLog());
    let video: { metrics: VideoMetrics | null } | null = null;
    const end: FrameLoopEnd = { times, logs, video: () => (video ??= { metrics: options.measured() }).metrics };
    const observed = Object.fromEntries(Object.entries(options.observers).map(([name, o]) => [name, o ? o.finish(end) : null])) as Observed<O>;
    return { observed, audio, video: end.video() };
  } finally {
    for (const o of observers) o.close();
    await sink?.close();
  }
}
