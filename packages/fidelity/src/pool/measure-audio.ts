/**
 * The audio side of a pair's measurement: once the video is warm, opens the one ffmpeg process that
 * decodes both files' audio and runs the sample loop (sample-loop.ts) with the clips' observers and,
 * when the set measures audio, the pair's audio metrics as its sink.
 */
import { openAudioDecoders } from '../media/audio-decoder.js';
import type { AudioProbe, ProbeTools } from '../media/probe.js';
import type { ProcessScope } from '../media/process.js';
import type { AudioChannelSums } from '../metrics/audio-channel.js';
import type { AudioMetrics } from '../schemas/measurement.js';
import { openAudioSink } from './audio-sink.js';
import { runSampleLoop } from './sample-loop.js';
import type { SampleObserver } from './sample-loop.js';
import { blame } from './side-failure.js';

/** What the audio side of a pair is asked to do. */
export interface AudioPassOptions {
  scope: ProcessScope;
  tools: ProbeTools;
  files: [string, string];
  streams: [AudioProbe, AudioProbe];
  /** Whether the pair's audio metrics run in a helper thread. */
  useThread: boolean;
  /** Resolves once the video is warm (the peak memory is then the same for a short clip as for a long one). */
  start: Promise<void>;
  /** Every part that sees each chunk pair; the candidate's clip is null when it is not analysed here. */
  observers: { baseline: SampleObserver<unknown> | null; candidate: SampleObserver<unknown> | null; others: readonly (SampleObserver<unknown> | null)[] };
  /** Whether the set measures the pair's audio metrics. */
  pairMetrics: boolean;
}

/** The audio metrics (null when the two sides delivered different sample counts), and what each side's decoder delivered. */
export interface AudioOutcome {
  metrics: AudioMetrics | null;
  /** Per channel, the sums InferenceX's figures are made from (null with `metrics`). */
  sums: AudioChannelSums[] | null;
  delivered: [number, number];
  /** Audio frames each side's decoder flagged corrupt (null: this ffmpeg build does not log the flag). */
  corrupt: [number | null, number | null];
}

/** Decodes both sides' audio and measures it through the sample loop. */
export async function measureAudio(options: AudioPassOptions): Promise<AudioOutcome> {
  const { streams, files, pairMetrics, observers } = options;
  await options.start;
  // Without pair metrics the audio is decoded for the clip analysis alone: a candidate not analysed
  // here (the same bytes as the baseline, or analysed by another pair) needs no samples, the
  // baseline's count being checked for both.
  const single = !pairMetrics && observers.candidate === null;
  // One ffmpeg process decodes both files' audio (media/audio-decoder.ts).
  const decoders = await blame(
    'both',
    openAudioDecoders(options.scope, options.tools, [
      { file: files[0], label: 'baseline', audio: streams[0] },
      ...(single ? [] : [{ file: files[1], label: 'candidate', audio: streams[1] }]),
    ]),
  );
  const sink = openAudioSink(streams[0].sampleRate, streams[0].channels, options.useThread && pairMetrics);
  try {
    const loop = await runSampleLoop({
      decoders: [decoders[0]!, decoders[1] ?? null],
      observers: [observers.baseline, observers.candidate, ...observers.others],
      sink,
      measure: pairMetrics,
    });
    return { metrics: loop.result?.metrics ?? null, sums: loop.result?.sums ?? null, delivered: loop.delivered, corrupt: loop.corrupt };
  } finally {
    await sink.close();
  }
}
