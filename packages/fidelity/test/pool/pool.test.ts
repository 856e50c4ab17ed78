import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MeasureProgress } from '../../src/pool/api.js';
import { measurePair } from '../../src/pool/measure-pair.js';
import { createMeasurePool, workerFile } from '../../src/pool/pool.js';
import { workerFilePath } from '../../src/pool/worker-file.js';
import { ClipFactory, ffmpegChildren } from '../media/clips.js';

const clips = new ClipFactory();
let base: string;
let other: string;
let third: string;
let long: string;
/** The same picture encoded coarser: every frame differs, so every kernel runs (a pair of equal frames skips them and ends too soon to overlap). */
let longOther: string;
let garbage: string;
beforeAll(async () => {
  [base, other, third, long, longOther] = await Promise.all([
    clips.make({ frames: 24 }, 'base'),
    clips.make({ frames: 24, crf: 40 }, 'other'),
    clips.make({ frames: 24, start: 3 }, 'third'),
    clips.make({ frames: 240, width: 320, height: 180 }, 'long'),
    clips.make({ frames: 240, width: 320, height: 180, crf: 40 }, 'long-other'),
  ]);
  garbage = path.join(clips.dir, 'garbage.mp4');
  writeFileSync(garbage, Buffer.alloc(8192, 1));
});
afterAll(() => clips.remove());

describe('measure pool', () => {
  it('runs the compiled worker (from dist when running from source)', () => {
    expect(workerFile()).toMatch(/dist[\\/]pool[\\/]worker-entry\.cjs$/);
  });

  it('threads destroyed while they load the worker leave the process running (Node aborts a require() of an ES module cut short)', async () => {
    // Forty pools of two threads, each destroyed 0 to 240 ms after it started: while its threads load
    // the worker's modules, as when a command ends early (a refused run, Ctrl-C). With worker.js as
    // piscina's file, the process died of "FATAL ERROR: v8::Module::IsGraphAsync" within a few rounds.
    const pool = pathToFileURL(workerFilePath('pool.js')).href;
    const script = [
      `import { startPoolThreads } from ${JSON.stringify(pool)};`,
      'for (let i = 0; i < 40; i++) {',
      '  const threads = startPoolThreads(2);',
      '  await new Promise((resolve) => setTimeout(resolve, (i * 37) % 241));',
      '  await threads.destroy();',
      '}',
      "console.log('every pool destroyed');",
    ].join('\n');
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { timeout: 60_000 });
    expect(stdout.trim()).toBe('every pool destroyed');
  }, 90_000);

  it('fails only the corrupt pair of a batch, and gives the same results as measurePair', async () => {
    const pool = createMeasurePool({ threads: 2 });
    try {
      const outcomes = await Promise.all([
        pool.measure({ id: 'a', baseline: base, candidate: other }),
        pool.measure({ id: 'b', baseline: base, candidate: garbage }),
        pool.measure({ id: 'c', baseline: base, candidate: third }),
      ]);
      expect(outcomes.map((o) => o.ok)).toEqual([true, false, true]);
      expect(outcomes[1]).toMatchObject({ ok: false, failure: { code: 'UNDECODABLE' } });
      // The worker's result, moved through the transfer list, is the in-thread result byte for byte.
      expect(JSON.stringify(outcomes[0])).toBe(JSON.stringify(await measurePair(base, other)));
      expect(JSON.stringify(outcomes[2])).toBe(JSON.stringify(await measurePair(base, third)));
    } finally {
      await pool.destroy();
    }
  });

  it('sends progress up to framesTotal, and runs two pairs at once on two threads', async () => {
    const pool = createMeasurePool({ threads: 2 });
    const seen: Record<string, MeasureProgress[]> = { x: [], y: [] };
    let overlapped = false;
    const track = (id: 'x' | 'y') => (p: MeasureProgress) => {
      seen[id]!.push(p);
      const otherId = id === 'x' ? 'y' : 'x';
      const last = seen[otherId]!.at(-1);
      if (last && last.framesDone > 0 && last.framesDone < last.framesTotal && p.framesDone > 0 && p.framesDone < p.framesTotal) overlapped = true;
    };
    try {
      await Promise.all([
        pool.measure({ id: 'x', baseline: long, candidate: longOther }, { onProgress: track('x') }),
        pool.measure({ id: 'y', baseline: long, candidate: longOther }, { onProgress: track('y') }),
      ]);
    } finally {
      await pool.destroy();
    }
    for (const list of Object.values(seen)) {
      expect(list.at(-1)).toEqual({ framesDone: 240, framesTotal: 240 });
      expect(list.every((p, i) => i === 0 || p.framesDone >= list[i - 1]!.framesDone)).toBe(true);
    }
    expect(overlapped).toBe(true);
  });

  it('aborts a running pair and a queued one: ABORTED, no ffmpeg left, the pool still works', async () => {
    const pool = createMeasurePool({ threads: 1 });
    try {
      const running = new AbortController();
      const queued = new AbortController();
      let children: number[] = [];
      let asked = false;
      const first = pool.measure(
        { id: 'run', baseline: long, candidate: long },
        {
          signal: running.signal,
          onProgress: (p) => {
            // Progress between the first and last count comes at most every 40 ms: the first one past 0 is mid-stream.
            if (p.framesDone > 0 && p.framesDone < p.framesTotal && !asked) {
              asked = true;
              void ffmpegChildren().then((pids) => {
                children = pids;
                running.abort();
              });
            }
          },
        },
      );
      const second = pool.measure({ id: 'queued', baseline: long, candidate: long }, { signal: queued.signal });
      queued.abort();
      expect(await first).toMatchObject({ ok: false, failure: { code: 'ABORTED' } });
      expect(await second).toMatchObject({ ok: false, failure: { code: 'ABORTED' } });
      // One ffmpeg decodes both files' video (and the probes may still be running).
      expect(children.length).toBeGreaterThanOrEqual(1);
      expect((await ffmpegChildren()).filter((pid) => children.includes(pid))).toEqual([]);
      expect(await pool.measure({ id: 'after', baseline: base, candidate: base })).toMatchObject({ ok: true });
    } finally {
      await pool.destroy();
    }
  });

  it('destroy() stops the pairs in flight and their ffmpeg children first', async () => {
    const pool = createMeasurePool({ threads: 1 });
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const outcome = pool.measure({ id: 'd', baseline: long, candidate: long }, { onProgress: (p) => p.framesDone > 0 && p.framesDone < p.framesTotal && started() });
    await running;
    await pool.destroy();
    expect(await outcome).toMatchObject({ ok: false, failure: { code: 'ABORTED' } });
    expect(await ffmpegChildren()).toEqual([]);
    await expect(pool.measure({ id: 'late', baseline: base, candidate: base })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('rethrows setup errors with their code (a broken ffmpeg fails every pair, so it is not a pair result)', async () => {
    const pool = createMeasurePool({ threads: 1, ffmpeg: { ffmpegPath: path.join(clips.dir, 'missing-ffmpeg') } });
    try {
      await expect(pool.measure({ id: 'e', baseline: base, candidate: base })).rejects.toMatchObject({ name: 'FidelityError', code: 'FFMPEG_BROKEN' });
    } finally {
      await pool.destroy();
    }
  });

  it('passes videoThreads to each pair: helper threads inside a pool worker give the same bytes', async () => {
    const pool = createMeasurePool({ threads: 1, videoThreads: 2 });
    try {
      const outcome = await pool.measure({ id: 'v', baseline: base, candidate: other });
      expect(JSON.stringify(outcome)).toBe(JSON.stringify(await measurePair(base, other, { videoThreads: 0 })));
    } finally {
      await pool.destroy();
    }
  });

  it('checks its arguments', async () => {
    expect(() => createMeasurePool({ threads: 0 })).toThrow(/threads/);
    expect(() => createMeasurePool({ videoThreads: -1 })).toThrow(/videoThreads/);
    const pool = createMeasurePool({ threads: 1 });
    try {
      await expect(pool.measure({ id: 'x', baseline: '', candidate: base })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    } finally {
      await pool.destroy();
    }
  });
});
