/**
 * The pair's sample loop, the audio side's counterpart of the frame loop (frame-loop.ts): reads both
 * sides' audio chunks and hands each chunk pair to the observers (each clip's audio analysis, the
 * bundle's audio head) and, while both sides still deliver full chunks, to the sink that measures the
 * pair's audio metrics (audio-sink.ts). A clip whose pair is not measured goes through with observers
 * only. The loop counts what each side delivered: the compatibility checks compare the counts.
 */
import type { AudioDecoder } from '../media/audio-decoder.js';
import type { AudioTimes } from '../metrics/clip-audio.js';
import type { AudioResult, AudioSink } from './audio-sink.js';
import { bothSides, blame } from './side-failure.js';

/**
 * A part that sees every chunk pair in order, before the sink (which may move the arrays to its
 * thread): what it keeps, it copies. Its result needs what the video side learned of the audio, so
 * the caller finishes it once both sides are in.
 */
export interface SampleObserver<R> {
  /** Both sides' next chunk (one array per channel; empty or null for a side that has ended). */
  addChunk(a: Float32Array[] | null, b: Float32Array[] | null): void;
  /** The observer's result; `end` is what the caller learned of the side(s) it observes. */
  finish(end: SampleLoopEnd): R;
}

/** What the caller knows of one side's audio once both passes are in (see SampleObserver.finish). */
export interface SampleLoopEnd extends AudioTimes {
  /** Audio frames the side's decoder flagged corrupt (null: this ffmpeg build does not log the flag). */
  corrupt: number | null;
}

/** The sample loop's options: one object. */
export interface SampleLoopOptions {
  /** Baseline's decoder, and the candidate's (null: one decoder stands for both sides). */
  decoders: [AudioDecoder, AudioDecoder | null];
  /** Every part that sees each chunk pair, in order. */
  observers: readonly (SampleObserver<unknown> | null)[];
  /** Where chunks are decoded into (the sink's recycled arrays), and where they go while both sides agree. */
  sink: AudioSink;
  /** Whether the pair's audio metrics are measured (else the sink only lends the arrays). */
  measure: boolean;
}

/** What each side's decoder delivered and flagged, and the pair's audio metrics (null: not measured, or the counts differ). */
export interface SampleLoopResult {
  result: AudioResult | null;
  delivered: [number, number];
  corrupt: [number | null, number | null];
}

/** One side's chunk: one array per channel, or null after its last. */
type Chunk = Float32Array[] | null;

/** Runs the loop to both sides' end. The sink is the caller's to close. */
export async function runSampleLoop(options: SampleLoopOptions): Promise<SampleLoopResult> {
  const { sink, measure } = options;
  const [a, b] = options.decoders;
  const observers = options.observers.filter((o): o is SampleObserver<unknown> => o !== null);
  const delivered: [number, number] = [0, 0];
  let same = true;
  for (;;) {
    const [ca, cb] = b ? await bothSides(blame('baseline', a.next(sink.planes)), blame('candidate', b.next(sink.planes))) : await blame('baseline', a.next(sink.planes)).then((c): [Chunk, Chunk] => [c, c]);
    const la = ca?.[0]?.length ?? 0;
    const lb = cb?.[0]?.length ?? 0;
    delivered[0] += la;
    delivered[1] += lb;
    if (la === 0 && lb === 0) break;
    // Chunks are full until a decoder's last one: a shorter chunk means that side has ended. The
    // other side is still counted to its end (the compatibility checks compare the counts).
    if (la !== lb) same = false;
    for (const o of observers) o.addChunk(ca, cb);
    if (same && measure) await sink.submit(ca!, cb!);
  }
  await bothSides(blame('baseline', a.finished()), b ? blame('candidate', b.finished()) : Promise.resolve());
  // One decoder for the same bytes on both sides: its count is both sides'.
  const corruptA = await blame('baseline', a.corruptFrames());
  const corrupt: [number | null, number | null] = [corruptA, b ? await blame('candidate', b.corruptFrames()) : corruptA];
  const result = same && measure ? await sink.drain() : null;
  return { result, delivered, corrupt };
}
