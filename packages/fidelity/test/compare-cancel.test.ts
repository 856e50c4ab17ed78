/**
 * compare() cancelled while it writes the bundle, in the "pairs" step: the
 * call settles with ABORTED, leaves --out as it was (absent here), and leaves
 * no temp folder, lock, or decoder process behind. compare keeps every
 * pair's stills' frame and audio head from its measuring decode, in every
 * metric set (pool/frame-capture.ts), so that step starts no decoder; the
 * fallback that extracts a pair's stills again (media/frames.ts: a pair past
 * the captures' memory budget) is cancelled on its own below, while its
 * decoder runs, and leaves no process behind either.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { makePairAssets } from '../src/bundle/assets.js';
import { compare } from '../src/compare.js';
import { FidelityError } from '../src/errors.js';
import { measurePair } from '../src/pool/measure-pair.js';
import { pidsIn, stillRunningAfter, wrapperDecoder } from './media/wrapper.js';

const RUNS = fileURLToPath(new URL('../../../fixtures/runs/', import.meta.url));
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-cancel-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** An ffmpeg whose stills' extraction (the only decode cut with -frames:v, media/frames.ts) hangs in a grandchild until killed; any other run is the real one. */
function slowExtraction(name: string): { file: string; pids: string } {
  return wrapperDecoder(tmp, name, 'case "$*" in *-frames:v*) sleep 300 & echo $! >> "$PIDS"; wait; exit 1;; esac\nexec "$REAL" "$@"');
}

/** Settles `run` within a minute: its error, or null when it resolved. */
async function settled(run: Promise<unknown>): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise((resolve) => {
    timer = setTimeout(() => resolve('did not settle'), 60_000);
  });
  const outcome = await Promise.race([
    run.then(
      () => null,
      (e: unknown) => e,
    ),
    hang,
  ]);
  clearTimeout(timer);
  return outcome;
}

describe('compare() cancelled in the bundle\'s pairs step', () => {
  it('settles with ABORTED and leaves nothing behind, having extracted nothing (the inferencex set keeps its stills\' frame too)', async () => {
    const { file, pids } = slowExtraction('ffmpeg');
    const root = path.join(tmp, 'work');
    mkdirSync(root);
    const out = path.join(root, 'bundle');
    const controller = new AbortController();
    let cancelled = false;
    const error = await settled(
      compare(path.join(RUNS, 'h200'), [path.join(RUNS, 'b200')], {
        out,
        threads: 2,
        metrics: 'inferencex',
        ffmpeg: { ffmpegPath: file },
        signal: controller.signal,
        onProgress: (e) => {
          if (e.stage === 'bundle' && e.step === 'pairs' && !cancelled) {
            cancelled = true;
            controller.abort();
          }
        },
      }),
    );
    expect(cancelled).toBe(true);
    expect(error).toBeInstanceOf(FidelityError);
    expect((error as FidelityError).code).toBe('ABORTED');
    expect(readdirSync(root)).toEqual([]);
    expect(pidsIn(pids)).toEqual([]);
  }, 120_000);

  it('a pair\'s stills extracted again (nothing kept) are cancelled while the decoder runs: ABORTED, no decoder left', async () => {
    const slot = 'measurement-r000-c001';
    const [baselinePath, candidatePath] = ['h200', 'b200'].map((run) => path.join(RUNS, run, 'media', `${slot}.mp4`)) as [string, string];
    const outcome = await measurePair(baselinePath, candidatePath, { metrics: 'inferencex' });
    if (!outcome.ok) throw new Error(outcome.failure.message);
    const { file, pids } = slowExtraction('ffmpeg-assets');
    const controller = new AbortController();
    // Cancelled once the extraction's decoder is running (its pid written), not after a fixed time: a slow machine may take longer to get there.
    const started = setInterval(() => {
      if (pidsIn(pids).length > 0) {
        clearInterval(started);
        controller.abort();
      }
    }, 20);
    const pair = { video: outcome.measurement.video, audio: outcome.measurement.audio ?? null };
    const error = await settled(makePairAssets({ pair, baselinePath, candidatePath, outDir: path.join(tmp, 'assets'), prefix: 'p', ffmpeg: { ffmpegPath: file }, signal: controller.signal }));
    clearInterval(started);
    expect(error).toBeInstanceOf(FidelityError);
    expect((error as FidelityError).code).toBe('ABORTED');
    expect(pidsIn(pids).length).toBeGreaterThan(0);
    expect(await stillRunningAfter(pidsIn(pids), 3000)).toEqual([]);
  }, 120_000);
});
