/**
 * Sits between gunzip and tar-stream and walks the tar's 512-byte blocks on
 * its own: it ends the stream at the end-of-archive marker (two zero blocks,
 * where GNU tar stops too), so whatever follows (gigabytes of zeros, a
 * second archive, garbage) is never inflated; and it refuses a stream that
 * inflates past the byte limit or faster than the ratio limit allows.
 *
 * tar-stream itself skips zero blocks and reads to the end of the file, and
 * offers no way to learn where the marker was: hence this walker. Where it
 * cannot make sense of a header it stops judging and passes bytes through
 * unchanged, leaving the error to tar-stream.
 */
import { Transform, type TransformCallback } from 'node:stream';
import { RATIO_FLOOR_BYTES } from './limits.js';
import { ReaderRefusal } from './source.js';
import type { ArchiveLimits } from './types.js';

const BLOCK = 512;
/** tar-stream refuses longer pax / long-name headers; a walker reading more would only disagree with it. */
const MAX_META_BYTES = 1024 * 1024;
const MiB = 1024 * 1024;

export class TarGate extends Transform {
  /** Inflated bytes seen so far. */
  inflated = 0;
  /** True once the end-of-archive marker has passed. */
  ended = false;
  private head: Buffer[] = [];
  private headBytes = 0;
  /** Bytes of entry data (with padding) still to pass before the next header. */
  private skip = 0;
  private zeroBlocks = 0;
  /** Collects the data of a pax header, whose `size=` record overrides the next header's size. */
  private meta: { kind: 'x' | 'g'; chunks: Buffer[]; left: number; padding: number } | null = null;
  private paxSize: number | null = null;
  private paxGlobalSize: number | null = null;
  /** Set when a header made no sense: stop judging structure, let tar-stream report it. */
  private blind = false;
  /** Inflated bytes before the current chunk, for messages. */
  private offset = 0;
  private refusal: ReaderRefusal | null = null;

  constructor(
    private readonly limits: Pick<ArchiveLimits, 'maxDecompressedBytes' | 'maxCompressionRatio'>,
    private readonly compressedBytes: () => number,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    if (this.ended) return done();
    this.offset = this.inflated;
    this.inflated += chunk.length;
    const limitError = this.checkLimits();
    if (limitError) return done(limitError);
    const end = this.blind ? -1 : this.walk(chunk);
    if (this.refusal) return done(this.refusal);
    if (end >= 0) {
      this.ended = true;
      if (end > 0) this.push(chunk.subarray(0, end));
      this.push(null);
      this.emit('end-of-archive');
      return done();
    }
    done(null, chunk);
  }

  private checkLimits(): ReaderRefusal | null {
    const { maxDecompressedBytes: most, maxCompressionRatio: ratio } = this.limits;
    if (this.inflated > most) {
      return new ReaderRefusal('LIMIT_DECOMPRESSED_SIZE', `the tar.gz inflates to more than ${(most / MiB).toFixed(1)} MiB (limit maxDecompressedBytes)`);
    }
    const packed = this.compressedBytes();
    if (this.inflated > RATIO_FLOOR_BYTES && packed > 0 && this.inflated > ratio * packed) {
      return new ReaderRefusal(
        'LIMIT_COMPRESSION_RATIO',
        `the tar.gz inflated ${packed} bytes into ${this.inflated}, more than ${ratio} times (limit maxCompressionRatio); this is how a decompression bomb looks`,
      );
    }
    return null;
  }

  /** Returns the offset just past the end-of-archive marker within this chunk, or -1. */
  private walk(chunk: Buffer): number {
    let at = 0;
    while (at < chunk.length) {
      if (this.skip > 0) {
        const n = Math.min(this.skip, chunk.length - at);
        if (this.meta) this.collectMeta(chunk.subarray(at, at + n));
        this.skip -= n;
        at += n;
        continue;
      }
      const n = Math.min(BLOCK - this.headBytes, chunk.length - at);
      this.head.push(chunk.subarray(at, at + n));
      this.headBytes += n;
      at += n;
      if (this.headBytes < BLOCK) break;
      const block = Buffer.concat(this.head);
      this.head = [];
      this.headBytes = 0;
      if (isZero(block)) {
        this.zeroBlocks += 1;
        if (this.zeroBlocks === 2) return at;
        continue;
      }
      if (this.zeroBlocks === 1) {
        // GNU tar stops at a lone zero block ("A lone zero block at N"); tar-stream goes on. Which files are in the archive would depend on the reader.
        this.refusal = new ReaderRefusal(
          'ARCHIVE_UNREADABLE',
          `the tar has a lone zero block followed by more entries (at byte ${this.offset + at - 2 * BLOCK}): GNU tar stops there, other readers go on, so which files it holds is ambiguous`,
        );
        return -1;
      }
      this.zeroBlocks = 0;
      if (!this.header(block)) {
        this.blind = true;
        return -1;
      }
    }
    return -1;
  }

  /** Reads one header: how many data bytes follow it. False when it is not a header tar-stream would accept. */
  private header(block: Buffer): boolean {
    let size = decodeSize(block);
    if (size === null || !checksumOk(block)) return false;
    const flag = block[156]!;
    const type = flag === 0 ? '0' : String.fromCharCode(flag);
    if (type === 'x' || type === 'g') {
      if (size > MAX_META_BYTES) return false;
      this.meta = { kind: type, chunks: [], left: size, padding: 0 };
      this.skip = padded(size);
      if (size === 0) this.finishMeta();
      return true;
    }
    if (type === 'L' || type === 'K') {
      if (size > MAX_META_BYTES) return false;
      this.skip = padded(size);
      return true;
    }
    // A pax `size=` (files over 8 GiB) replaces the header's, as tar-stream applies it.
    if (this.paxSize !== null) size = this.paxSize;
    this.paxSize = null;
    const nameEnd = block.indexOf(0, 0);
    const name = block.subarray(0, nameEnd < 0 || nameEnd > 100 ? 100 : nameEnd).toString('latin1');
    // tar-stream reads no data after a folder header, whatever its size field says; old tars mark folders with a trailing "/".
    const folder = type === '5' || (type === '0' && name.endsWith('/'));
    this.skip = folder ? 0 : padded(size);
    return true;
  }

  private collectMeta(part: Buffer): void {
    const meta = this.meta!;
    const take = Math.min(meta.left, part.length);
    if (take > 0) meta.chunks.push(part.subarray(0, take));
    meta.left -= take;
    if (meta.left === 0 && this.skip - part.length <= 0) this.finishMeta();
  }

  private finishMeta(): void {
    const meta = this.meta!;
    this.meta = null;
    const size = paxSize(Buffer.concat(meta.chunks));
    if (meta.kind === 'g') this.paxGlobalSize = size;
    else this.paxSize = size ?? this.paxGlobalSize;
  }
}

function padded(size: number): number {
  return Math.ceil(size / BLOCK) * BLOCK;
}

function isZero(block: Buffer): boolean {
  for (let i = 0; i < block.length; i++) if (block[i] !== 0) return false;
  return true;
}

/** The header checksum: the byte sum with the checksum field read as spaces. */
function checksumOk(block: Buffer): boolean {
  let sum = 8 * 32;
  for (let i = 0; i < BLOCK; i++) if (i < 148 || i >= 156) sum += block[i]!;
  const field = block.subarray(148, 156).toString('latin1').replace(/[\0 ]+$/, '').trim();
  return /^[0-7]+$/.test(field) && parseInt(field, 8) === sum;
}

/** Octal, or GNU base-256 when the top bit of the first byte is set. */
function decodeSize(block: Buffer): number | null {
  const field = block.subarray(124, 136);
  if (field[0]! & 0x80) {
    if (field[0] === 0xff) return null;
    let n = field[0]! & 0x7f;
    for (let i = 1; i < field.length; i++) n = n * 256 + field[i]!;
    return Number.isSafeInteger(n) ? n : null;
  }
  const text = field.toString('latin1').replace(/\0.*$/s, '').trim();
  if (text === '') return 0;
  if (!/^[0-7]+$/.test(text)) return null;
  return parseInt(text, 8);
}

/** The `size` record of pax data ("<len> size=<n>\n" records), null when absent or not a number. */
function paxSize(data: Buffer): number | null {
  const text = data.toString('utf8');
  const match = /(?:^|\n)\d+ size=(\d+)\n/.exec(text);
  if (!match) return null;
  const n = Number(match[1]);
  return Number.isSafeInteger(n) ? n : null;
}
