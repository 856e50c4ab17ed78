/**
 * The per-pair visual and audio aids of the bundle: the worst frame of each
 * side, a block-SSIM heat map of that frame, and the first seconds of the
 * audio difference. Only valid pairs get them (an invalid pair has nothing
 * comparable to show), and none of them is a metric: report.json is.
 *
 * They are kept small, because a bundle should weigh little more than its
 * MP4s: lossy WebP stills; one still and no difference pictures when every
 * video frame is bit-identical; one difference audio file per pair, in FLAC (lossless, a third to a seventh of a WAV).
 */
import { mkdir } from 'node:fs/promises';
import { writeDurable } from '../output/files.js';
import path from 'node:path';
import { invalidParameter } from '../errors.js';
import type { ResolveOptions } from '../media/ffmpeg.js';
import { extractAudio, extractFrame, stillOf } from '../media/frames.js';
import type { ExtractedFrame, PairCapture } from '../media/frames.js';
import type { PairReport } from '../schemas/report.js';
import { absDiffRgb, AUDIO_DIFF_SECONDS, audioNormalizationGain, IDENTICAL_STILL_NAME, PAIR_FILE_KEYS, PAIR_FILE_NAMES } from './assets-keys.js';
import { blockSsim, writeHeatmapPng } from './heatmap.js';
import { writeStillWebp } from './stills.js';
import { differenceSamples } from './audio-diff.js';
import { encodeFlac16 } from './flac.js';
import { worstFrameOf } from './video-series.js';
import { writeWaveformPng } from './waveform.js';

export interface PairAssetsInput {
  /** The pair's figures: only a measured pair has video figures (an invalid one has none, and gets no assets). */
  pair: Pick<PairReport, 'video' | 'audio'>;
  baselinePath: string;
  candidatePath: string;
  /**
   * What measuring kept of the pair (compare; pool/frame-capture.ts): a frame it holds is used when
   * it is the one the stills show, its audio head when it is long enough; anything else is extracted
   * from the files again (media/frames.ts), which gives the same bytes.
   */
  capture?: PairCapture;
  /** The bundle root being written. */
  outDir: string;
  /** Bundle-relative folder for this pair, e.g. 'pairs/0/measurement-r000-c001' (forward slashes). */
  prefix: string;
  ffmpeg?: ResolveOptions;
  /** Wall-clock limit of each ffmpeg child. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

function checkPrefix(prefix: string): void {
  const segments = prefix.split('/');
  const bad =
    prefix.length === 0 ||
    prefix.includes('\\') ||
    prefix.startsWith('/') ||
    segments.some((s) => s === '' || s === '.' || s === '..');
  if (bad) throw invalidParameter('prefix', "a relative folder with '/' separators and no '.' or '..' segments", prefix);
}

/**
 * Writes the pair's assets under outDir/prefix and returns { key: bundle-relative path }
 * (keys from PAIR_FILE_KEYS; a key is absent when its asset does not apply).
 * The frame and the audio come from `capture` where it has them (compare: no second decode), else
 * from one ffmpeg at a time within a pair (its H.264 decoder already spreads over every core); the
 * bundle writer runs several pairs at once (bundle/write.ts inLanes), which overlaps one pair's
 * decode with another's single-threaded WebP, heat map and FLAC work.
 */
export async function makePairAssets(input: PairAssetsInput): Promise<Record<string, string>> {
  const { pair, prefix } = input;
  checkPrefix(prefix);
  const files: Record<string, string> = {};
  const video = pair.video;
  if (video === null) return files;

  const dir = path.join(input.outDir, ...prefix.split('/'));
  await mkdir(dir, { recursive: true });
  const place = (key: keyof typeof PAIR_FILE_NAMES): string => {
    files[key] = `${prefix}/${PAIR_FILE_NAMES[key]}`;
    return path.join(dir, PAIR_FILE_NAMES[key]);
  };
  const extract = {
    ...(input.ffmpeg ? { ffmpeg: input.ffmpeg } : {}),
    ...(input.timeoutMs ? { timeoutMs: input.timeoutMs } : {}),
    ...(input.signal ? { signal: input.signal } : {}),
  };

  const worst = worstFrameOf(video);
  const size = { width: video.width, height: video.height };
  const kept = input.capture?.frame;
  const captured = kept && kept.index === worst && kept.baseline.width === size.width && kept.baseline.height === size.height ? kept : null;
  const frameOf = (side: 'baseline' | 'candidate'): Promise<ExtractedFrame> =>
    captured ? Promise.resolve(stillOf(captured[side])) : extractFrame(side === 'baseline' ? input.baselinePath : input.candidatePath, worst, size, extract);
  const base = await frameOf('baseline');
  if (video.identical) {
    // Every frame is bit-identical: the candidate's still would repeat the baseline's byte for byte,
    // the difference picture would be black and the heat map flat. One still stands for both.
    const rel = `${prefix}/${IDENTICAL_STILL_NAME}`;
    await writeStillWebp(base, path.join(dir, IDENTICAL_STILL_NAME));
    files[PAIR_FILE_KEYS.baselineWorst] = rel;
    files[PAIR_FILE_KEYS.candidateWorst] = rel;
  } else {
    const cand = await frameOf('candidate');
    await writeStillWebp(base, place(PAIR_FILE_KEYS.baselineWorst));
    await writeStillWebp(cand, place(PAIR_FILE_KEYS.candidateWorst));
    await writeStillWebp({ width: video.width, height: video.height, rgb: absDiffRgb(base.rgb, cand.rgb) }, place(PAIR_FILE_KEYS.absDiff));
    const map = blockSsim(base.y, cand.y, video.width, video.height);
    if (map.cols > 0 && map.rows > 0) await writeHeatmapPng(map, video.width, place(PAIR_FILE_KEYS.heatmap));
  }

  const audio = pair.audio;
  const channels = audio?.channels.length ?? 0;
  // Identical channels would give a file of silence: nothing to listen to, so none is written.
  if (audio && channels > 0 && !audio.identical) {
    const available = Math.min(...audio.channels.map((c) => c.samples));
    const maxSamples = Math.min(available, audio.sample_rate * AUDIO_DIFF_SECONDS);
    if (maxSamples > 0) {
      const layout = { channels, maxSamples };
      const head = headOf(input.capture?.audio ?? null, layout);
      const baseAudio = head?.baseline ?? (await extractAudio(input.baselinePath, layout, extract));
      const candAudio = head?.candidate ?? (await extractAudio(input.candidatePath, layout, extract));
      // One FLAC per pair: the normalised difference when its gain applies (a true-level copy beside
      // it would be near-silence, and the page states the gain), else the true-level difference.
      const gain = audioNormalizationGain(audio);
      const diff = differenceSamples(baseAudio, candAudio, gain ?? 1);
      if ((diff[0]?.length ?? 0) > 0) {
        await writeDurable(place(gain === null ? PAIR_FILE_KEYS.audioDiff : PAIR_FILE_KEYS.audioDiffNormalized), encodeFlac16(diff, audio.sample_rate));
        await writeWaveformPng(baseAudio, candAudio, gain ?? 1, place(PAIR_FILE_KEYS.audioWaveform));
      }
    }
  }
  return files;
}

/** The captured audio cut to `maxSamples` per channel, or null when it has another channel count or fewer samples. */
function headOf(audio: PairCapture['audio'], layout: { channels: number; maxSamples: number }): { baseline: Float32Array[]; candidate: Float32Array[] } | null {
  if (!audio) return null;
  const fits = (side: Float32Array[]): boolean => side.length === layout.channels && side.every((c) => c.length >= layout.maxSamples);
  if (!fits(audio.baseline) || !fits(audio.candidate)) return null;
  const cut = (side: Float32Array[]): Float32Array[] => side.map((c) => c.subarray(0, layout.maxSamples));
  return { baseline: cut(audio.baseline), candidate: cut(audio.candidate) };
}
