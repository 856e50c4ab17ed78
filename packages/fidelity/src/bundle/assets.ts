/**
 * The per-pair visual and audio aids of the bundle: the worst frame of each
 * side, a block-SSIM heat map of that frame, and the first seconds of the
 * audio difference. Only valid pairs get them (an invalid pair has nothing
 * comparable to show), and none of them is a metric: report.json is.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { invalidParameter } from '../errors.js';
import type { ResolveOptions } from '../media/ffmpeg.js';
import { extractAudio, extractFrame } from '../media/frames.js';
import type { PairReport } from '../schemas/report.js';
import { absDiffRgb, AUDIO_DIFF_SECONDS, audioNormalizationGain, PAIR_FILE_KEYS, PAIR_FILE_NAMES } from './assets-keys.js';
import { blockSsim, writeHeatmapPng } from './heatmap.js';
import { writeStillPng } from './stills.js';
import { differenceSamples, encodeWav16 } from './wav.js';
import { worstFrameOf } from './video-series.js';
import { writeWaveformPng } from './waveform.js';

export interface PairAssetsInput {
  pair: PairReport;
  baselinePath: string;
  candidatePath: string;
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
 * One ffmpeg at a time: its H.264 decoder already spreads over every core.
 */
export async function makePairAssets(input: PairAssetsInput): Promise<Record<string, string>> {
  const { pair, prefix } = input;
  checkPrefix(prefix);
  const files: Record<string, string> = {};
  const video = pair.video;
  if (pair.status === 'invalid' || video === null) return files;

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
  const base = await extractFrame(input.baselinePath, worst, size, extract);
  const cand = await extractFrame(input.candidatePath, worst, size, extract);
  await writeStillPng(base, place(PAIR_FILE_KEYS.baselineWorst));
  await writeStillPng(cand, place(PAIR_FILE_KEYS.candidateWorst));
  await writeStillPng({ width: video.width, height: video.height, rgb: absDiffRgb(base.rgb, cand.rgb) }, place(PAIR_FILE_KEYS.absDiff));
  const map = blockSsim(base.y, cand.y, video.width, video.height);
  if (map.cols > 0 && map.rows > 0) await writeHeatmapPng(map, video.width, place(PAIR_FILE_KEYS.heatmap));

  const audio = pair.audio;
  const channels = audio?.channels.length ?? 0;
  // Identical channels would give a file of silence: nothing to listen to, so none is written.
  if (audio && channels > 0 && !audio.identical) {
    const available = Math.min(...audio.channels.map((c) => c.samples));
    const maxSamples = Math.min(available, audio.sample_rate * AUDIO_DIFF_SECONDS);
    if (maxSamples > 0) {
      const layout = { channels, maxSamples };
      const baseAudio = await extractAudio(input.baselinePath, layout, extract);
      const candAudio = await extractAudio(input.candidatePath, layout, extract);
      const diff = differenceSamples(baseAudio, candAudio);
      if ((diff[0]?.length ?? 0) > 0) {
        await writeFile(place(PAIR_FILE_KEYS.audioDiff), encodeWav16(diff, audio.sample_rate));
        const gain = audioNormalizationGain(audio);
        if (gain !== null) await writeFile(place(PAIR_FILE_KEYS.audioDiffNormalized), encodeWav16(differenceSamples(baseAudio, candAudio, gain), audio.sample_rate));
        await writeWaveformPng(baseAudio, candAudio, gain ?? 1, place(PAIR_FILE_KEYS.audioWaveform));
      }
    }
  }
  return files;
}
