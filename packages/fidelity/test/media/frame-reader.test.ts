import { PassThrough } from 'node:stream';
import type { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { FrameReader, ReaderGroup } from '../../src/media/frame-reader.js';

const FRAME = 10_000;

function frame(n: number): Buffer {
  return Buffer.alloc(FRAME, n & 0xff);
}

/** Writes like a blocked process: waits for 'drain' whenever the reader side is full. */
async function write(stream: Writable, chunk: Buffer): Promise<void> {
  // Odd-sized slices, so records straddle chunks.
  for (let at = 0; at < chunk.length; at += 3001) {
    if (!stream.write(chunk.subarray(at, at + 3001))) await new Promise((resolve) => stream.once('drain', resolve));
  }
}

function pipe(): PassThrough {
  return new PassThrough({ highWaterMark: 4096 });
}

describe('FrameReader', () => {
  it('cuts a stream into whole records and ends with null', async () => {
    const stream = pipe();
    const reader = FrameReader.fromStream(stream, FRAME, { capacity: 1, label: 't' });
    const writer = (async () => {
      for (let i = 0; i < 20; i++) await write(stream, frame(i));
      stream.end();
    })();
    const seen: number[] = [];
    for (let r = await reader.next(); r; r = await reader.next()) {
      expect(r.length).toBe(FRAME);
      expect(r.every((b) => b === r[0])).toBe(true);
      seen.push(r[0]!);
      reader.release(r);
    }
    await writer;
    expect(seen).toEqual([...Array(20).keys()]);
  });

  it('holds a fixed number of buffers, however long the stream (back-pressure)', async () => {
    for (const frames of [10, 200]) {
      const stream = pipe();
      const reader = FrameReader.fromStream(stream, FRAME, { capacity: 2, label: 't' });
      const writer = (async () => {
        for (let i = 0; i < frames; i++) await write(stream, frame(i));
        stream.end();
      })();
      let n = 0;
      for (let r = await reader.next(); r; r = await reader.next()) {
        // A slow consumer: the writer is always ahead and must be held back.
        await new Promise((resolve) => setImmediate(resolve));
        reader.release(r);
        n++;
      }
      await writer;
      expect(n).toBe(frames);
      expect(reader.peakBuffers).toBeLessThanOrEqual(4);
    }
  });

  it('fails on a record cut short, unless a short last record is allowed', async () => {
    const strict = pipe();
    const r1 = FrameReader.fromStream(strict, FRAME, { capacity: 1, label: 'strict' });
    strict.end(Buffer.alloc(FRAME + 10));
    const first = await r1.next();
    expect(first?.length).toBe(FRAME);
    await expect(r1.next()).rejects.toMatchObject({ code: 'UNDECODABLE', message: /ended inside a frame/ });

    const loose = pipe();
    const r2 = FrameReader.fromStream(loose, FRAME, { capacity: 1, allowPartialLast: true, label: 'loose' });
    loose.end(Buffer.alloc(FRAME + 10));
    expect((await r2.next())?.length).toBe(FRAME);
    expect((await r2.next())?.length).toBe(10);
    expect(await r2.next()).toBeNull();
  });

  it('does not deadlock when one process runs ahead on one of its two pipes', async () => {
    // Like ffmpeg writing fd 3 and fd 4: five frames on A before the matching frame on B.
    const a = pipe();
    const b = pipe();
    const group = new ReaderGroup();
    const ra = FrameReader.fromStream(a, FRAME, { capacity: 1, group, label: 'a' });
    const rb = FrameReader.fromStream(b, FRAME, { capacity: 1, group, label: 'b' });
    const total = 40;
    const skew = 5;
    const writer = (async () => {
      for (let i = 0; i < total; i += skew) {
        for (let j = i; j < i + skew; j++) await write(a, frame(j));
        for (let j = i; j < i + skew; j++) await write(b, frame(j));
      }
      a.end();
      b.end();
    })();
    let n = 0;
    for (;;) {
      const [x, y] = await Promise.all([ra.next(), rb.next()]);
      if (!x || !y) break;
      expect(x[0]).toBe(y[0]);
      ra.release(x);
      rb.release(y);
      n++;
    }
    await writer;
    expect(n).toBe(total);
    // The extra buffers are bounded by the skew, not by the stream length.
    expect(ra.peakBuffers).toBeLessThanOrEqual(skew + 3);
  });
});
