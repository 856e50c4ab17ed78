import { writeFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeMedia } from '../../src/media/probe.js';
import type { ProbeTools } from '../../src/media/probe.js';
import { ProcessScope } from '../../src/media/process.js';
import { ClipFactory, ffmpegPath, ffprobePath } from './clips.js';

const clips = new ClipFactory();
let tools: ProbeTools;
beforeAll(async () => {
  tools = { ffmpeg: await ffmpegPath(), ffprobe: await ffprobePath(), timeoutMs: 60_000 };
});
afterAll(() => clips.remove());

async function probe(file: string) {
  const scope = new ProcessScope();
  try {
    return await probeMedia(scope, tools, file, 'baseline');
  } finally {
    await scope.close();
  }
}

describe('probeMedia', () => {
  it('reads geometry, every frame timestamp and the audio layout in one ffprobe run; the sample count and start are left to the decode', async () => {
    const file = await clips.make({ frames: 24, audio: { sampleRate: 32000, channels: 2, seconds: 1 } });
    const p = await probe(file);
    expect(p.video).toMatchObject({ width: 128, height: 72, pixFmt: 'yuv420p', frames: 24, codec: 'h264' });
    expect(p.video?.geometry).toMatchObject({ chromaWidth: 64, chromaHeight: 36, yuvBytes: 128 * 72 * 1.5, rgbBytes: 128 * 72 * 3 });
    const { num, den } = p.video!.timeBase;
    const seconds = p.video!.pts.map((t) => (t * num) / den);
    // 24 fps: frame i at i/24 s, ascending, one per frame.
    seconds.forEach((s, i) => expect(s).toBeCloseTo(i / 24, 6));
    expect(p.audio).toMatchObject({ sampleRate: 32000, channels: 2, codec: 'aac', samples: null, startPts: null, listedPcmSamples: null });
    expect(p.sizeBytes).toBeGreaterThan(0);
  });

  it('reports no audio when there is none', async () => {
    const p = await probe(await clips.make({ audio: null }));
    expect(p.audio).toBeNull();
  });

  it('gives 8-bit planar YUV formats their chroma geometry and others none', async () => {
    const p444 = await probe(await clips.make({ pixFmt: 'yuv444p', audio: null }));
    expect(p444.video?.geometry).toMatchObject({ chromaWidth: 128, chromaHeight: 72 });
    const p10 = await probe(await clips.make({ codec: 'ffv1', pixFmt: 'yuv420p10le', ext: 'mkv', audio: null }));
    expect(p10.video?.pixFmt).toBe('yuv420p10le');
    expect(p10.video?.geometry).toBeNull();
  });

  it('refuses garbage bytes and a truncated MP4 as UNDECODABLE, with ffprobe saying why', async () => {
    const garbage = path.join(clips.dir, 'garbage.mp4');
    writeFileSync(garbage, Buffer.alloc(4096, 0x5a));
    await expect(probe(garbage)).rejects.toMatchObject({ code: 'UNDECODABLE', message: expect.stringMatching(/ffprobe .*exited with code/) });
    // The moov box of a plain (not faststart) MP4 is at the end: cutting the tail loses the index.
    const whole = readFileSync(await clips.make());
    const truncated = path.join(clips.dir, 'truncated.mp4');
    writeFileSync(truncated, whole.subarray(0, Math.floor(whole.length * 0.6)));
    await expect(probe(truncated)).rejects.toMatchObject({ code: 'UNDECODABLE' });
  });

  it('refuses a file with no video stream as NO_VIDEO_STREAM', async () => {
    const file = path.join(clips.dir, 'audio-only.m4a');
    const { execFile } = await import('node:child_process');
    await new Promise<void>((resolve, reject) =>
      execFile(tools.ffmpeg, ['-v', 'error', '-f', 'lavfi', '-i', 'sine=duration=0.5', '-c:a', 'aac', file], (e) => (e ? reject(e) : resolve())),
    );
    await expect(probe(file)).rejects.toMatchObject({ code: 'NO_VIDEO_STREAM' });
  });

  it('kills ffprobe at its time limit: DECODE_TIMEOUT', async () => {
    const slow = path.join(clips.dir, 'slow-ffprobe.sh');
    writeFileSync(slow, '#!/bin/sh\nexec sleep 30\n', { mode: 0o755 });
    const scope = new ProcessScope();
    const started = Date.now();
    await expect(probeMedia(scope, { ...tools, ffprobe: slow, timeoutMs: 300, containerReader: 'ffprobe' }, await clips.make(), 'candidate')).rejects.toMatchObject({
      code: 'DECODE_TIMEOUT',
    });
    await scope.close();
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
