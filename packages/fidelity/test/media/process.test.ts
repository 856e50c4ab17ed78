/**
 * ProcessScope and the extraction side path (media/frames.ts) under time
 * limits and aborts, with decoders given as wrapper scripts: the whole
 * process group goes, grandchildren included, and every call settles.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { FidelityError } from '../../src/errors.js';
import { extractAudio, extractFrame } from '../../src/media/frames.js';
import { ProcessScope, failedInputs } from '../../src/media/process.js';
import { pidsIn, stillRunningAfter, wrapperDecoder } from './wrapper.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-process-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Rejects when `p` has not settled within `ms`: a hang becomes a failure with a message. */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  return Promise.race([p, limit]).finally(() => clearTimeout(timer));
}

const GRANDCHILD = 'sleep 300 &\necho $! >> "$PIDS"\nwait';

describe('ProcessScope kills the whole process group', () => {
  it('on its time limit: a wrapper script\'s own children die with it', async () => {
    const { file, pids } = wrapperDecoder(tmp, 'timeout-ffmpeg', GRANDCHILD);
    const scope = new ProcessScope();
    try {
      const child = scope.spawn(file, ['-i', 'x'], { label: 'wrapper', pipes: [1], timeoutMs: 500 });
      const exit = await within(child.exited, 10_000, 'the timed-out child');
      expect(exit.reason).toBe('timeout');
    } finally {
      await scope.close();
    }
    const started = pidsIn(pids);
    expect(started).toHaveLength(1);
    expect(await stillRunningAfter(started, 3000)).toEqual([]);
  });

  it('on its time limit when the script itself has exited but left a process holding its output', async () => {
    const { file, pids } = wrapperDecoder(tmp, 'leaver-ffmpeg', 'sleep 300 &\necho $! >> "$PIDS"\nexit 0');
    const scope = new ProcessScope();
    try {
      const child = scope.spawn(file, ['-i', 'x'], { label: 'wrapper', pipes: [1], timeoutMs: 500 });
      const exit = await within(child.exited, 10_000, 'the child whose pipe a grandchild holds');
      expect(exit.reason).toBe('timeout');
    } finally {
      await scope.close();
    }
    expect(await stillRunningAfter(pidsIn(pids), 3000)).toEqual([]);
  });

  it('on abort', async () => {
    const { file, pids } = wrapperDecoder(tmp, 'abort-ffmpeg', GRANDCHILD);
    const controller = new AbortController();
    const scope = new ProcessScope(controller.signal);
    try {
      const child = scope.spawn(file, ['-i', 'x'], { label: 'wrapper', pipes: [1], timeoutMs: 60_000 });
      setTimeout(() => controller.abort(), 400);
      const exit = await within(child.exited, 10_000, 'the aborted child');
      expect(exit.reason).toBe('aborted');
    } finally {
      await scope.close();
    }
    const started = pidsIn(pids);
    expect(started).toHaveLength(1);
    expect(await stillRunningAfter(started, 3000)).toEqual([]);
  });
});

describe('extraction settles when its ffmpeg is killed', () => {
  // Before the fix, the pipes of a killed child emitted only 'close' and these calls never settled.
  // The wrapper never reads it: any real clip path will do.
  const clip = fileURLToPath(new URL('../../../../fixtures/runs/h200/media/measurement-r000-c000.mp4', import.meta.url));

  it('extractFrame on abort', async () => {
    const { file, pids } = wrapperDecoder(tmp, 'slow-frame-ffmpeg', GRANDCHILD);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 400);
    const error = await within(
      extractFrame(clip, 0, { width: 64, height: 48 }, { ffmpeg: { ffmpegPath: file }, signal: controller.signal }).then(
        () => null,
        (e: unknown) => e,
      ),
      10_000,
      'extractFrame',
    );
    expect(error).toBeInstanceOf(FidelityError);
    // A cancel is ABORTED, not a media failure: nothing is wrong with the clip.
    expect((error as FidelityError).code).toBe('ABORTED');
    expect(await stillRunningAfter(pidsIn(pids), 3000)).toEqual([]);
  });

  it('extractAudio on its time limit', async () => {
    const { file, pids } = wrapperDecoder(tmp, 'slow-audio-ffmpeg', GRANDCHILD);
    const error = await within(
      extractAudio(clip, { channels: 1, maxSamples: 100 }, { ffmpeg: { ffmpegPath: file }, timeoutMs: 500 }).then(
        () => null,
        (e: unknown) => e,
      ),
      10_000,
      'extractAudio',
    );
    expect(error).toBeInstanceOf(FidelityError);
    expect((error as FidelityError).message).toMatch(/did not finish within 500 ms/);
    expect(await stillRunningAfter(pidsIn(pids), 3000)).toEqual([]);
  });
});

describe('failedInputs: which files of a process reading several a failure is about', () => {
  const files = ['/runs/a/x.mp4', '/runs/b/x.mp4'];

  it('names the input ffmpeg names by file or by stream index', () => {
    expect(failedInputs('/runs/b/x.mp4: Invalid data found when processing input', files)).toEqual([1]);
    expect(failedInputs('[h264 @ 0x55] error while decoding MB 3 4\nError while decoding stream #0:0: Invalid data found when processing input', files)).toEqual([0]);
    expect(failedInputs('Error while decoding stream #1:0: Invalid data\n/runs/a/x.mp4: End of file', files)).toEqual([0, 1]);
  });

  it('names every input when the messages name none, or when the inputs are one file', () => {
    expect(failedInputs('[h264 @ 0x55] error while decoding MB 3 4', files)).toEqual([0, 1]);
    expect(failedInputs('', files)).toEqual([0, 1]);
    expect(failedInputs('/runs/a/x.mp4: Invalid data', ['/runs/a/x.mp4', '/runs/a/x.mp4'])).toEqual([0, 1]);
    expect(failedInputs('anything', ['/one.mp4'])).toEqual([0]);
  });
});
