/**
 * The library's own MP4 / QuickTime reader: what ffprobe 5.1 would print of
 * a file's streams and packets (the fields probe.ts reads), from the moov
 * box, in the process. It answers only for the files it can vouch for:
 * unfragmented ISO BMFF with H.264 (avc1), HEVC (hvc1 / hev1) and AAC-LC
 * (mp4a) tracks, at most one non-empty edit per track at normal rate, an
 * optional iTunes cover picture. Anything else (another container, moof or
 * mvex, several edits, an unknown codec or box, tables that disagree, a
 * sample past the file's end) is "not mine", with the reason, and the file
 * is probed by ffprobe as before.
 *
 * Bounded: the top-level walk reads box headers only; moov is read whole
 * only up to MAX_MOOV_BYTES; boxes nest at most MAX_BOX_DEPTH deep; every
 * table's entry count must fit its box, so no allocation exceeds a small
 * multiple of the moov size; every loop runs over those entries.
 */
import { open } from 'node:fs/promises';
import { BoxError, boxes, checkNesting, child, children, descend, readPayload, topLevelBoxes } from './mp4-boxes.js';
import type { Box } from './mp4-boxes.js';
import { aacAudio, avcPicture, hevcPicture } from './mp4-codec-config.js';
import type { ContainerColour, PictureFacts } from './mp4-codec-config.js';
import { editList, editListsOf, timescaleAndDuration } from './edit-list.js';
import type { TrackEdits } from './edit-list.js';
import { trackPackets } from './mp4-index.js';
import type { SampleTable, SingleEdit, TrackPackets } from './mp4-index.js';

/** The largest moov box read; larger ones are left to ffprobe. */
export const MAX_MOOV_BYTES = 64 * 1024 * 1024;
/** The most samples one track may list (about 37 hours at 30 fps); more is left to ffprobe. */
export const MAX_TRACK_SAMPLES = 4_000_000;

/** One stream as ffprobe's JSON prints it (`-show_streams`), the fields probe.ts reads. */
export interface ProbedStream {
  index: number;
  codec_type: string;
  codec_name: string;
  width?: number;
  height?: number;
  pix_fmt?: string;
  time_base?: string;
  sample_rate?: string;
  channels?: number;
  channel_layout?: string;
  nb_frames?: string;
  sample_aspect_ratio?: string;
  disposition: Record<string, number>;
  id?: string;
  side_data_list?: Record<string, unknown>[];
}

/** What the reader gives for a file it vouches for. */
export interface Mp4Facts {
  streams: ProbedStream[];
  format: { size: string; format_name: string };
  /** Packets per stream index (discarded ones included) and the shown ones' pts, in file order. */
  packets: Map<number, TrackPackets>;
  /** Every track's edit list, by track id (edit-list.ts). */
  editLists: Map<number, TrackEdits>;
}

/** The reader's answer: the facts, or why the file is not its to read. */
export type Mp4Reading = { ok: true; facts: Mp4Facts } | { ok: false; why: string };

/** libavformat's name for the MP4 / QuickTime demuxer, as ffprobe prints it. */
export const MOV_FORMAT_NAME = 'mov,mp4,m4a,3gp,3g2,mj2';

class NotMine extends Error {}

function refuse(why: string): never {
  throw new NotMine(why);
}

const TOP_LEVEL = new Set(['ftyp', 'free', 'skip', 'wide', 'mdat', 'moov']);
const MOOV_CHILDREN = new Set(['mvhd', 'trak', 'udta', 'iods']);
const TRAK_CHILDREN = new Set(['tkhd', 'edts', 'mdia', 'udta']);
const STBL_CHILDREN = new Set(['stsd', 'stts', 'ctts', 'stss', 'stsc', 'stsz', 'stco', 'co64', 'sgpd', 'sbgp', 'sdtp']);
const VISUAL_CHILDREN = new Set(['avcC', 'hvcC', 'pasp', 'colr', 'btrt', 'fiel']);
const AUDIO_CHILDREN = new Set(['esds', 'btrt', 'wave', 'chan', 'sgpd', 'sbgp']);
const CONTAINERS = new Set(['moov', 'trak', 'edts', 'mdia', 'minf', 'stbl', 'dinf', 'udta']);

/**
 * Reads an MP4 / QuickTime file's streams and packets as ffprobe 5.1 would
 * print them, or says why it will not. Never throws for the file's content;
 * I/O errors (a file that cannot be opened) are "not mine" too, for ffprobe
 * to report as it does.
 */
export async function readMp4(file: string): Promise<Mp4Reading> {
  try {
    return { ok: true, facts: await readFacts(file) };
  } catch (error) {
    if (error instanceof NotMine || error instanceof BoxError) return { ok: false, why: error.message };
    if (error instanceof RangeError) return { ok: false, why: `a box is shorter than its fields (${error.message})` };
    if ((error as NodeJS.ErrnoException | null)?.code) return { ok: false, why: (error as Error).message };
    throw error;
  }
}

async function readFacts(file: string): Promise<Mp4Facts> {
  const handle = await open(file, 'r');
  let moov: Buffer;
  let size: number;
  try {
    size = (await handle.stat()).size;
    const head = Buffer.alloc(8);
    await handle.read(head, 0, 8, 0);
    if (head.toString('latin1', 4, 8) !== 'ftyp') refuse('the file does not start with an ftyp box');
    const top = await topLevelBoxes(handle, size);
    const odd = top.find((b) => !TOP_LEVEL.has(b.type));
    if (odd) refuse(`top-level box ${JSON.stringify(odd.type)} (fragmented or not read here)`);
    const moovs = top.filter((b) => b.type === 'moov');
    if (moovs.length !== 1) refuse(`${moovs.length} moov boxes`);
    if (moovs[0]!.size > MAX_MOOV_BYTES) refuse(`the moov box is ${moovs[0]!.size} bytes, more than the ${MAX_MOOV_BYTES} read`);
    moov = await readPayload(handle, moovs[0]!);
  } finally {
    await handle.close();
  }
  return moovFacts(moov, size);
}

/** A track's parsed boxes and what it shows. */
interface Track {
  id: number;
  kind: 'video' | 'audio';
  timescale: number;
  stream: Omit<ProbedStream, 'index'>;
  packets: TrackPackets;
}

function moovFacts(moov: Buffer, fileSize: number): Mp4Facts {
  const root: Box = { type: 'moov', start: 0, end: moov.length };
  checkNesting(moov, root, (t) => CONTAINERS.has(t));
  const top = [...boxes(moov, root.start, root.end)];
  const odd = top.find((b) => !MOOV_CHILDREN.has(b.type));
  if (odd) refuse(`moov holds ${JSON.stringify(odd.type)}`);
  const mvhd = child(moov, root, 'mvhd') ?? refuse('no mvhd box');
  const movie = timescaleAndDuration(moov, mvhd) ?? refuse('the mvhd box is short');
  if (movie.timescale <= 0) refuse('the movie time scale is 0');
  const movieMatrixAt = mvhd.start + (moov[mvhd.start] === 1 ? 48 : 36);
  if (!isIdentity(readMatrix(moov, movieMatrixAt, mvhd.end))) refuse('the movie has a display matrix');

  const tracks = top.filter((b) => b.type === 'trak').map((trak) => readTrack(moov, trak, movie.timescale, fileSize));
  const ids = new Set(tracks.map((t) => t.id));
  if (ids.size !== tracks.length) refuse('two tracks share an id');
  const streams: ProbedStream[] = tracks.map((t, index) => ({ index, ...t.stream }));
  const packets = new Map<number, TrackPackets>(tracks.map((t, index) => [index, t.packets]));

  const covers = coverPictures(moov, top);
  for (const codec of covers) {
    const index = streams.length;
    streams.push({ index, codec_type: 'video', codec_name: codec, disposition: { attached_pic: 1 } });
    packets.set(index, { count: 1, shownPts: [], duration: 0 });
  }
  return { streams, format: { size: String(fileSize), format_name: MOV_FORMAT_NAME }, packets, editLists: editListsOf(moov) };
}

/** The codecs of the iTunes cover pictures (moov/udta/meta/ilst/covr), each a stream after the tracks. */
function coverPictures(moov: Buffer, top: Box[]): string[] {
  const out: string[] = [];
  const lastTrak = top.reduce((at, b, i) => (b.type === 'trak' ? i : at), -1);
  top.forEach((udta, i) => {
    if (udta.type !== 'udta') return;
    const meta = child(moov, udta, 'meta');
    if (!meta) return;
    // meta is a full box: its children start after version and flags.
    const ilst = child(moov, { type: 'meta', start: meta.start + 4, end: meta.end }, 'ilst');
    const covr = ilst && child(moov, ilst, 'covr');
    if (!covr) return;
    if (i < lastTrak) refuse('a cover picture before a track');
    for (const data of boxes(moov, covr.start, covr.end)) {
      if (data.type !== 'data' || data.end - data.start < 8) refuse('a cover picture box that is not data');
      const type = moov.readUInt32BE(data.start);
      const bytes = moov.subarray(data.start + 8, data.end);
      if (type !== 0x0d && type !== 0x0e && type !== 0x1b) refuse(`a cover picture of type ${type}`);
      const png = bytes.length >= 8 && bytes.readBigUInt64BE(0) === 0x89504e470d0a1a0an;
      out.push(type === 0x1b ? 'bmp' : png ? 'png' : 'mjpeg');
    }
  });
  return out;
}

function readMatrix(buf: Buffer, at: number, end: number): number[] {
  if (at + 36 > end) refuse('a matrix runs past its box');
  return Array.from({ length: 9 }, (_, i) => buf.readInt32BE(at + i * 4));
}

const IDENTITY = [65536, 0, 0, 0, 65536, 0, 0, 0, 1 << 30];
const isIdentity = (m: number[]): boolean => m.every((v, i) => v === IDENTITY[i]);

/** A rotation or flip by quarter turns (the only matrices vouched for), or identity; refuses scaling and shear. */
function displayMatrix(m: number[]): number[] | null {
  if (isIdentity(m)) return null;
  const [a, b, u, c, d, v, , , w] = m as [number, number, number, number, number, number, number, number, number];
  const unit = (x: number): boolean => x === 0 || x === 65536 || x === -65536;
  if (![a, b, c, d].every(unit) || u !== 0 || v !== 0 || w !== 1 << 30 || Math.abs(a * d - b * c) !== 65536 * 65536) refuse('a display matrix that scales or shears');
  return m;
}

/** av_display_rotation_get, truncated to an integer as ffprobe prints it. */
function rotationOf(m: number[]): number {
  const fp = (x: number): number => x / 65536;
  const scale0 = Math.hypot(fp(m[0]!), fp(m[3]!));
  const scale1 = Math.hypot(fp(m[1]!), fp(m[4]!));
  const rotation = -((Math.atan2(fp(m[1]!) / scale1, fp(m[0]!) / scale0) * 180) / Math.PI);
  return Math.trunc(rotation) + 0;
}

/** The text ffprobe prints for a display matrix (three rows of three). */
function matrixText(m: number[]): string {
  const rows = [0, 1, 2].map((r) => `${String(r).padStart(8, '0')}: ${m.slice(r * 3, r * 3 + 3).map((v) => String(v).padStart(11)).join(' ')}`);
  return `\n${rows.join('\n')}\n`;
}

function fullBoxVersion(buf: Buffer, box: Box): number {
  if (box.start + 4 > box.end) refuse(`the ${box.type} box is short`);
  return buf[box.start]!;
}

function readTrack(moov: Buffer, trak: Box, movieTimescale: number, fileSize: number): Track {
  const odd = [...boxes(moov, trak.start, trak.end)].find((b) => !TRAK_CHILDREN.has(b.type));
  if (odd) refuse(`a track holds ${JSON.stringify(odd.type)}`);
  const tkhd = child(moov, trak, 'tkhd') ?? refuse('a track without tkhd');
  const v1 = fullBoxVersion(moov, tkhd) === 1;
  const idAt = tkhd.start + (v1 ? 20 : 12);
  if (idAt + 4 > tkhd.end) refuse('the tkhd box is short');
  const id = moov.readUInt32BE(idAt);
  const matrix = displayMatrix(readMatrix(moov, tkhd.start + (v1 ? 52 : 40), tkhd.end));

  const mdia = child(moov, trak, 'mdia') ?? refuse('a track without mdia');
  const mdhd = child(moov, mdia, 'mdhd') ?? refuse('a track without mdhd');
  const media = timescaleAndDuration(moov, mdhd) ?? refuse('the mdhd box is short');
  if (media.timescale <= 0) refuse('a track time scale of 0');
  const hdlr = child(moov, mdia, 'hdlr') ?? refuse('a track without hdlr');
  if (hdlr.start + 12 > hdlr.end) refuse('the hdlr box is short');
  const handler = moov.toString('latin1', hdlr.start + 8, hdlr.start + 12);
  if (handler !== 'vide' && handler !== 'soun') refuse(`a track of handler ${JSON.stringify(handler)}`);
  const minf = child(moov, mdia, 'minf') ?? refuse('a track without minf');
  checkDataReferences(moov, minf);
  const stbl = child(moov, minf, 'stbl') ?? refuse('a track without stbl');
  const oddTable = [...boxes(moov, stbl.start, stbl.end)].find((b) => !STBL_CHILDREN.has(b.type));
  if (oddTable) refuse(`a sample table holds ${JSON.stringify(oddTable.type)}`);
  for (const sbgp of children(moov, stbl, 'sbgp')) {
    const grouping = sbgp.start + 8 <= sbgp.end ? moov.toString('latin1', sbgp.start + 4, sbgp.start + 8) : '';
    if (grouping !== 'roll' && grouping !== 'prol') refuse(`a sample group of type ${JSON.stringify(grouping)}`);
  }

  const entry = sampleEntry(moov, stbl);
  const table = sampleTable(moov, stbl, fileSize);
  const edit = singleEdit(moov, trak, movieTimescale, media.timescale);
  const kind = handler === 'vide' ? 'video' : 'audio';
  const common = {
    time_base: `1/${media.timescale}`,
    nb_frames: String(table.dts.length),
    disposition: { attached_pic: 0 },
    id: `0x${id.toString(16)}`,
  };
  const packets = trackPackets(table, edit, kind === 'audio', media.timescale);
  if (kind === 'video') {
    const picture = videoEntry(moov, entry);
    const stream: Omit<ProbedStream, 'index'> = {
      codec_type: 'video',
      codec_name: picture.codec,
      width: picture.width,
      height: picture.height,
      pix_fmt: picture.pixFmt,
      ...common,
    };
    if (picture.sar) stream.sample_aspect_ratio = `${picture.sar.num}:${picture.sar.den}`;
    if (matrix) stream.side_data_list = [{ side_data_type: 'Display Matrix', displaymatrix: matrixText(matrix), rotation: rotationOf(matrix) }];
    return { id, kind, timescale: media.timescale, stream, packets };
  }
  const audio = audioEntry(moov, entry);
  const stream: Omit<ProbedStream, 'index'> = {
    codec_type: 'audio',
    codec_name: 'aac',
    sample_rate: String(audio.sampleRate),
    channels: audio.channels,
    channel_layout: audio.layout,
    ...common,
  };
  return { id, kind, timescale: media.timescale, stream, packets };
}

/** Only self-contained data references (the samples are in this file). */
function checkDataReferences(moov: Buffer, minf: Box): void {
  const dref = descend(moov, minf, ['dinf', 'dref']);
  if (!dref) return;
  for (const entry of boxes(moov, dref.start + 8, dref.end)) {
    if (entry.start + 4 > entry.end || (moov[entry.start + 3]! & 1) !== 1) refuse('samples in another file (a data reference)');
  }
}

function sampleEntry(moov: Buffer, stbl: Box): Box {
  const stsd = child(moov, stbl, 'stsd') ?? refuse('a track without stsd');
  if (stsd.start + 8 > stsd.end || moov.readUInt32BE(stsd.start + 4) !== 1) refuse('a sample description count other than 1');
  const entries = [...boxes(moov, stsd.start + 8, stsd.end)];
  if (entries.length !== 1) refuse('a sample description count other than 1');
  return entries[0]!;
}

/** Children of a sample entry, after its fixed fields; refuses those not in `allowed`. */
function entryChildren(moov: Buffer, entry: Box, fixed: number, allowed: Set<string>): Box {
  const inner: Box = { type: entry.type, start: entry.start + fixed, end: entry.end };
  if (inner.start > inner.end) refuse(`the ${entry.type} sample entry is short`);
  const odd = [...boxes(moov, inner.start, inner.end)].find((b) => !allowed.has(b.type));
  if (odd) refuse(`the ${entry.type} sample entry holds ${JSON.stringify(odd.type)}`);
  return inner;
}

function colourOf(moov: Buffer, entry: Box): ContainerColour {
  const colr = child(moov, entry, 'colr');
  if (!colr || colr.start + 10 > colr.end) return { fullRange: null, matrix: null };
  const kind = moov.toString('latin1', colr.start, colr.start + 4);
  if (kind !== 'nclx' && kind !== 'nclc') return { fullRange: null, matrix: null };
  const matrix = moov.readUInt16BE(colr.start + 8);
  const fullRange = kind === 'nclx' && colr.start + 11 <= colr.end ? moov[colr.start + 10]! >> 7 === 1 : null;
  return { fullRange, matrix };
}

function videoEntry(moov: Buffer, entry: Box): PictureFacts & { codec: string } {
  const inner = entryChildren(moov, entry, 78, VISUAL_CHILDREN);
  const pasp = child(moov, inner, 'pasp');
  let sar: PictureFacts['sar'] | undefined;
  if (pasp) {
    if (pasp.start + 8 > pasp.end) refuse('the pasp box is short');
    const [h, v] = [moov.readUInt32BE(pasp.start), moov.readUInt32BE(pasp.start + 4)];
    if (h > 0x7fffffff || v > 0x7fffffff) refuse('a pasp ratio past 2^31');
    if (h && v) sar = reduce(h, v);
  }
  let picture: PictureFacts | null = null;
  let codec: string;
  if (entry.type === 'avc1') {
    const avcC = child(moov, inner, 'avcC') ?? refuse('avc1 without avcC');
    picture = avcPicture(moov.subarray(avcC.start, avcC.end), colourOf(moov, inner));
    codec = 'h264';
  } else if (entry.type === 'hvc1' || entry.type === 'hev1') {
    const hvcC = child(moov, inner, 'hvcC') ?? refuse(`${entry.type} without hvcC`);
    picture = hevcPicture(moov.subarray(hvcC.start, hvcC.end));
    // The HEVC SPS's own aspect ratio is not read here: only a pasp box vouches for it.
    if (!sar) refuse('HEVC without a pasp box');
    codec = 'hevc';
  } else {
    refuse(`video sample entry ${JSON.stringify(entry.type)}`);
  }
  if (!picture) refuse(`a ${codec} configuration not vouched for`);
  const vui = picture.sar && picture.sar.num > 0 && picture.sar.den > 0 ? reduce(picture.sar.num, picture.sar.den) : null;
  return { ...picture, sar: sar ?? vui, codec };
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

function reduce(num: number, den: number): { num: number; den: number } {
  const g = gcd(num, den);
  return { num: num / g, den: den / g };
}

function audioEntry(moov: Buffer, entry: Box): { sampleRate: number; channels: number; layout: string } {
  if (entry.type !== 'mp4a') refuse(`audio sample entry ${JSON.stringify(entry.type)}`);
  if (entry.start + 28 > entry.end) refuse('the mp4a sample entry is short');
  const version = moov.readUInt16BE(entry.start + 8);
  const fixed = version === 0 ? 28 : version === 1 ? 44 : version === 2 ? 64 : refuse(`mp4a version ${version}`);
  const inner = entryChildren(moov, entry, fixed, AUDIO_CHILDREN);
  const wave = child(moov, inner, 'wave');
  const esds = child(moov, inner, 'esds') ?? (wave && child(moov, wave, 'esds')) ?? refuse('mp4a without esds');
  const audio = aacAudio(moov.subarray(esds.start + 4, esds.end));
  return audio ?? refuse('an AAC configuration not vouched for');
}

/** Reads a full box's entry count and checks that `count` entries of `entrySize` bytes fit it. */
function entries(moov: Buffer, box: Box, header: number, entrySize: number): number {
  if (box.start + header > box.end) refuse(`the ${box.type} box is short`);
  const count = moov.readUInt32BE(box.start + header - 4);
  if (count * entrySize > box.end - box.start - header) refuse(`the ${box.type} box lists ${count} entries, more than it holds`);
  return count;
}

function sampleTable(moov: Buffer, stbl: Box, fileSize: number): SampleTable {
  const stsz = child(moov, stbl, 'stsz') ?? refuse('no stsz box');
  if (stsz.start + 12 > stsz.end) refuse('the stsz box is short');
  if (moov.readUInt32BE(stsz.start + 4) !== 0) refuse('a constant sample size');
  const n = entries(moov, stsz, 12, 4);
  if (n === 0) refuse('a track without samples');
  if (n > MAX_TRACK_SAMPLES) refuse(`a track of ${n} samples`);
  const sizes = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    sizes[i] = moov.readUInt32BE(stsz.start + 12 + i * 4);
    if (sizes[i] === 0 || sizes[i]! > 0x3fffffff) refuse('a sample of size 0 or past 1 GiB');
  }
  checkPositions(moov, stbl, sizes, fileSize);
  return { ...decodeTimes(moov, stbl, n), ...composition(moov, stbl, n), key: keyFrames(moov, stbl, n) };
}

function decodeTimes(moov: Buffer, stbl: Box, n: number): { dts: Float64Array; duration: number } {
  const stts = child(moov, stbl, 'stts') ?? refuse('no stts box');
  const count = entries(moov, stts, 8, 8);
  const dts = new Float64Array(n);
  let sample = 0;
  let t = 0;
  for (let e = 0; e < count; e++) {
    const runs = moov.readUInt32BE(stts.start + 8 + e * 8);
    const delta = moov.readUInt32BE(stts.start + 12 + e * 8);
    if (delta > 0x7fffffff) refuse('a sample duration past 2^31');
    if (runs > n - sample) refuse('stts lists more samples than stsz');
    for (let k = 0; k < runs; k++, sample++) {
      dts[sample] = t;
      t += delta;
    }
  }
  if (sample !== n) refuse('stts and stsz disagree on the sample count');
  if (t > Number.MAX_SAFE_INTEGER / 4) refuse('timestamps too large');
  return { dts, duration: t };
}

function composition(moov: Buffer, stbl: Box, n: number): { ctts: Int32Array | null; dtsShift: number } {
  const ctts = child(moov, stbl, 'ctts');
  if (!ctts) return { ctts: null, dtsShift: 0 };
  const count = entries(moov, ctts, 8, 8);
  const out = new Int32Array(n);
  let sample = 0;
  let shift = 0;
  for (let e = 0; e < count; e++) {
    const runs = moov.readInt32BE(ctts.start + 8 + e * 8);
    const offset = moov.readInt32BE(ctts.start + 12 + e * 8);
    if (runs <= 0 || runs > n - sample) refuse('ctts and stsz disagree on the sample count');
    if (offset === -0x80000000) refuse('a composition offset of -2^31');
    out.fill(offset, sample, sample + runs);
    sample += runs;
    if (e + 2 < count && offset < 0) shift = Math.max(shift, -offset);
  }
  if (sample !== n) refuse('ctts and stsz disagree on the sample count');
  return { ctts: out, dtsShift: shift };
}

/** libavformat's key-frame flags from stss (every sample without one; an empty one is left to ffprobe). */
function keyFrames(moov: Buffer, stbl: Box, n: number): Uint8Array {
  const key = new Uint8Array(n);
  const stss = child(moov, stbl, 'stss');
  if (!stss) return key.fill(1);
  const count = entries(moov, stss, 8, 4);
  if (count === 0) refuse('an empty stss box');
  const frames = Array.from({ length: count }, (_, i) => moov.readUInt32BE(stss.start + 8 + i * 4));
  const keyOff = frames[0]! > 0 ? 1 : 0;
  let at = 0;
  for (let s = 0; s < n; s++) {
    if (s + keyOff === frames[at]) {
      key[s] = 1;
      if (at + 1 < count) at++;
    }
  }
  return key;
}

/** Walks stsc and stco / co64 to check that every sample lies inside the file and the chunks hold exactly the samples. */
function checkPositions(moov: Buffer, stbl: Box, sizes: Float64Array, fileSize: number): void {
  const stco = child(moov, stbl, 'stco');
  const co64 = child(moov, stbl, 'co64');
  if ((stco ? 1 : 0) + (co64 ? 1 : 0) !== 1) refuse('not exactly one chunk offset box');
  const wide = !stco;
  const offsets = (stco ?? co64)!;
  const chunks = entries(moov, offsets, 8, wide ? 8 : 4);
  const offsetOf = (i: number): number =>
    wide ? Number(moov.readBigUInt64BE(offsets.start + 8 + i * 8)) : moov.readUInt32BE(offsets.start + 8 + i * 4);
  const stsc = child(moov, stbl, 'stsc') ?? refuse('no stsc box');
  const runs = entries(moov, stsc, 8, 12);
  if (runs === 0) refuse('an empty stsc box');
  const run = (i: number): { first: number; perChunk: number; description: number } => ({
    first: moov.readUInt32BE(stsc.start + 8 + i * 12),
    perChunk: moov.readUInt32BE(stsc.start + 12 + i * 12),
    description: moov.readUInt32BE(stsc.start + 16 + i * 12),
  });
  if (run(0).first !== 1) refuse('stsc does not start at chunk 1');
  let r = 0;
  let sample = 0;
  for (let c = 0; c < chunks; c++) {
    while (r + 1 < runs && c + 1 === run(r + 1).first) r++;
    const { perChunk, description } = run(r);
    if (description !== 1 || (r + 1 < runs && run(r + 1).first <= c + 1)) refuse('stsc entries out of order');
    if (perChunk > sizes.length - sample) refuse('the chunks hold more samples than stsz lists');
    let at = offsetOf(c);
    for (let k = 0; k < perChunk; k++, sample++) {
      at += sizes[sample]!;
      if (at > fileSize) refuse('a sample lies past the end of the file');
    }
  }
  if (r + 1 < runs) refuse('stsc names chunks that do not exist');
  if (sample !== sizes.length) refuse('the chunks hold fewer samples than stsz lists');
}

/** The largest edit time taken (2^51 ticks): far past any real file, and exact as a number. */
const LARGEST = 2n ** 51n;

/** The track's edit list when it is one edit at normal rate, after at most one empty edit; null without one. */
function singleEdit(moov: Buffer, trak: Box, movieTimescale: number, timescale: number): SingleEdit | null {
  const edts = child(moov, trak, 'edts');
  if (!edts) return null;
  const elsts = children(moov, edts, 'elst');
  if (elsts.length !== 1 || [...boxes(moov, edts.start, edts.end)].length !== 1) refuse('an edts box other than one elst');
  const edits = editList(moov, elsts[0]!) ?? refuse('an elst box that cannot be read');
  if (edits.length === 0) return null;
  const rescale = (d: bigint): number => {
    const v = (d * BigInt(timescale) + BigInt(movieTimescale) / 2n) / BigInt(movieTimescale);
    if (v > LARGEST) refuse('an edit too long');
    return Number(v);
  };
  const leadingEmpty = edits.length === 2 && edits[0]!.mediaTime === -1n;
  const shown = edits[edits.length - 1]!;
  if (edits.length > 2 || (edits.length === 2 && !leadingEmpty)) refuse('more than one edit');
  if (shown.mediaTime < 0n || shown.rate !== 65536 || shown.duration === 0n) refuse('an edit that is empty, zero-length or not at normal rate');
  if (leadingEmpty && edits[0]!.rate !== 65536 && edits[0]!.rate !== 0) refuse('an empty edit at an odd rate');
  if (shown.mediaTime > LARGEST) refuse('an edit too late');
  return { empty: leadingEmpty ? rescale(edits[0]!.duration) : 0, mediaTime: Number(shown.mediaTime), duration: rescale(shown.duration) };
}
