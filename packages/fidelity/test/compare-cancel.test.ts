/**
 * compare() cancelled while it writes the bundle: during the "pairs" step
 * the report's stills are being extracted by ffmpeg. Cancelling must settle
 * the call with ABORTED, leave --out as it was (absent here), and leave no
 * temp folder, lock, or decoder process behind. compare keeps the stills'
 * frame from its measuring decode where it can (pool/frame-capture.ts); the
 * `inferencex` set charts no SSIM series, so nothing is kept and every
 * pair's still is extracted, as merge always does.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { compare } from '../src/compare.js';
import { FidelityError } from '../src/errors.js';
import { pidsIn, stillRunningAfter, wrapperDecoder } from './media/wrapper.js';

const RUNS = fileURLToPath(new URL('../../../fixtures/runs/', import.meta.url));
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-cancel-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('compare() cancelled in the bundle\'s pairs step', () => {
  it('settles with ABORTED and leaves nothing behind', async () => {
    // Measuring runs the real ffmpeg; the stills' extraction (the only decode cut with -frames:v,
    // media/frames.ts) is slowed by a grandchild so the cancel lands while a decoder is running.
    const { file, pids } = wrapperDecoder(
      tmp,
      'ffmpeg',
      'case "$*" in *-frames:v*) sleep 300 & echo $! >> "$PIDS"; wait; exit 1;; esac\nexec "$REAL" "$@"',
    );
    const root = path.join(tmp, 'work');
    mkdirSync(root);
    const out = path.join(root, 'bundle');
    const controller = new AbortController();
    let cancelled = false;
    const run = compare(path.join(RUNS, 'h200'), [path.join(RUNS, 'b200')], {
      out,
      threads: 2,
      metrics: 'inferencex',
      ffmpeg: { ffmpegPath: file },
      signal: controller.signal,
      onProgress: (e) => {
        if (e.stage === 'bundle' && e.step === 'pairs' && !cancelled) {
          cancelled = true;
          setTimeout(() => controller.abort(), 500);
        }
      },
    }).then(
      () => null,
      (e: unknown) => e,
    );
    let timer: NodeJS.Timeout | undefined;
    const hang = new Promise((resolve) => {
      timer = setTimeout(() => resolve('did not settle'), 60_000);
    });
    const error = await Promise.race([run, hang]);
    clearTimeout(timer);
    expect(cancelled).toBe(true);
    expect(error).toBeInstanceOf(FidelityError);
    expect((error as FidelityError).code).toBe('ABORTED');
    expect(readdirSync(root)).toEqual([]);
    expect(pidsIn(pids).length).toBeGreaterThan(0);
    expect(await stillRunningAfter(pidsIn(pids), 3000)).toEqual([]);
  }, 120_000);
});
