/**
 * The per-pair visual and audio aids of the bundle: the worst frame of each
 * side, a block-SSIM heat map of that frame, and the first seconds of the
 * audio difference. Only valid pairs get them (an invalid pair has nothing
 * comparable to show), and none of them is a metric: report.json is.
 *
 * They are kept small, because a bundle should weigh little more than its
 * MP4s: lossy WebP stills; one still and no difference pictures when every
 * video frame is bit-identical; one difference audio file per pair, in FLAC (lossless, a third to a seventh of a WAV).
 *
 * Made in two steps: the frames and audio heads they are drawn from (from what measuring kept, else
 * extracted from the files again: the same bytes), then the files' bytes. compare makes a pair's
 * bytes while later pairs are measured when measuring kept all they need (renderCapturedAssets).
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
import { blockSsim, heatmapPng } from './heatmap.js';
import { stillWebp } from './stills.js';
import { differenceSamples } from './audio-diff.js';
import { encodeFlac16 } from './flac.js';
import { worstFrameOf } from './video-series.js';
import { waveformPng } from './waveform.js';

/** One file of a pair's folder: its name there, the PairReport.files keys that name it, and its bytes. */
export interface PairFile {
  name: string;
  keys: readonly string[];
  bytes: Uint8Array | string;
}

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

/** What a pair's assets are drawn from: the worst frame (of the baseline only when the video is bit-identical) and the audio head, when there is a difference to hear. */
interface AssetNeeds {
  worst: number;
  size: { width: number; height: number };
  identical: boolean;
  audio: { channels: number; maxSamples: number } | null;
}

/** The frames and audio heads the assets are made from. */
interface AssetInputs {
  baseline: ExtractedFrame;
  /** Null when the video is bit-identical: one still stands for both. */
  candidate: ExtractedFrame | null;
  audio: { baseline: Float32Array[]; candidate: Float32Array[] } | null;
}

type PairFigures = Pick<PairReport, 'video' | 'audio'>;

function checkPrefix(prefix: string): void {
  const segments = prefix.split('/');
  const bad =
    prefix.length === 0 ||
    prefix.includes('\\') ||
    prefix.startsWith('/') ||
    segments.some((s) => s === '' || s === '.' || s === '..');
  if (bad) throw invalidParameter('prefix', "a relative folder with '/' separators and no '.' or '..' segments", prefix);
}

/** What the pair's assets need; null for a pair without video figures (it gets none). */
function needsOf(pair: PairFigures): AssetNeeds | null {
  const video = pair.video;
  if (video === null) return null;
  const audio = pair.audio;
  const channels = audio?.channels.length ?? 0;
  let audioNeed: AssetNeeds['audio'] = null;
  // Identical channels would give a file of silence: nothing to listen to, so none is written.
  if (audio && channels > 0 && !audio.identical) {
    const available = Math.min(...audio.channels.map((c) => c.samples));
    const maxSamples = Math.min(available, audio.sample_rate * AUDIO_DIFF_SECONDS);
    if (maxSamples > 0) audioNeed = { channels, maxSamples };
  }
  return { worst: worstFrameOf(video), size: { width: video.width, height: video.height }, identical: video.identical, audio: audioNeed };
}

/** The kept frame when it is the one the stills show, at the video's size; else null. */
function keptFrame(needs: AssetNeeds, capture: PairCapture | undefined): NonNullable<PairCapture['frame']> | null {
  const kept = capture?.frame;
  return kept && kept.index === needs.worst && kept.baseline.width === needs.size.width && kept.baseline.height === needs.size.height ? kept : null;
}

/** The captured audio cut to `maxSamples` per channel, or null when it has another channel count or fewer samples. */
function headOf(audio: PairCapture['audio'] | undefined, layout: { channels: number; maxSamples: number }): { baseline: Float32Array[]; candidate: Float32Array[] } | null {
  if (!audio) return null;
  const fits = (side: Float32Array[]): boolean => side.length === layout.channels && side.every((c) => c.length >= layout.maxSamples);
  if (!fits(audio.baseline) || !fits(audio.candidate)) return null;
  const cut = (side: Float32Array[]): Float32Array[] => side.map((c) => c.subarray(0, layout.maxSamples));
  return { baseline: cut(audio.baseline), candidate: cut(audio.candidate) };
}

/** The inputs from what measuring kept alone; null when it lacks any of them. */
function capturedInputs(needs: AssetNeeds, capture: PairCapture): AssetInputs | null {
  const frame = keptFrame(needs, capture);
  const audio = needs.audio ? headOf(capture.audio, needs.audio) : null;
  if (!frame || (needs.audio && !audio)) return null;
  return { baseline: stillOf(frame.baseline), candidate: needs.identical ? null : stillOf(frame.candidate), audio };
}

/**
 * The inputs from what measuring kept where it has them, else from one ffmpeg at a time within a
 * pair (its H.264 decoder already spreads over every core); the bundle writer runs several pairs at
 * once (bundle/write.ts inLanes), which overlaps one pair's decode with another's single-threaded
 * WebP, heat map and FLAC work.
 */
async function gatheredInputs(needs: AssetNeeds, input: Omit<PairAssetsInput, 'outDir' | 'prefix'>): Promise<AssetInputs> {
  const extract = {
    ...(input.ffmpeg ? { ffmpeg: input.ffmpeg } : {}),
    ...(input.timeoutMs ? { timeoutMs: input.timeoutMs } : {}),
    ...(input.signal ? { signal: input.signal } : {}),
  };
  const kept = keptFrame(needs, input.capture);
  const frameOf = (side: 'baseline' | 'candidate'): Promise<ExtractedFrame> =>
    kept ? Promise.resolve(stillOf(kept[side])) : extractFrame(side === 'baseline' ? input.baselinePath : input.candidatePath, needs.worst, needs.size, extract);
  const baseline = await frameOf('baseline');
  const candidate = needs.identical ? null : await frameOf('candidate');
  if (!needs.audio) return { baseline, candidate, audio: null };
  const head = headOf(input.capture?.audio, needs.audio);
  const audio = head ?? { baseline: await extractAudio(input.baselinePath, needs.audio, extract), candidate: await extractAudio(input.candidatePath, needs.audio, extract) };
  return { baseline, candidate, audio };
}

/** The assets' files, in PairReport.files order. */
async function renderAssets(pair: PairFigures, needs: AssetNeeds, inputs: AssetInputs): Promise<PairFile[]> {
  const files: PairFile[] = [];
  const { baseline, candidate } = inputs;
  if (candidate === null) {
    // Every frame is bit-identical: the candidate's still would repeat the baseline's byte for byte,
    // the difference picture would be black and the heat map flat. One still stands for both.
    files.push({ name: IDENTICAL_STILL_NAME, keys: [PAIR_FILE_KEYS.baselineWorst, PAIR_FILE_KEYS.candidateWorst], bytes: await stillWebp(baseline) });
  } else {
    const { width, height } = needs.size;
    const one = (key: keyof typeof PAIR_FILE_NAMES, bytes: Uint8Array): void => {
      files.push({ name: PAIR_FILE_NAMES[key], keys: [key], bytes });
    };
    one(PAIR_FILE_KEYS.baselineWorst, await stillWebp(baseline));
    one(PAIR_FILE_KEYS.candidateWorst, await stillWebp(candidate));
    one(PAIR_FILE_KEYS.absDiff, await stillWebp({ width, height, rgb: absDiffRgb(baseline.rgb, candidate.rgb) }));
    const map = blockSsim(baseline.y, candidate.y, width, height);
    if (map.cols > 0 && map.rows > 0) one(PAIR_FILE_KEYS.heatmap, await heatmapPng(map, width));
  }
  const audio = pair.audio;
  if (audio && inputs.audio) {
    // One FLAC per pair: the normalised difference when its gain applies (a true-level copy beside
    // it would be near-silence, and the page states the gain), else the true-level difference.
    const gain = audioNormalizationGain(audio);
    const diff = differenceSamples(inputs.audio.baseline, inputs.audio.candidate, gain ?? 1);
    if ((diff[0]?.length ?? 0) > 0) {
      const key = gain === null ? PAIR_FILE_KEYS.audioDiff : PAIR_FILE_KEYS.audioDiffNormalized;
      files.push({ name: PAIR_FILE_NAMES[key], keys: [key], bytes: encodeFlac16(diff, audio.sample_rate) });
      files.push({ name: PAIR_FILE_NAMES[PAIR_FILE_KEYS.audioWaveform], keys: [PAIR_FILE_KEYS.audioWaveform], bytes: await waveformPng(inputs.audio.baseline, inputs.audio.candidate, gain ?? 1) });
    }
  }
  return files;
}

/**
 * The pair's assets made from what measuring kept alone, without a decode (compare makes them while
 * later pairs are measured): the same bytes {@link makePairAssets} writes. Null when the pair has no
 * video figures, or when the capture lacks the worst frame or the audio head (they are extracted
 * with the bundle then).
 */
export function renderCapturedAssets(pair: PairFigures, capture: PairCapture): Promise<PairFile[]> | null {
  const needs = needsOf(pair);
  const inputs = needs ? capturedInputs(needs, capture) : null;
  return needs && inputs ? renderAssets(pair, needs, inputs) : null;
}

/**
 * Writes `files` into outDir/prefix and returns { key: bundle-relative path } in their order. Each
 * file is new ('wx') and synced before the seal names it; no files make no folder.
 */
export async function writePairFolder(outDir: string, prefix: string, files: readonly PairFile[]): Promise<Record<string, string>> {
  checkPrefix(prefix);
  if (files.length === 0) return {};
  const dir = path.join(outDir, ...prefix.split('/'));
  await mkdir(dir, { recursive: true });
  const named: Record<string, string> = {};
  for (const file of files) {
    await writeDurable(path.join(dir, file.name), file.bytes);
    for (const key of file.keys) named[key] = `${prefix}/${file.name}`;
  }
  return named;
}

/**
 * The pair's assets, in PairReport.files order (none for a pair without video figures). The frame
 * and the audio come from `capture` where it has them (compare: no second decode), else from the files.
 */
export async function pairAssetFiles(input: Omit<PairAssetsInput, 'outDir' | 'prefix'>): Promise<PairFile[]> {
  const needs = needsOf(input.pair);
  return needs === null ? [] : renderAssets(input.pair, needs, await gatheredInputs(needs, input));
}

/**
 * Writes the pair's assets under outDir/prefix and returns { key: bundle-relative path }
 * (keys from PAIR_FILE_KEYS; a key is absent when its asset does not apply).
 */
export async function makePairAssets(input: PairAssetsInput): Promise<Record<string, string>> {
  checkPrefix(input.prefix);
  return writePairFolder(input.outDir, input.prefix, await pairAssetFiles(input));
}
