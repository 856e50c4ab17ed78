/**
 * What a decoder would report of a stream, read from its MP4 sample entry's
 * codec configuration instead of by decoding: H.264's sequence parameter set
 * (avcC) for the picture size, chroma format, bit depth, full range and
 * sample aspect ratio; HEVC's hvcC and SPS for size, chroma format and bit
 * depth; AAC's AudioSpecificConfig (esds) for sample rate and channels.
 * Each answers null for what it cannot vouch for being what FFmpeg 5.1's
 * decoders report (the caller then leaves the file to ffprobe).
 */
import { BitReader, BoxError, unescapeNal } from './mp4-boxes.js';

/** A picture as the decoder reports it. */
export interface PictureFacts {
  width: number;
  height: number;
  pixFmt: string;
  /** From the SPS's VUI; null when it gives none. */
  sar: { num: number; den: number } | null;
}

/** What the container's colr box says (nclx / nclc): full range (nclx only) and matrix coefficients. */
export interface ContainerColour {
  fullRange: boolean | null;
  matrix: number | null;
}

const HIGH_PROFILES = new Set([100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]);

/** H.264 Table E-1. */
const H264_SAR: readonly [number, number][] = [
  [0, 1], [1, 1], [12, 11], [10, 11], [16, 11], [40, 33], [24, 11], [20, 11], [32, 11],
  [80, 33], [18, 11], [15, 11], [64, 33], [160, 99], [4, 3], [3, 2], [2, 1],
];

function skipScalingList(r: BitReader, size: number): void {
  let last = 8;
  let next = 8;
  for (let j = 0; j < size; j++) {
    if (next !== 0) next = (last + r.se() + 256) % 256;
    last = next === 0 ? last : next;
  }
}

/** libavcodec's pixel format name for a YUV stream; null for what is not vouched for. */
function yuvFormat(chroma: number, depth: number, full: boolean, rgbMatrix: boolean, allowJ: boolean): string | null {
  const sub = chroma === 1 ? '420' : chroma === 2 ? '422' : chroma === 3 ? '444' : null;
  if (!sub || (chroma === 3 && rgbMatrix)) return null;
  if (depth === 8) return full && allowJ ? `yuvj${sub}p` : `yuv${sub}p`;
  return [9, 10, 12, 14].includes(depth) ? `yuv${sub}p${depth}le` : null;
}

/**
 * The first SPS of an avcC box's payload, read as libavcodec's H.264
 * decoder reads it; null where its output could differ (several SPSs,
 * monochrome, left cropping libavcodec realigns, an RGB matrix).
 */
export function avcPicture(avcC: Buffer, colour: ContainerColour): PictureFacts | null {
  if (avcC.length < 8 || avcC[0] !== 1) return null;
  if ((avcC[5]! & 0x1f) !== 1) return null;
  const length = avcC.readUInt16BE(6);
  if (8 + length > avcC.length || length < 4) return null;
  const nal = unescapeNal(avcC.subarray(8, 8 + length));
  if ((nal[0]! & 0x1f) !== 7) return null;
  try {
    return parseAvcSps(new BitReader(nal.subarray(1)), colour);
  } catch (error) {
    if (error instanceof BoxError) return null;
    throw error;
  }
}

function parseAvcSps(r: BitReader, colour: ContainerColour): PictureFacts | null {
  const profile = r.u(8);
  r.u(16);
  r.ue();
  let chroma = 1;
  let depth = 8;
  if (HIGH_PROFILES.has(profile)) {
    chroma = r.ue();
    if (chroma === 3 && r.u(1) === 1) return null;
    depth = r.ue() + 8;
    if (r.ue() + 8 !== depth) return null;
    r.u(1);
    if (r.u(1) === 1) for (let i = 0; i < (chroma !== 3 ? 8 : 12); i++) if (r.u(1) === 1) skipScalingList(r, i < 6 ? 16 : 64);
  }
  if (chroma < 1 || chroma > 3) return null;
  r.ue();
  const pocType = r.ue();
  if (pocType === 0) r.ue();
  else if (pocType === 1) {
    r.u(1);
    r.se();
    r.se();
    const cycle = r.ue();
    if (cycle > 255) return null;
    for (let i = 0; i < cycle; i++) r.se();
  } else if (pocType !== 2) return null;
  r.ue();
  r.u(1);
  const mbWidth = r.ue() + 1;
  const mapHeight = r.ue() + 1;
  const frameMbsOnly = r.u(1);
  if (!frameMbsOnly) r.u(1);
  r.u(1);
  const crop = r.u(1) === 1 ? [r.ue(), r.ue(), r.ue(), r.ue()] : [0, 0, 0, 0];
  const unitX = chroma === 3 ? 1 : 2;
  const unitY = (chroma === 1 ? 2 : 1) * (2 - frameMbsOnly);
  const width = mbWidth * 16 - (crop[0]! + crop[1]!) * unitX;
  const height = (2 - frameMbsOnly) * mapHeight * 16 - (crop[2]! + crop[3]!) * unitY;
  if (crop[0] !== 0 || crop[2] !== 0 || width <= 0 || height <= 0) return null;
  let sar: PictureFacts['sar'] = null;
  let full = colour.fullRange ?? false;
  let matrix = colour.matrix;
  if (r.u(1) === 1) {
    if (r.u(1) === 1) {
      const idc = r.u(8);
      if (idc === 255) sar = { num: r.u(16), den: r.u(16) };
      else if (idc < H264_SAR.length) sar = { num: H264_SAR[idc]![0], den: H264_SAR[idc]![1] };
      else return null;
    }
    if (r.u(1) === 1) r.u(1);
    if (r.u(1) === 1) {
      r.u(3);
      full = r.u(1) === 1;
      if (r.u(1) === 1) {
        r.u(16);
        matrix = r.u(8);
      }
    }
  }
  const pixFmt = yuvFormat(chroma, depth, full, matrix === 0, true);
  return pixFmt ? { width, height, pixFmt, sar } : null;
}

/**
 * An hvcC box's picture: chroma format and bit depth from its header, the
 * size from its SPS's start. libavcodec's HEVC decoder never picks the
 * full-range ("yuvj") formats. The SPS's VUI (its SAR) is past parts that are
 * not read here: `sar` is null, and the caller vouches only with a pasp box.
 */
export function hevcPicture(hvcC: Buffer): PictureFacts | null {
  if (hvcC.length < 23 || hvcC[0] !== 1) return null;
  const chroma = hvcC[16]! & 3;
  const depth = (hvcC[17]! & 7) + 8;
  if ((hvcC[18]! & 7) + 8 !== depth) return null;
  const sps = firstHevcNal(hvcC, 33);
  if (!sps) return null;
  try {
    const size = hevcSize(new BitReader(unescapeNal(sps).subarray(2)), chroma);
    const pixFmt = yuvFormat(chroma, depth, false, false, false);
    return size && pixFmt ? { ...size, pixFmt, sar: null } : null;
  } catch (error) {
    if (error instanceof BoxError) return null;
    throw error;
  }
}

function firstHevcNal(hvcC: Buffer, wanted: number): Buffer | null {
  let at = 23;
  const arrays = hvcC[22]!;
  let found: Buffer | null = null;
  for (let a = 0; a < arrays; a++) {
    if (at + 3 > hvcC.length) return null;
    const type = hvcC[at]! & 0x3f;
    const count = hvcC.readUInt16BE(at + 1);
    at += 3;
    for (let n = 0; n < count; n++) {
      if (at + 2 > hvcC.length) return null;
      const length = hvcC.readUInt16BE(at);
      if (at + 2 + length > hvcC.length) return null;
      if (type === wanted) {
        if (found) return null;
        found = hvcC.subarray(at + 2, at + 2 + length);
      }
      at += 2 + length;
    }
  }
  return found;
}

function hevcSize(r: BitReader, chroma: number): { width: number; height: number } | null {
  r.u(4);
  const subLayers = r.u(3);
  r.u(1);
  r.u(96);
  const present: [number, number][] = [];
  for (let i = 0; i < subLayers; i++) present.push([r.u(1), r.u(1)]);
  if (subLayers > 0) for (let i = subLayers; i < 8; i++) r.u(2);
  for (const [profile, level] of present) {
    if (profile) r.u(88);
    if (level) r.u(8);
  }
  r.ue();
  if (r.ue() !== chroma) return null;
  if (chroma === 3 && r.u(1) === 1) return null;
  const width = r.ue();
  const height = r.ue();
  const [subW, subH] = chroma === 1 ? [2, 2] : chroma === 2 ? [2, 1] : [1, 1];
  const win = r.u(1) === 1 ? [r.ue(), r.ue(), r.ue(), r.ue()] : [0, 0, 0, 0];
  if (win[0] !== 0 || win[2] !== 0) return null;
  const out = { width: width - (win[0]! + win[1]!) * subW, height: height - (win[2]! + win[3]!) * subH };
  return out.width > 0 && out.height > 0 ? out : null;
}

/** AAC as libavcodec's decoder reports it. */
export interface AudioFacts {
  sampleRate: number;
  channels: number;
  layout: string;
}

const AAC_RATES = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350];
const AAC_LAYOUTS: Record<number, string> = { 1: 'mono', 2: 'stereo' };

/** An MPEG-4 descriptor's tag and payload range inside `buf`. */
function descriptor(buf: Buffer, at: number, end: number): { tag: number; start: number; end: number } | null {
  if (at + 2 > end) return null;
  const tag = buf[at]!;
  let length = 0;
  let i = at + 1;
  for (let n = 0; n < 4; n++, i++) {
    if (i >= end) return null;
    length = length * 128 + (buf[i]! & 0x7f);
    if ((buf[i]! & 0x80) === 0) {
      i++;
      break;
    }
  }
  return i + length <= end ? { tag, start: i, end: i + length } : null;
}

/**
 * An esds box's payload (after version and flags) as AAC-LC: sample rate,
 * channels and layout name. Only AudioSpecificConfigs that say SBR is absent
 * (an explicit sync extension, as FFmpeg's encoder writes) are vouched for:
 * without it the decoder may find SBR in the stream and double the rate.
 */
export function aacAudio(esds: Buffer): AudioFacts | null {
  const es = descriptor(esds, 0, esds.length);
  if (!es || es.tag !== 3 || es.start + 3 > es.end) return null;
  const flags = esds[es.start + 2]!;
  let at = es.start + 3 + (flags & 0x80 ? 2 : 0);
  if (flags & 0x40) at += 1 + (esds[at] ?? 0);
  if (flags & 0x20) at += 2;
  const dec = descriptor(esds, at, es.end);
  if (!dec || dec.tag !== 4 || dec.start + 13 > dec.end || esds[dec.start] !== 0x40) return null;
  const info = descriptor(esds, dec.start + 13, dec.end);
  if (!info || info.tag !== 5) return null;
  try {
    return audioSpecificConfig(new BitReader(esds.subarray(info.start, info.end)));
  } catch (error) {
    if (error instanceof BoxError) return null;
    throw error;
  }
}

function audioSpecificConfig(r: BitReader): AudioFacts | null {
  if (r.u(5) !== 2) return null;
  const rateIndex = r.u(4);
  const sampleRate = AAC_RATES[rateIndex];
  const channels = r.u(4);
  const layout = AAC_LAYOUTS[channels];
  if (!sampleRate || !layout) return null;
  // GASpecificConfig: frameLengthFlag, dependsOnCoreCoder, extensionFlag.
  if (r.u(1) !== 0 || r.u(1) !== 0 || r.u(1) !== 0) return null;
  if (r.left < 16 || r.u(11) !== 0x2b7 || r.u(5) !== 5 || r.u(1) !== 0) return null;
  return { sampleRate, channels, layout };
}
