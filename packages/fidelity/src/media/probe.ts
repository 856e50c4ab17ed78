/**
 * What a file holds, learned before any frame is decoded, from ONE ffprobe
 * run (streams, format and the packet list, as JSON: demuxing only, so it is
 * cheap and exact): every stream's kind, the first video stream's geometry,
 * pixel format, display matrix, time base and every frame timestamp, the
 * first audio stream's layout, and (MP4 / MOV) both tracks' edit lists.
 *
 * The audio's exact sample count and start are the decoder's, so they are
 * taken from the decode itself (audio-facts.ts, an output of the video
 * decoder's process) and filled in before the last compatibility checks
 * (compat.ts): the checks before them run on this probe alone, before any
 * frame is decoded.
 */
import { z } from 'zod';
import { FidelityError } from '../errors.js';
import type { ProcessScope } from './process.js';
import { runToString } from './process.js';
import { planeGeometry } from './pixel-formats.js';
import { hidesHead, hidesTail, readEditLists } from './edit-list.js';
import { readMp4 } from './mp4-reader.js';
import type { TrackEdits } from './edit-list.js';
import type { PlaneGeometry } from './pixel-formats.js';
import { keepProbe, keptProbe } from './probe-cache.js';

export interface Rational {
  num: number;
  den: number;
}

export interface VideoProbe {
  /** Absolute stream index, for `-map 0:<index>`. */
  index: number;
  codec: string;
  width: number;
  height: number;
  pixFmt: string;
  /** null when the pixel format is not one of the 8-bit planar YUV formats we read as they are. */
  geometry: PlaneGeometry | null;
  timeBase: Rational;
  /** Presentation timestamps in time-base ticks, ascending; one per frame the decoder will output. */
  pts: number[];
  frames: number;
  /**
   * The display matrix a player applies (rotation, flip), as its nine
   * integers in ffprobe's order; null when the stream has none (identity).
   */
  displayMatrix: number[] | null;
  /** ffprobe's rotation of that matrix in degrees, for messages; null without a matrix. */
  rotation: number | null;
  /** Sample (pixel) aspect ratio a player scales by; 1:1 when the file gives none. */
  sampleAspect: Rational;
  /** The track's edit list (MP4 / MOV); null for other containers. */
  editList: TrackEdits | null;
}

export interface AudioProbe {
  index: number;
  codec: string;
  sampleRate: number;
  channels: number;
  channelLayout: string | null;
  /**
   * Samples per channel, counted by decoding (container durations do not account for encoder
   * priming); null until the decode has counted them (audio-facts.ts).
   */
  samples: number | null;
  timeBase: Rational;
  /**
   * The first decoded audio frame's timestamp (after the edit list and the encoder priming the
   * decoder skips), in `startTimeBase` ticks (`timeBase` when absent); null when the decoder gives
   * none, and until the decode has run.
   */
  startPts: number | null;
  /** The time base of `startPts` when it is not the stream's (the decoder's clock: 1 / sample rate). */
  startTimeBase?: Rational;
  /** The track's edit list (MP4 / MOV); null for other containers. */
  editList: TrackEdits | null;
  /**
   * For PCM in MOV, whose index counts samples: that count (the decode must reach it, or the file
   * is truncated: checkDecodedAudio); null or absent otherwise.
   */
  listedPcmSamples?: number | null;
  /**
   * The longest the container says the stream lasts, in seconds, before any decode: the most of the
   * stream's duration, its packets' span (first timestamp to the last one's end), its packets'
   * durations summed and, for PCM in MOV, its listed sample count over the rate; null when it says
   * none of these. Held against the plan's duration before decoding (plan-conformance.ts).
   */
  listedSeconds?: number | null;
}

/** One stream of the file, whatever its kind: the pair is measured only when these agree (compat.ts). */
export interface StreamSummary {
  index: number;
  /** ffprobe's codec_type: video, audio, subtitle, data, attachment, or unknown. */
  type: string;
  codec: string;
  /** A still image attached as a video stream (cover art). */
  coverArt: boolean;
}

export interface MediaProbe {
  file: string;
  sizeBytes: number;
  formatName: string;
  /** Every stream, in file order. */
  streams: StreamSummary[];
  video: VideoProbe | null;
  audio: AudioProbe | null;
  /** What read the container: the library's own MP4 reader (mp4-reader.ts) or ffprobe. */
  containerReader: ContainerReader;
}

/** What read a file's container: `mp4` is the library's own MP4 / QuickTime reader, `ffprobe` the resolved ffprobe. */
export type ContainerReader = 'mp4' | 'ffprobe';

export interface ProbeTools {
  ffmpeg: string;
  ffprobe: string;
  timeoutMs: number;
  /** ffmpeg's `-version` line: which log lines it writes (decoder-log.ts); absent: the corrupt-frame count is not read. */
  ffmpegVersion?: string;
  /** `ffprobe` probes every file with ffprobe, MP4s too (the parity tests); default: the library's MP4 reader first. */
  containerReader?: ContainerReader;
}

const FfprobeStream = z.object({
  index: z.number().int(),
  codec_type: z.string().optional(),
  codec_name: z.string().optional(),
  width: z.number().int().optional(),
  height: z.number().int().optional(),
  pix_fmt: z.string().optional(),
  time_base: z.string().optional(),
  sample_rate: z.string().optional(),
  channels: z.number().int().optional(),
  channel_layout: z.string().optional(),
  /** From the container's index (MP4: the sample table), when it has one. */
  nb_frames: z.string().optional(),
  /** The stream's duration in seconds, as the container states it ("N/A" or absent when it does not). */
  duration: z.string().optional(),
  sample_aspect_ratio: z.string().optional(),
  disposition: z.record(z.string(), z.number()).optional(),
  /** The container's track id ("0x1" for MP4 / MOV): the key to the edit lists. */
  id: z.string().optional(),
  // Loose on purpose: side data of kinds we do not read varies by ffprobe version and must not fail the probe.
  side_data_list: z.array(z.record(z.string(), z.unknown())).optional(),
});

/** One packet as ffprobe prints it (`-show_entries packet=stream_index,pts,flags`); side data of kinds we do not read is ignored. */
const FfprobePacket = z.object({
  stream_index: z.number().int(),
  /** A packet without a timestamp: absent, or "N/A" (older ffprobe builds print that). */
  pts: z.union([z.number().int(), z.string()]).optional(),
  /** In the stream's time base; absent or "N/A" when unknown. */
  duration: z.union([z.number().int(), z.string()]).optional(),
  flags: z.string().optional(),
});

const FfprobeOutput = z.object({
  packets: z.array(z.unknown()).default([]),
  streams: z.array(FfprobeStream).default([]),
  format: z.object({ size: z.string().optional(), format_name: z.string().optional() }).optional(),
});

/** The time a stream's packets cover, in its time-base ticks: their span (first start to last end) and their durations summed. */
interface PacketTime {
  first: number;
  end: number;
  sum: number;
}

interface PacketTable {
  /** Packets per stream index, discarded ones included. */
  counts: Map<number, number>;
  /** Per stream index: the time its packets with a timestamp cover. */
  times: Map<number, PacketTime>;
  /** pts of one stream's packets that are shown (not flagged D), in file order; null where a packet has none. */
  shown(streamIndex: number): (number | null)[];
}

/**
 * The packet list, kept as three flat arrays: a long clip has tens of
 * thousands of packets, and their parsed objects are dropped at once (only
 * the probe holds them, for the duration of this call).
 */
function parsePackets(packets: readonly unknown[], label: string): PacketTable {
  const counts = new Map<number, number>();
  const times = new Map<number, PacketTime>();
  const streams = new Int32Array(packets.length);
  const pts: (number | null)[] = new Array<number | null>(packets.length);
  const discarded = new Uint8Array(packets.length);
  packets.forEach((raw, i) => {
    const parsed = FfprobePacket.safeParse(raw);
    if (!parsed.success) throw undecodable(label, `ffprobe printed a packet that cannot be read: ${JSON.stringify(raw)}`);
    const p = parsed.data;
    counts.set(p.stream_index, (counts.get(p.stream_index) ?? 0) + 1);
    streams[i] = p.stream_index;
    pts[i] = typeof p.pts === 'number' ? p.pts : null;
    discarded[i] = (p.flags ?? '').includes('D') ? 1 : 0;
    const duration = typeof p.duration === 'number' && p.duration > 0 ? p.duration : 0;
    if (typeof p.pts === 'number') {
      const t = times.get(p.stream_index);
      if (!t) times.set(p.stream_index, { first: p.pts, end: p.pts + duration, sum: duration });
      else {
        t.first = Math.min(t.first, p.pts);
        t.end = Math.max(t.end, p.pts + duration);
        t.sum += duration;
      }
    }
  });
  return {
    counts,
    times,
    shown: (streamIndex) => {
      const out: (number | null)[] = [];
      for (let i = 0; i < streams.length; i++) if (streams[i] === streamIndex && !discarded[i]) out.push(pts[i]!);
      return out;
    },
  };
}

function parseRational(text: string | undefined): Rational | null {
  const match = /^(\d+)\/(\d+)$/.exec(text ?? '');
  if (!match) return null;
  const num = Number(match[1]);
  const den = Number(match[2]);
  return num > 0 && den > 0 ? { num, den } : null;
}

/** "16:9"-style ratio; null when absent or zero. */
function parseRatio(text: string | undefined): Rational | null {
  const match = /^(\d+):(\d+)$/.exec(text ?? '');
  const [num, den] = [Number(match?.[1]), Number(match?.[2])];
  return match && num > 0 && den > 0 ? { num, den } : null;
}

/**
 * ffprobe prints a display matrix as three lines "0000000i:  a  b  c"; the
 * row number before the colon is not part of it.
 */
function parseDisplayMatrix(text: string): number[] | null {
  const values = text
    .split('\n')
    .map((line) => line.replace(/^\s*[0-9a-fA-F]+:/, ''))
    .flatMap((line) => line.trim().split(/\s+/))
    .filter((x) => x.length > 0)
    .map(Number);
  return values.length === 9 && values.every(Number.isInteger) ? values : null;
}

/** The identity in the matrix's fixed point (16.16, and 2.30 for the last column): a player changes nothing. */
const IDENTITY_MATRIX = [65536, 0, 0, 0, 65536, 0, 0, 0, 1 << 30];

function displayMatrixOf(stream: z.infer<typeof FfprobeStream>, label: string): { matrix: number[] | null; rotation: number | null } {
  const entry = stream.side_data_list?.find((d) => d['side_data_type'] === 'Display Matrix');
  const text = entry?.['displaymatrix'];
  if (typeof text !== 'string') return { matrix: null, rotation: null };
  const matrix = parseDisplayMatrix(text);
  if (!matrix) throw undecodable(label, `ffprobe printed a display matrix that cannot be read: ${JSON.stringify(text)}`);
  if (matrix.every((v, i) => v === IDENTITY_MATRIX[i])) return { matrix: null, rotation: null };
  const rotation = Number(entry?.['rotation']);
  return { matrix, rotation: Number.isFinite(rotation) ? rotation : null };
}

/** MP4 / MOV track id from ffprobe's stream id ("0x1"); null for other containers. */
function trackIdOf(stream: z.infer<typeof FfprobeStream>): number | null {
  const match = /^0x([0-9a-f]+)$/i.exec(stream.id ?? '');
  return match ? Number.parseInt(match[1]!, 16) : null;
}

function undecodable(file: string, why: string): FidelityError {
  return new FidelityError('UNDECODABLE', `${file}: ${why}`);
}

/** {@link AudioProbe.listedSeconds}: the longest of what the stream, its packets and a PCM index say. */
function listedSecondsOf(stream: z.infer<typeof FfprobeStream>, packets: PacketTime | undefined, timeBase: Rational, pcmSeconds: number | null): number | null {
  const tick = timeBase.num / timeBase.den;
  const stated = Number(stream.duration);
  const all = [Number.isFinite(stated) ? stated : null, packets ? (packets.end - packets.first) * tick : null, packets ? packets.sum * tick : null, pcmSeconds];
  const known = all.filter((x): x is number => x !== null && Number.isFinite(x) && x >= 0);
  return known.length > 0 ? Math.max(...known) : null;
}

/** The input options every decode of the file uses, so probe and decode see the same stream. */
export const INPUT_OPTIONS = ['-nostdin', '-hide_banner', '-v', 'error', '-noautorotate'] as const;

/**
 * A PCM-in-MOV stream whose decode ended before its index's sample count is a
 * truncated file (UNDECODABLE), checked once the decode has counted.
 */
export function checkDecodedAudio(audio: AudioProbe, samples: number, label: string): void {
  if (typeof audio.listedPcmSamples === 'number' && samples < audio.listedPcmSamples) {
    throw undecodable(label, `the file is truncated: its index lists ${audio.listedPcmSamples} audio samples but only ${samples} can be decoded`);
  }
}

/**
 * Probes one file: an MP4 / QuickTime file the library's own reader vouches
 * for (mp4-reader.ts) is read in the process, any other with one ffprobe run;
 * both give the same probe. Errors are FidelityErrors with the pair failure codes:
 * UNDECODABLE (ffprobe refuses the file), NO_VIDEO_STREAM, DECODE_TIMEOUT, ABORTED.
 * `label` names the side in messages ("baseline"). With `sha256`, the file's sealed SHA-256
 * (checked against its bytes), a probe this process already made of the same bytes with the
 * same ffprobe is handed out instead of a new run, and a new one is kept (probe-cache.ts).
 */
export async function probeMedia(scope: ProcessScope, tools: ProbeTools, file: string, label: string, sha256?: string): Promise<MediaProbe> {
  const kept = sha256 === undefined ? undefined : keptProbe<MediaProbe>(tools.ffprobe, sha256, file);
  if (kept) return kept;
  const probe = await probeOnce(scope, tools, file, label);
  if (sha256 !== undefined) keepProbe(tools.ffprobe, sha256, probe);
  return probe;
}

async function probeOnce(scope: ProcessScope, tools: ProbeTools, file: string, label: string): Promise<MediaProbe> {
  scope.throwIfAborted();
  const own = tools.containerReader === 'ffprobe' ? null : await readMp4(file);
  if (own?.ok) {
    const { streams, format, packets, editLists } = own.facts;
    const table: PacketTable = {
      counts: new Map([...packets].map(([index, p]) => [index, p.count])),
      // The packets are contiguous in an MP4's index: their span is their durations' sum.
      times: new Map([...packets].map(([index, p]) => [index, { first: 0, end: p.duration, sum: p.duration }])),
      shown: (index) => [...(packets.get(index)?.shownPts ?? [])],
    };
    return probeFrom({ streams, format, packets: table, editLists, reader: 'mp4' }, file, label);
  }
  return probeFrom({ ...(await runFfprobe(scope, tools, file, label)), editLists: undefined, reader: 'ffprobe' }, file, label);
}

/** What a container reader gives: ffprobe's streams and format, the packet table, and the edit lists when the reader read them. */
interface ContainerFacts {
  streams: z.infer<typeof FfprobeStream>[];
  format: { size?: string; format_name?: string } | undefined;
  packets: PacketTable;
  /** undefined: read from the moov box here (MP4 / MOV only). */
  editLists: Map<number, TrackEdits> | undefined;
  reader: ContainerReader;
}

async function runFfprobe(scope: ProcessScope, tools: ProbeTools, file: string, label: string): Promise<Omit<ContainerFacts, 'editLists' | 'reader'>> {
  const json = await runToString(
    scope,
    tools.ffprobe,
    ['-hide_banner', '-v', 'error', '-show_streams', '-show_format', '-show_entries', 'packet=stream_index,pts,duration,flags', '-of', 'json=c=1', file],
    { label: `ffprobe (${label})`, timeoutMs: tools.timeoutMs },
  );
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (cause) {
    throw new FidelityError('UNDECODABLE', `${label}: ffprobe printed something that is not JSON`, { cause });
  }
  const parsed = FfprobeOutput.safeParse(raw);
  if (!parsed.success) throw undecodable(label, `unexpected ffprobe output (${parsed.error.issues[0]?.message ?? 'invalid'})`);
  const { streams, format } = parsed.data;
  return { streams, format, packets: parsePackets(parsed.data.packets, label) };
}

async function probeFrom(facts: ContainerFacts, file: string, label: string): Promise<MediaProbe> {
  const { streams, format, packets } = facts;
  // Cover art is a video stream too; it is never the clip (compat.ts still counts it as a stream).
  const videoStream = streams.find((s) => s.codec_type === 'video' && s.disposition?.attached_pic !== 1);
  const audioStream = streams.find((s) => s.codec_type === 'audio');
  if (!videoStream) throw new FidelityError('NO_VIDEO_STREAM', `${label}: ${file} has no video stream`);
  const summaries: StreamSummary[] = streams.map((s) => ({
    index: s.index,
    type: s.codec_type ?? 'unknown',
    codec: s.codec_name ?? 'unknown',
    coverArt: s.disposition?.attached_pic === 1,
  }));
  const formatName = format?.format_name ?? 'unknown';
  // Edit lists live in the moov box of MP4 / MOV ("mov,mp4,m4a,3gp,3g2,mj2"); other containers have none to read.
  const tracks = facts.editLists ?? (formatName.split(',').includes('mov') ? await readEditLists(file, label) : null);
  const editListOf = (s: z.infer<typeof FfprobeStream>): TrackEdits | null => {
    const id = trackIdOf(s);
    return tracks && id !== null ? (tracks.get(id) ?? null) : null;
  };

  // A file cut short keeps an index that promises more packets than its data holds.
  // PCM in MOV is the exception: its index (nb_frames) counts samples, checked against the decoded count below.
  // An edit list that trims the tail drops packets on purpose (compared in compat.ts, not a truncation).
  const isPcm = (s: z.infer<typeof FfprobeStream>): boolean => s.codec_type === 'audio' && (s.codec_name ?? '').startsWith('pcm_');
  for (const stream of [videoStream, audioStream]) {
    const listed = Number(stream?.nb_frames);
    if (!stream || isPcm(stream) || hidesTail(editListOf(stream)) || !Number.isInteger(listed) || listed <= 0) continue;
    const present = packets.counts.get(stream.index) ?? 0;
    if (present < listed) {
      throw undecodable(label, `the file is truncated: its index lists ${listed} ${stream.codec_type} packets but only ${present} can be read`);
    }
  }

  let video: VideoProbe;
  {
    const { width, height, pix_fmt: pixFmt } = videoStream;
    const timeBase = parseRational(videoStream.time_base);
    if (!width || !height || !pixFmt || !timeBase) throw undecodable(label, 'the video stream has no size, pixel format or time base');
    // Edit lists mark packets (D) that the decoder decodes but never outputs: they are not frames.
    const shown = packets.shown(videoStream.index);
    if (shown.some((t) => t === null)) throw undecodable(label, 'a video packet has no presentation timestamp');
    const pts = (shown as number[]).sort((a, b) => a - b);
    if (pts.length === 0) throw undecodable(label, 'the video stream has no frames');
    const { matrix, rotation } = displayMatrixOf(videoStream, label);
    video = {
      index: videoStream.index,
      codec: videoStream.codec_name ?? 'unknown',
      width,
      height,
      pixFmt,
      geometry: planeGeometry(pixFmt, width, height),
      timeBase,
      pts,
      frames: pts.length,
      displayMatrix: matrix,
      rotation,
      // "0:1" and "N/A" mean unknown, which players show as square pixels.
      sampleAspect: parseRatio(videoStream.sample_aspect_ratio) ?? { num: 1, den: 1 },
      editList: editListOf(videoStream),
    };
  }

  let audio: AudioProbe | null = null;
  if (audioStream) {
    const sampleRate = Number(audioStream.sample_rate);
    const channels = audioStream.channels ?? 0;
    const timeBase = parseRational(audioStream.time_base);
    if (!Number.isInteger(sampleRate) || sampleRate <= 0 || channels <= 0 || !timeBase) {
      throw undecodable(label, 'the audio stream has no sample rate, channel count or time base');
    }
    const listed = Number(audioStream.nb_frames);
    const trimmed = hidesHead(editListOf(audioStream)) || hidesTail(editListOf(audioStream));
    audio = {
      index: audioStream.index,
      codec: audioStream.codec_name ?? 'unknown',
      sampleRate,
      channels,
      channelLayout: audioStream.channel_layout ?? null,
      samples: null,
      timeBase,
      startPts: null,
      editList: editListOf(audioStream),
      listedPcmSamples: isPcm(audioStream) && !trimmed && Number.isInteger(listed) ? listed : null,
      listedSeconds: listedSecondsOf(audioStream, packets.times.get(audioStream.index), timeBase, isPcm(audioStream) && Number.isInteger(listed) ? listed / sampleRate : null),
    };
  }

  return { file, sizeBytes: Number(format?.size ?? 0), formatName, streams: summaries, video, audio, containerReader: facts.reader };
}
