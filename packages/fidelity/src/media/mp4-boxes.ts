/**
 * Bounded reading of ISO BMFF (MP4 / QuickTime) boxes: the file's top-level
 * boxes by their headers alone (an mdat of many GB is never read), the moov
 * box into memory up to a size cap, and the boxes inside it with a nesting
 * cap. Every box must lie inside its parent and the file; anything else ends
 * the walk with a reason, never an exception, an allocation sized by the file
 * or a loop the file can make endless.
 */
import type { FileHandle } from 'node:fs/promises';

/** One box: its four-character type and where its payload starts and the box ends, within the buffer. */
export interface Box {
  type: string;
  start: number;
  end: number;
}

/** The deepest box nesting read; real files nest eight or nine deep. */
export const MAX_BOX_DEPTH = 16;

/** The most boxes read directly inside one parent; a real moov holds a handful, a sample entry a few. */
export const MAX_CHILDREN = 65_536;

/** A box header that does not fit its parent: the reason, for "not mine" answers. */
export class BoxError extends Error {}

/**
 * The boxes directly inside `[from, to)` of `buf`. A header that claims more
 * than its parent holds, or less than a header, is a BoxError.
 */
export function* boxes(buf: Buffer, from: number, to: number): Generator<Box> {
  let at = from;
  let count = 0;
  while (at < to) {
    if (++count > MAX_CHILDREN) throw new BoxError(`more than ${MAX_CHILDREN} boxes in one parent`);
    if (at + 8 > to) throw new BoxError(`a box header at ${at} runs past its parent`);
    let size = buf.readUInt32BE(at);
    const type = buf.toString('latin1', at + 4, at + 8);
    let header = 8;
    if (size === 1) {
      if (at + 16 > to) throw new BoxError(`the large size of ${type} runs past its parent`);
      const large = buf.readBigUInt64BE(at + 8);
      size = large > BigInt(to - at) ? Number.MAX_SAFE_INTEGER : Number(large);
      header = 16;
    } else if (size === 0) {
      size = to - at;
    }
    if (size < header || at + size > to) throw new BoxError(`box ${JSON.stringify(type)} of ${size} bytes at ${at} does not fit its parent`);
    yield { type, start: at + header, end: at + size };
    at += size;
  }
}

/** The first child of `parent` of this type. */
export function child(buf: Buffer, parent: Box, type: string): Box | undefined {
  for (const box of boxes(buf, parent.start, parent.end)) if (box.type === type) return box;
  return undefined;
}

/** Every child of `parent` of this type. */
export function children(buf: Buffer, parent: Box, type: string): Box[] {
  return [...boxes(buf, parent.start, parent.end)].filter((b) => b.type === type);
}

/** Follows a path of child types from `parent`; undefined where one is missing. */
export function descend(buf: Buffer, parent: Box, types: readonly string[]): Box | undefined {
  let box: Box | undefined = parent;
  for (const type of types) box = box && child(buf, box, type);
  return box;
}

/** Checks that every box under `root` parses and none nests deeper than MAX_BOX_DEPTH (containers only: `isContainer`). */
export function checkNesting(buf: Buffer, root: Box, isContainer: (type: string) => boolean, depth = 0): void {
  if (depth > MAX_BOX_DEPTH) throw new BoxError(`boxes nest deeper than ${MAX_BOX_DEPTH}`);
  for (const box of boxes(buf, root.start, root.end)) if (isContainer(box.type)) checkNesting(buf, box, isContainer, depth + 1);
}

/** A top-level box of the file: type, offset and size (the payload is not read). */
export interface TopBox {
  type: string;
  at: number;
  size: number;
  header: number;
}

/** The most top-level boxes walked; a real file has a handful. */
const MAX_TOP_BOXES = 4096;

async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  const { bytesRead } = await handle.read(buf, 0, length, position);
  return buf.subarray(0, bytesRead);
}

/** The file's top-level boxes, by their headers; a BoxError when one runs past the file's end. */
export async function topLevelBoxes(handle: FileHandle, fileSize: number): Promise<TopBox[]> {
  const out: TopBox[] = [];
  let at = 0;
  while (at < fileSize) {
    if (out.length >= MAX_TOP_BOXES) throw new BoxError(`more than ${MAX_TOP_BOXES} top-level boxes`);
    const head = await readAt(handle, at, 16);
    if (head.length < 8) throw new BoxError(`a box header at ${at} runs past the end of the file`);
    let size = head.readUInt32BE(0);
    const type = head.toString('latin1', 4, 8);
    let header = 8;
    if (size === 1) {
      if (head.length < 16) throw new BoxError(`the large size of ${type} runs past the end of the file`);
      const large = head.readBigUInt64BE(8);
      size = large > BigInt(fileSize - at) ? Number.MAX_SAFE_INTEGER : Number(large);
      header = 16;
    } else if (size === 0) {
      size = fileSize - at;
    }
    if (size < header || at + size > fileSize) throw new BoxError(`top-level box ${JSON.stringify(type)} of ${size} bytes at ${at} runs past the end of the file`);
    out.push({ type, at, size, header });
    at += size;
  }
  return out;
}

/** The payload of one top-level box, read into memory (the caller caps its size first). */
export async function readPayload(handle: FileHandle, box: TopBox): Promise<Buffer> {
  return readAt(handle, box.at + box.header, box.size - box.header);
}

/** Reads MP4 bit fields, most significant bit first, with Exp-Golomb codes; reading past the end is a BoxError. */
export class BitReader {
  #bit = 0;
  constructor(private readonly bytes: Uint8Array) {}

  get left(): number {
    return this.bytes.length * 8 - this.#bit;
  }

  u(n: number): number {
    if (n > this.left) throw new BoxError('a bit field runs past its data');
    let v = 0;
    for (let i = 0; i < n; i++, this.#bit++) v = v * 2 + ((this.bytes[this.#bit >> 3]! >> (7 - (this.#bit & 7))) & 1);
    return v;
  }

  /** Unsigned Exp-Golomb (at most 31 leading zeros). */
  ue(): number {
    let zeros = 0;
    while (this.u(1) === 0) if (++zeros > 31) throw new BoxError('an Exp-Golomb code is too long');
    return 2 ** zeros - 1 + this.u(zeros);
  }

  /** Signed Exp-Golomb. */
  se(): number {
    const k = this.ue();
    return k % 2 === 1 ? (k + 1) / 2 : -(k / 2);
  }
}

/** A NAL unit's payload without its emulation prevention bytes (00 00 03). */
export function unescapeNal(nal: Uint8Array): Uint8Array {
  const out = new Uint8Array(nal.length);
  let n = 0;
  let zeros = 0;
  for (const byte of nal) {
    if (zeros >= 2 && byte === 3) {
      zeros = 0;
      continue;
    }
    zeros = byte === 0 ? zeros + 1 : 0;
    out[n++] = byte;
  }
  return out.subarray(0, n);
}
