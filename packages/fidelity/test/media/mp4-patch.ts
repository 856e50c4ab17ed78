/**
 * Rewrites the boxes of a small MP4 the way another muxer or a hostile
 * producer could: an edit list with a delay, another rate or duration, a
 * display matrix. The samples stay byte for byte what they were, so a pair
 * made this way differs only in what a player is told to do with them.
 * Works on files ffmpeg wrote without faststart (moov after mdat), so growing
 * moov moves no sample offset.
 */
import { readFileSync, writeFileSync } from 'node:fs';

interface Box {
  type: string;
  at: number;
  size: number;
  /** Payload start. */
  start: number;
}

function children(buf: Buffer, start: number, end: number): Box[] {
  const out: Box[] = [];
  for (let at = start; at + 8 <= end; ) {
    const size = buf.readUInt32BE(at);
    if (size < 8) throw new Error(`box at ${at}: 64-bit or open-ended sizes are not handled here`);
    out.push({ type: buf.toString('latin1', at + 4, at + 8), at, size, start: at + 8 });
    at += size;
  }
  return out;
}

function only(buf: Buffer, parent: Box, type: string): Box {
  const box = children(buf, parent.start, parent.at + parent.size).find((b) => b.type === type);
  if (!box) throw new Error(`no ${type} box in ${parent.type}`);
  return box;
}

/** The trak whose handler is `handler` ('vide', 'soun'), with the chain of boxes from moov down to it. */
function track(buf: Buffer, handler: string): { moov: Box; trak: Box } {
  const top = children(buf, 0, buf.length);
  const moov = top.find((b) => b.type === 'moov');
  const mdat = top.find((b) => b.type === 'mdat');
  if (!moov || !mdat || moov.at < mdat.at) throw new Error('expected moov after mdat');
  for (const trak of children(buf, moov.start, moov.at + moov.size)) {
    if (trak.type !== 'trak') continue;
    const hdlr = only(buf, only(buf, trak, 'mdia'), 'hdlr');
    if (buf.toString('latin1', hdlr.start + 8, hdlr.start + 12) === handler) return { moov, trak };
  }
  throw new Error(`no ${handler} track`);
}

function elstOf(buf: Buffer, handler: string): { moov: Box; trak: Box; edts: Box; elst: Box } {
  const { moov, trak } = track(buf, handler);
  const edts = only(buf, trak, 'edts');
  const elst = only(buf, edts, 'elst');
  if (buf[elst.start] !== 0) throw new Error('only version 0 edit lists are handled here');
  return { moov, trak, edts, elst };
}

/** Inserts an empty edit (a delay of `movieTicks` in the movie time scale) before the track's first edit. */
export function delayTrack(input: string, output: string, handler: string, movieTicks: number): void {
  const buf = readFileSync(input);
  const { moov, trak, edts, elst } = elstOf(buf, handler);
  const entry = Buffer.alloc(12);
  entry.writeUInt32BE(movieTicks, 0);
  entry.writeInt32BE(-1, 4);
  entry.writeInt32BE(0x10000, 8);
  const insertAt = elst.start + 8;
  const out = Buffer.concat([buf.subarray(0, insertAt), entry, buf.subarray(insertAt)]);
  for (const box of [moov, trak, edts, elst]) out.writeUInt32BE(box.size + 12, box.at);
  out.writeUInt32BE(buf.readUInt32BE(elst.start + 4) + 1, elst.start + 4);
  writeFileSync(output, out);
}

/** Sets the first edit's duration (movie ticks) and/or rate (16.16 fixed point). */
export function changeEdit(input: string, output: string, handler: string, change: { duration?: number; rate?: number }): void {
  const buf = Buffer.from(readFileSync(input));
  const { elst } = elstOf(buf, handler);
  const first = elst.start + 8;
  if (change.duration !== undefined) buf.writeUInt32BE(change.duration, first);
  if (change.rate !== undefined) buf.writeInt32BE(change.rate, first + 8);
  writeFileSync(output, buf);
}

/** Writes the track header's display matrix (nine int32 in file order: a b u c d v x y w). */
export function setDisplayMatrix(input: string, output: string, handler: string, matrix: number[]): void {
  const buf = Buffer.from(readFileSync(input));
  const { trak } = track(buf, handler);
  const tkhd = only(buf, trak, 'tkhd');
  if (buf[tkhd.start] !== 0) throw new Error('only version 0 track headers are handled here');
  matrix.forEach((value, i) => buf.writeInt32BE(value, tkhd.start + 40 + 4 * i));
  writeFileSync(output, buf);
}

/** A quarter turn: what a phone writes for a portrait recording. */
export const ROTATE_90 = [0, 0x10000, 0, -0x10000, 0, 0, 0, 0, 0x40000000];
