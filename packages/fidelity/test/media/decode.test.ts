import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIO_DECODER_OPTIONS, openAudioDecoder } from '../../src/media/audio-decoder.js';
import { probeMedia } from '../../src/media/probe.js';
import type { MediaProbe, ProbeTools } from '../../src/media/probe.js';
import { ProcessScope } from '../../src/media/process.js';
import { openVideoDecoder, rgb24Filter } from '../../src/media/video-decoder.js';
import { ClipFactory, ffmpegChildren, ffmpegPath, ffprobePath } from './clips.js';

const clips = new ClipFactory();
let tools: ProbeTools;
beforeAll(async () => {
  tools = { ffmpeg: await ffmpegPath(), ffprobe: await ffprobePath(), timeoutMs: 60_000 };
});
afterAll(() => clips.remove());

/** An independent decode of the whole stream, one pix_fmt at a time. */
function ffmpegOutput(args: string[]): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    execFile(tools.ffmpeg, ['-v', 'error', ...args], { encoding: 'buffer', maxBuffer: 1 << 28 }, (e, stdout) => (e ? reject(e) : resolve(stdout))),
  );
}

const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

async function withScope<T>(fn: (scope: ProcessScope) => Promise<T>): Promise<T> {
  const scope = new ProcessScope();
  try {
    return await fn(scope);
  } finally {
    await scope.close();
  }
}

async function probe(scope: ProcessScope, file: string): Promise<MediaProbe> {
  return probeMedia(scope, tools, file, 'baseline');
}

describe('video decoding', () => {
  it('by default runs no swscale and no fd 4 output; rgb24: true adds ffmpeg\'s rgb24 and gives the same planes', async () => {
    const file = await clips.make({ width: 130, height: 74, frames: 12 });
    await withScope(async (scope) => {
      const p = await probe(scope, file);
      const both = await openVideoDecoder(scope, tools, file, 'baseline', p.video!, { rgb24: true });
      const planesOnly = await openVideoDecoder(scope, tools, file, 'baseline', p.video!);
      const args = planesOnly.child.process.spawnargs;
      expect(args).toContain('pipe:3');
      expect(args.join(' ')).not.toMatch(/pipe:4|rgb24|scale|split|filter_complex/);
      // The child has no fd 4 at all, not an unread one.
      expect(planesOnly.child.process.stdio[4] ?? null).toBeNull();
      expect(both.child.process.spawnargs).toContain('pipe:4');
      let frames = 0;
      for (;;) {
        const [x, y] = await Promise.all([both.next(), planesOnly.next()]);
        if (!x || !y) {
          expect(x).toBeNull();
          expect(y).toBeNull();
          break;
        }
        expect(Buffer.from(y.y).equals(Buffer.from(x.y))).toBe(true);
        expect(Buffer.from(y.u).equals(Buffer.from(x.u))).toBe(true);
        expect(Buffer.from(y.v).equals(Buffer.from(x.v))).toBe(true);
        expect(y.rgb?.length).toBe(0);
        expect(x.rgb?.length).toBe(130 * 74 * 3);
        both.release(x);
        planesOnly.release(y);
        frames++;
      }
      await Promise.all([both.finished(), planesOnly.finished()]);
      expect(frames).toBe(12);
      expect(planesOnly.peakBuffers().rgb).toBe(0);
    });
  });

  it('streams every frame as native planes (plus, when asked, ffmpeg\'s rgb24), byte-identical to separate ffmpeg decodes', async () => {
    const file = await clips.make({ width: 130, height: 74, frames: 30 });
    await withScope(async (scope) => {
      const p = await probe(scope, file);
      const decoder = await openVideoDecoder(scope, tools, file, 'baseline', p.video!, { rgb24: true });
      const yuv = createHash('sha256');
      const rgb = createHash('sha256');
      let frames = 0;
      for (let f = await decoder.next(); f; f = await decoder.next()) {
        // Odd size: chroma planes round up.
        expect([f.width, f.height, f.chromaWidth, f.chromaHeight]).toEqual([130, 74, 65, 37]);
        expect([f.y.length, f.u.length, f.v.length, f.rgb?.length]).toEqual([130 * 74, 65 * 37, 65 * 37, 130 * 74 * 3]);
        yuv.update(f.y).update(f.u).update(f.v);
        rgb.update(f.rgb!);
        decoder.release(f);
        frames++;
      }
      await decoder.finished();
      expect(frames).toBe(30);
      expect(yuv.digest('hex')).toBe(sha(await ffmpegOutput(['-i', file, '-f', 'rawvideo', '-pix_fmt', 'yuv420p', '-'])));
      expect(rgb.digest('hex')).toBe(sha(await ffmpegOutput(['-i', file, '-vf', rgb24Filter('yuv420p'), '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'])));
    });
  });

  it('reads yuv444p as it is', async () => {
    const file = await clips.make({ pixFmt: 'yuv444p', frames: 5, audio: null });
    await withScope(async (scope) => {
      const p = await probe(scope, file);
      const decoder = await openVideoDecoder(scope, tools, file, 'baseline', p.video!);
      const f = await decoder.next();
      expect([f?.chromaWidth, f?.chromaHeight, f?.u.length]).toEqual([128, 72, 128 * 72]);
      const first = await ffmpegOutput(['-i', file, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'yuv444p', '-']);
      expect(sha(Buffer.concat([f!.y, f!.u, f!.v]))).toBe(sha(first));
    });
  });

  it('keeps memory flat: the same few buffers for a clip ten times longer, with a slow consumer', async () => {
    const peaks: number[] = [];
    for (const frames of [24, 240]) {
      const file = await clips.make({ frames, audio: null });
      await withScope(async (scope) => {
        const p = await probe(scope, file);
        const decoder = await openVideoDecoder(scope, tools, file, 'baseline', p.video!, { capacity: 2 });
        let n = 0;
        for (let f = await decoder.next(); f; f = await decoder.next()) {
          if (n % 8 === 0) await new Promise((resolve) => setTimeout(resolve, 5));
          decoder.release(f);
          n++;
        }
        await decoder.finished();
        expect(n).toBe(frames);
        const peak = decoder.peakBuffers();
        peaks.push(peak.planes + peak.rgb);
      });
    }
    // capacity 2 + one held + one filling per pipe, plus the frames one pipe may run ahead of the other
    // (ffmpeg's own buffering and the kernel's socket buffer: many of these tiny frames, under one full-size
    // frame). Bounded, and not by the clip length: unbounded reading would hold most of the 240 frames.
    expect(peaks[1]).toBeLessThanOrEqual(20);
    expect(peaks[1]! - peaks[0]!).toBeLessThanOrEqual(6);
  });

  it('kills the decoder when the scope closes early, leaving no ffmpeg behind', async () => {
    const file = await clips.make({ frames: 240, audio: null });
    const scope = new ProcessScope();
    const p = await probe(scope, file);
    const decoder = await openVideoDecoder(scope, tools, file, 'baseline', p.video!, { capacity: 1 });
    await decoder.next();
    const pid = decoder.child.pid!;
    expect(await ffmpegChildren()).toContain(pid);
    await scope.close();
    expect(await ffmpegChildren()).not.toContain(pid);
    await expect(decoder.finished()).rejects.toMatchObject({ code: 'ABORTED' });
  });
});

describe('audio decoding', () => {
  it('streams 32-bit float, planar per channel, at the stream rate, every sample', async () => {
    const file = await clips.make({ frames: 24, audio: { sampleRate: 32000, channels: 2, seconds: 1.5 } });
    await withScope(async (scope) => {
      const p = await probe(scope, file);
      const decoder = await openAudioDecoder(scope, tools, file, 'baseline', p.audio!, 4000);
      // The decoder's C code (-cpuflags 0), as the library runs it: the same bits on every CPU.
      const reference = await ffmpegOutput(['-cpuflags', '0', '-i', file, '-map', '0:a', '-f', 'f32le', '-c:a', 'pcm_f32le', '-']);
      const interleaved = new Float32Array(reference.buffer, reference.byteOffset, reference.byteLength / 4);
      let at = 0;
      let chunks = 0;
      for (let c = await decoder.next(); c; c = await decoder.next()) {
        expect(c).toHaveLength(2);
        expect(c[0]!.length).toBe(c[1]!.length);
        for (let i = 0; i < c[0]!.length; i++) {
          if (c[0]![i] !== interleaved[2 * (at + i)] || c[1]![i] !== interleaved[2 * (at + i) + 1]) throw new Error(`sample ${at + i} differs`);
        }
        at += c[0]!.length;
        chunks++;
      }
      await decoder.finished();
      expect(at * 2).toBe(interleaved.length);
      expect(chunks).toBe(Math.ceil(at / 4000));
      // A 440 Hz sine is really there (not silence).
      expect(Math.max(...interleaved.subarray(20000, 24000))).toBeGreaterThan(0.05);
    });
  });

  it('decodes with FFmpeg\'s C code (-cpuflags 0), whose bits do not depend on the CPU\'s features', async () => {
    // Pink noise: every MDCT coefficient matters, so a rounding difference shows.
    const file = path.join(clips.dir, 'noise.mp4');
    await ffmpegOutput(['-y', '-f', 'lavfi', '-i', 'anoisesrc=c=pink:r=32000:d=2,aformat=channel_layouts=stereo', '-c:a', 'aac', '-b:a', '128k', file]);
    const ours = await withScope(async (scope) => {
      const p = await probe(scope, file).catch(() => null);
      // An audio-only file has no video stream for the probe; decode it directly.
      const audio = p?.audio ?? { index: 0, codec: 'aac', sampleRate: 32000, channels: 2, channelLayout: 'stereo', samples: null, timeBase: { num: 1, den: 32000 }, startPts: null, editList: null };
      const decoder = await openAudioDecoder(scope, tools, file, 'baseline', audio);
      const chunks: Float32Array[][] = [];
      for (let c = await decoder.next(); c; c = await decoder.next()) chunks.push(c.map((x) => x.slice()));
      await decoder.finished();
      const n = chunks.reduce((k, c) => k + c[0]!.length, 0);
      const out = new Float32Array(2 * n);
      let at = 0;
      for (const c of chunks) for (let i = 0; i < c[0]!.length; i++, at++) [out[2 * at], out[2 * at + 1]] = [c[0]![i]!, c[1]![i]!];
      return sha(new Uint8Array(out.buffer));
    });
    const decode = (flags: string[]): Promise<string> => ffmpegOutput([...flags, '-i', file, '-map', '0:a', '-c:a', 'pcm_f32le', '-f', 'f32le', '-']).then(sha);
    expect(ours).toBe(await decode(['-cpuflags', '0']));
    expect(AUDIO_DECODER_OPTIONS).toEqual(['-cpuflags', '0']);
  });
});
