/**
 * Cuts a byte stream into fixed-size records (one decoded frame, one audio
 * chunk) held in a small pool of reused buffers. When every buffer is taken
 * the source is paused, the OS buffer fills and ffmpeg blocks: memory depends
 * on the frame size and the pool size, never on the clip length.
 *
 * Two sources. A socket (socket-channel.ts) is read with Node's `onread`:
 * the kernel copies straight into the frame buffer, with no chunk Buffer and
 * no second copy (about 0.2 s of CPU less per 8 s clip at 1344x768, see
 * docs/media.md). Any other Readable (a plain pipe) is read from 'data'
 * events and copied.
 *
 * Readers of one process form a group. One ffmpeg writing two outputs
 * (planes and rgb24) may run a few frames ahead on one before the other; if
 * we paused that one while waiting on the other, ffmpeg would block on it and
 * never write what we wait for. So while any reader of a group is starved,
 * its siblings may take extra buffers; the extra goes away as soon as the
 * wait ends. The skew is bounded by ffmpeg's own buffering.
 */
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { FidelityError } from '../errors.js';

export class ReaderGroup {
  readonly readers: FrameReader[] = [];
  starving = 0;
}

interface Waiter {
  resolve(record: Uint8Array | null): void;
  reject(error: Error): void;
}

/**
 * Where a reader's record buffers come from, when not from fresh arrays of its own: a pool of
 * buffers in other memory (the metric kernels', pool/frame-memory.ts), which hands out fresh
 * arrays once it has none left.
 */
export interface RecordBuffers {
  /** A buffer of the reader's record size. */
  take(): Uint8Array;
  /** A buffer the reader no longer keeps. */
  give(buffer: Uint8Array): void;
  /** Whether `buffer` is one of the pool's (so a whole record, not a part of one). */
  owns(buffer: Uint8Array): boolean;
}

export interface FrameReaderOptions {
  /** Complete records that may wait for the consumer (besides the one it holds and the one filling). */
  capacity: number;
  /** Where the record buffers come from (default: fresh arrays). */
  buffers?: RecordBuffers;
  /** Accept a shorter last record (audio); otherwise a partial record at the end is an error. */
  allowPartialLast?: boolean;
  group?: ReaderGroup;
  /** For messages. */
  label: string;
}

/** The `onread` option of net.connect(): where the next read lands, and what arrived. */
export interface OnRead {
  buffer: () => Uint8Array;
  callback: (bytes: number, buffer: Uint8Array) => boolean;
}

/** Where a read lands when no frame buffer is free: only the first read after a pause. */
const SCRATCH_BYTES = 64 * 1024;

export class FrameReader {
  readonly recordBytes: number;
  readonly #options: FrameReaderOptions;
  readonly #group: ReaderGroup | undefined;
  #source: { pause(): void; resume(): void } | null = null;
  #paused = false;
  readonly #ready: Uint8Array[] = [];
  readonly #free: Uint8Array[] = [];
  #allocated = 0;
  #fill: Uint8Array | null = null;
  #filled = 0;
  /**
   * Bytes that arrived when no buffer was free. Usually the rest of one
   * chunk; more only when someone else resumed the stream (Node's
   * child_process resumes every stdio stream once the process exits).
   */
  readonly #pending: Buffer[] = [];
  #scratch: Uint8Array | null = null;
  /** Where the part of a scratch read that fits no frame buffer waits (reused: no garbage per pause). */
  #parked: Buffer | null = null;
  #waiter: Waiter | null = null;
  /** The source has no more bytes. */
  #sourceEnded = false;
  /** ...and every byte has been cut into records: next() answers null from now on. */
  #ended = false;
  #error: Error | null = null;
  /** Records handed out so far. */
  #delivered = 0;
  #peakAllocated = 0;

  constructor(recordBytes: number, options: FrameReaderOptions) {
    if (!Number.isInteger(recordBytes) || recordBytes <= 0) throw new FidelityError('INTERNAL', `Bad record size ${recordBytes}`);
    this.recordBytes = recordBytes;
    this.#options = options;
    this.#group = options.group;
    this.#group?.readers.push(this);
  }

  /** Reads a Readable's 'data' events (copying each chunk into the records). */
  static fromStream(stream: Readable, recordBytes: number, options: FrameReaderOptions): FrameReader {
    const reader = new FrameReader(recordBytes, options);
    reader.#source = stream;
    stream.on('data', (chunk: Buffer) => reader.#onData(chunk));
    reader.#watchEnd(stream);
    return reader;
  }

  /** The `onread` option for the socket this reader will read (pass it to net.connect, then attachSocket). */
  onRead(): OnRead {
    return {
      buffer: () => this.#readTarget(),
      callback: (bytes, buffer) => this.#onRead(bytes, buffer),
    };
  }

  attachSocket(socket: Socket): void {
    this.#source = socket;
    this.#watchEnd(socket);
    if (this.#paused) socket.pause();
  }

  /** The most buffers this reader ever held at once (for tests of bounded memory). */
  get peakBuffers(): number {
    return this.#peakAllocated;
  }

  get delivered(): number {
    return this.#delivered;
  }

  /** The next record, or null at the end of the stream. Only one call may be waiting at a time. */
  next(): Promise<Uint8Array | null> {
    if (this.#error) return Promise.reject(this.#error);
    const record = this.#ready.shift();
    if (record) {
      this.#delivered++;
      return Promise.resolve(record);
    }
    if (this.#ended) return Promise.resolve(null);
    if (this.#waiter) return Promise.reject(new FidelityError('INTERNAL', `${this.#options.label}: next() called while a read is pending`));
    return new Promise<Uint8Array | null>((resolve, reject) => {
      this.#waiter = { resolve, reject };
      this.#setStarving(true);
    });
  }

  /** Gives a record back for reuse; the caller must not touch it afterwards. */
  release(record: Uint8Array): void {
    // Only whole records of this reader's (a shorter last record is a part of one, and stays out).
    if (record.byteLength !== this.recordBytes || !(record.byteOffset === 0 || this.#options.buffers?.owns(record))) return;
    if (this.#allocated > this.#limit()) {
      // Extra buffers from a starved sibling's wait are dropped, not kept.
      this.#allocated--;
      this.#options.buffers?.give(record);
    } else {
      this.#free.push(record);
    }
    this.#unblock();
  }

  #watchEnd(stream: Readable): void {
    stream.on('end', () => this.#onSourceEnd());
    stream.on('error', (error: Error) => this.#fail(error));
    // The 'close' of a killed process's pipe may come without 'end'.
    stream.on('close', () => this.#onSourceEnd());
  }

  #limit(): number {
    // One held by the consumer, `capacity` waiting, one filling.
    return this.#group && this.#group.starving > 0 ? Number.POSITIVE_INFINITY : this.#options.capacity + 2;
  }

  #setStarving(on: boolean): void {
    if (!this.#group) return;
    this.#group.starving += on ? 1 : -1;
    if (on) for (const sibling of this.#group.readers) if (sibling !== this) sibling.#unblock();
  }

  #takeBuffer(): Uint8Array | null {
    const reused = this.#free.pop();
    if (reused) return reused;
    if (this.#allocated >= this.#limit()) return null;
    this.#allocated++;
    this.#peakAllocated = Math.max(this.#peakAllocated, this.#allocated);
    return this.#options.buffers?.take() ?? new Uint8Array(this.recordBytes);
  }

  #pause(): void {
    this.#paused = true;
    this.#source?.pause();
  }

  /** A buffer may have come free: place parked bytes, then let the source flow again. */
  #unblock(): void {
    while (this.#pending.length > 0) {
      const rest = this.#consume(this.#pending[0]!);
      if (rest) {
        this.#pending[0] = rest;
        return;
      }
      this.#pending.shift();
    }
    if (this.#sourceEnded) {
      this.#finish();
      return;
    }
    if (!this.#paused) return;
    if (!this.#fill) this.#fill = this.#takeBuffer();
    if (!this.#fill) return;
    this.#paused = false;
    this.#source?.resume();
  }

  #onData(chunk: Buffer): void {
    if (this.#error) return;
    if (this.#pending.length > 0) {
      this.#pending.push(chunk);
      this.#pause();
      return;
    }
    const rest = this.#consume(chunk);
    if (rest) {
      this.#pending.push(rest);
      this.#pause();
    }
  }

  /** Where the socket's next read goes: straight into the frame being filled when there is one. */
  #readTarget(): Uint8Array {
    if (this.#pending.length === 0) {
      if (!this.#fill) this.#fill = this.#takeBuffer();
      if (this.#fill) return this.#fill.subarray(this.#filled);
    }
    this.#scratch ??= new Uint8Array(SCRATCH_BYTES);
    return this.#scratch;
  }

  /** A socket read of `bytes` into `buffer` (what #readTarget returned last). false pauses the socket. */
  #onRead(bytes: number, buffer: Uint8Array): boolean {
    if (this.#error) return false;
    if (buffer === this.#scratch) {
      const view = Buffer.from(buffer.buffer, buffer.byteOffset, bytes);
      const rest = this.#pending.length > 0 ? view : this.#consume(view);
      if (rest) {
        // The scratch is reused by the next read: what must wait is copied aside. The socket is paused
        // from now until the pending bytes are placed, so one parking buffer is enough.
        this.#parked ??= Buffer.allocUnsafeSlow(SCRATCH_BYTES);
        if (this.#pending.length > 0) {
          this.#pending.push(Buffer.from(rest));
        } else {
          rest.copy(this.#parked);
          this.#pending.push(this.#parked.subarray(0, rest.length));
        }
        this.#pause();
      }
    } else {
      this.#filled += bytes;
      if (this.#filled === this.recordBytes) {
        this.#push(this.#fill!);
        this.#fill = this.#takeBuffer();
        this.#filled = 0;
        if (!this.#fill) this.#paused = true;
      }
    }
    return !this.#paused;
  }

  /** Copies as much of the chunk as free buffers allow; returns what did not fit. */
  #consume(chunk: Buffer): Buffer | null {
    let offset = 0;
    while (offset < chunk.length) {
      if (!this.#fill) {
        this.#fill = this.#takeBuffer();
        if (!this.#fill) return chunk.subarray(offset);
      }
      const n = Math.min(this.recordBytes - this.#filled, chunk.length - offset);
      this.#fill.set(chunk.subarray(offset, offset + n), this.#filled);
      this.#filled += n;
      offset += n;
      if (this.#filled === this.recordBytes) {
        this.#push(this.#fill);
        this.#fill = null;
        this.#filled = 0;
      }
    }
    return null;
  }

  #push(record: Uint8Array): void {
    const waiter = this.#waiter;
    if (waiter) {
      this.#waiter = null;
      this.#setStarving(false);
      this.#delivered++;
      waiter.resolve(record);
    } else {
      this.#ready.push(record);
    }
  }

  #onSourceEnd(): void {
    this.#sourceEnded = true;
    // Bytes still parked wait for a free buffer; the end counts once they are in.
    if (this.#pending.length === 0) this.#finish();
  }

  #finish(): void {
    if (this.#ended || this.#error) return;
    this.#ended = true;
    if (this.#filled > 0 && this.#fill) {
      if (this.#options.allowPartialLast) {
        this.#push(this.#fill.subarray(0, this.#filled));
      } else {
        this.#fail(new FidelityError('UNDECODABLE', `${this.#options.label}: the stream ended inside a frame (${this.#filled} of ${this.recordBytes} bytes)`));
        return;
      }
      this.#fill = null;
      this.#filled = 0;
    }
    const waiter = this.#waiter;
    if (waiter) {
      this.#waiter = null;
      this.#setStarving(false);
      waiter.resolve(null);
    }
  }

  #fail(error: Error): void {
    if (this.#error) return;
    this.#error = error;
    const waiter = this.#waiter;
    if (waiter) {
      this.#waiter = null;
      this.#setStarving(false);
      waiter.reject(error);
    }
  }
}
