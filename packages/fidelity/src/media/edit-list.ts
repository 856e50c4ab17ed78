/**
 * The edit lists of an MP4 / QuickTime file, read from its `moov` box: what
 * a player is told to show of each track, and when. ffprobe does not print
 * them, and ffmpeg applies them only as closely as its packets allow (an
 * audio edit that ends inside a packet still decodes the whole packet), so
 * two files with the same samples but different edits would otherwise look
 * the same. compat.ts compares them as a player plays them (`presentation()`
 * below): the delays and the shown durations, not the media offsets, which
 * depend on the encoder (B-frame delay, AAC priming).
 */
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { FidelityError } from '../errors.js';

/** One `elst` entry. Durations are in the movie's time scale, `mediaTime` in the track's; -1 is an empty edit (a delay). */
export interface Edit {
  duration: bigint;
  mediaTime: bigint;
  /** Playback rate as the 16.16 fixed-point value of the box (65536 = normal speed). */
  rate: number;
}

export interface TrackEdits {
  trackId: number;
  /** mvhd time scale: the unit of the edit durations. */
  movieTimescale: number;
  /** mdhd time scale and duration: the track's own media. */
  mediaTimescale: number;
  mediaDuration: bigint;
  /** null when the track has no edit list (the player shows the whole media from 0). */
  edits: Edit[] | null;
}

/** Refuses a moov box larger than this rather than reading it into memory; a real one is a few MB at most. */
const MAX_MOOV_BYTES = 256 * 1024 * 1024;

interface Box {
  type: string;
  /** Start of the payload and end of the box, within the buffer. */
  start: number;
  end: number;
}

function* boxes(buf: Buffer, from: number, to: number): Generator<Box> {
  let at = from;
  while (at + 8 <= to) {
    let size = buf.readUInt32BE(at);
    const type = buf.toString('latin1', at + 4, at + 8);
    let header = 8;
    if (size === 1) {
      if (at + 16 > to) return;
      size = Number(buf.readBigUInt64BE(at + 8));
      header = 16;
    } else if (size === 0) {
      size = to - at;
    }
    if (size < header || at + size > to) return;
    yield { type, start: at + header, end: at + size };
    at += size;
  }
}

function child(buf: Buffer, parent: Box, type: string): Box | undefined {
  for (const box of boxes(buf, parent.start, parent.end)) if (box.type === type) return box;
  return undefined;
}

function path(buf: Buffer, parent: Box, types: string[]): Box | undefined {
  let box: Box | undefined = parent;
  for (const type of types) box = box && child(buf, box, type);
  return box;
}

/** mvhd and mdhd share their layout up to the duration: version 1 has 64-bit times. */
export function timescaleAndDuration(buf: Buffer, box: Box): { timescale: number; duration: bigint } | null {
  const version = buf[box.start];
  if (version === 1) {
    if (box.start + 32 > box.end) return null;
    return { timescale: buf.readUInt32BE(box.start + 20), duration: buf.readBigUInt64BE(box.start + 24) };
  }
  if (box.start + 20 > box.end) return null;
  return { timescale: buf.readUInt32BE(box.start + 12), duration: BigInt(buf.readUInt32BE(box.start + 16)) };
}

function trackId(buf: Buffer, tkhd: Box): number | null {
  const offset = buf[tkhd.start] === 1 ? 20 : 12;
  return tkhd.start + offset + 4 <= tkhd.end ? buf.readUInt32BE(tkhd.start + offset) : null;
}

export function editList(buf: Buffer, elst: Box): Edit[] | null {
  const version = buf[elst.start];
  if (elst.start + 8 > elst.end) return null;
  const count = buf.readUInt32BE(elst.start + 4);
  const entry = version === 1 ? 20 : 12;
  if (elst.start + 8 + count * entry > elst.end) return null;
  const edits: Edit[] = [];
  for (let i = 0, at = elst.start + 8; i < count; i++, at += entry) {
    const [duration, mediaTime, rateAt] =
      version === 1
        ? [buf.readBigUInt64BE(at), buf.readBigInt64BE(at + 8), at + 16]
        : [BigInt(buf.readUInt32BE(at)), BigInt(buf.readInt32BE(at + 4)), at + 8];
    edits.push({ duration, mediaTime, rate: buf.readInt32BE(rateAt) });
  }
  return edits;
}

async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  const { bytesRead } = await handle.read(buf, 0, length, position);
  return buf.subarray(0, bytesRead);
}

/** Finds the top-level moov box by walking the box headers (moov may come after a multi-GB mdat). */
async function readMoov(handle: FileHandle, size: number, label: string): Promise<Buffer | null> {
  let at = 0;
  while (at + 8 <= size) {
    const head = await readAt(handle, at, 16);
    if (head.length < 8) return null;
    let boxSize = head.readUInt32BE(0);
    const type = head.toString('latin1', 4, 8);
    let header = 8;
    if (boxSize === 1) {
      if (head.length < 16) return null;
      boxSize = Number(head.readBigUInt64BE(8));
      header = 16;
    } else if (boxSize === 0) {
      boxSize = size - at;
    }
    if (boxSize < header) return null;
    if (type === 'moov') {
      if (boxSize > MAX_MOOV_BYTES) throw new FidelityError('UNDECODABLE', `${label}: the moov box is ${boxSize} bytes, more than the ${MAX_MOOV_BYTES} read`);
      return readAt(handle, at + header, Math.min(boxSize, size - at) - header);
    }
    at += boxSize;
  }
  return null;
}

/**
 * Every track's edit list, by track id (ffprobe's stream `id` for MP4 and
 * MOV). Empty when the file has no moov box that can be read: the caller
 * only asks this of files ffprobe called mov/mp4, which then could not have
 * been probed either.
 */
export async function readEditLists(file: string, label: string): Promise<Map<number, TrackEdits>> {
  const handle = await open(file, 'r');
  let moov: Buffer | null;
  try {
    moov = await readMoov(handle, (await handle.stat()).size, label);
  } finally {
    await handle.close();
  }
  return moov ? editListsOf(moov) : new Map<number, TrackEdits>();
}

/** Every track's edit list, by track id, from a moov box's payload already in memory. */
export function editListsOf(moov: Buffer): Map<number, TrackEdits> {
  const tracks = new Map<number, TrackEdits>();
  const root: Box = { type: 'moov', start: 0, end: moov.length };
  const mvhd = child(moov, root, 'mvhd');
  const movie = mvhd ? timescaleAndDuration(moov, mvhd) : null;
  if (!movie) return tracks;
  for (const trak of boxes(moov, 0, moov.length)) {
    if (trak.type !== 'trak') continue;
    const tkhd = child(moov, trak, 'tkhd');
    const mdhd = path(moov, trak, ['mdia', 'mdhd']);
    const id = tkhd ? trackId(moov, tkhd) : null;
    const media = mdhd ? timescaleAndDuration(moov, mdhd) : null;
    if (id === null || !media) continue;
    const elst = path(moov, trak, ['edts', 'elst']);
    tracks.set(id, {
      trackId: id,
      movieTimescale: movie.timescale,
      mediaTimescale: media.timescale,
      mediaDuration: media.duration,
      edits: elst ? editList(moov, elst) : null,
    });
  }
  return tracks;
}

/**
 * A stretch of the presentation: a delay (nothing shown) or media shown at
 * `rate`, `num / den` seconds long; `num` is -1 when the length is not in
 * the moov box (a fragmented file's media: its samples come later).
 */
export interface Segment {
  empty: boolean;
  num: bigint;
  den: bigint;
  rate: number;
}

/**
 * What a player does with the track, without the media offsets: the
 * sequence of delays and shown stretches with their durations and rates.
 * No edit list means the whole media, from 0, at normal speed.
 */
export function presentation(track: TrackEdits): Segment[] {
  if (!track.edits || track.edits.length === 0) {
    const known = track.mediaDuration > 0n;
    return [{ empty: false, num: known ? track.mediaDuration : -1n, den: BigInt(track.mediaTimescale), rate: 65536 }];
  }
  const den = BigInt(track.movieTimescale);
  return track.edits.map((e) => ({ empty: e.mediaTime === -1n, num: e.duration, den, rate: e.mediaTime === -1n ? 0 : e.rate }));
}

/**
 * Whether the edit list stops showing the media before its end (a trimmed
 * tail). ffmpeg then drops the packets past the edit, so fewer packets or
 * samples than the index lists is no sign of a truncated file. Edit
 * durations are in the coarser movie time scale: one of its ticks is allowed.
 */
export function hidesTail(track: TrackEdits | null): boolean {
  if (!track?.edits) return false;
  const movie = BigInt(track.movieTimescale);
  const media = BigInt(track.mediaTimescale);
  if (movie === 0n || media === 0n) return false;
  let end = -1n;
  for (const e of track.edits) {
    if (e.mediaTime < 0n) continue;
    const stop = e.mediaTime + (e.duration * media + movie - 1n) / movie;
    if (stop > end) end = stop;
  }
  const slack = (media + movie - 1n) / movie;
  return end >= 0n && end + slack < track.mediaDuration;
}

/** Whether the edit list starts showing the media after its beginning (a trimmed head: fewer samples decode than the index lists). */
export function hidesHead(track: TrackEdits | null): boolean {
  const shown = track?.edits?.filter((e) => e.mediaTime >= 0n) ?? [];
  return shown.length > 0 && shown.every((e) => e.mediaTime > 0n);
}
