/**
 * The bytes measured are the bytes verified (docs/media.md, "Media that change"): a sealed clip
 * changed at any moment between its verification and its last use is MEDIA_CHANGED, even when it
 * is put back (same bytes, same modification time: its inode change time tells), never a measured
 * pair or a bundle. Real compare() runs on copies of the committed fixtures, changed from
 * compare's own progress events, which come while the work goes on.
 */
import { chmodSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { compare } from '../../src/compare.js';
import type { CompareProgress } from '../../src/comparison/types.js';

const FIX = fileURLToPath(new URL('../../../../fixtures/runs/', import.meta.url));
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-media-changed-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;

/** Fresh copies of the H200 and B200 fixture runs. */
function runs(): { base: string; cand: string; dir: string } {
  const dir = path.join(tmp, `case-${n++}`);
  cpSync(path.join(FIX, 'h200'), path.join(dir, 'h200'), { recursive: true });
  cpSync(path.join(FIX, 'b200'), path.join(dir, 'b200'), { recursive: true });
  return { base: path.join(dir, 'h200'), cand: path.join(dir, 'b200'), dir };
}

describe('a sealed clip changed after verification', () => {
  it('overwritten with other bytes of the same size while its pair is measured, put back after: MEDIA_CHANGED, no bundle', async () => {
    const { base, cand, dir } = runs();
    const clip = path.join(cand, 'media', 'measurement-r000-c000.mp4');
    const original = readFileSync(clip);
    const { atime, mtime } = statSync(clip);
    let swapped = false;
    let restored = false;
    const onProgress = (e: CompareProgress): void => {
      if (e.stage !== 'measure') return;
      // Frames of the first pair (c000's) are decoded: the file was opened and verified long since.
      if (!swapped && e.framesDone > 0) {
        writeFileSync(clip, Buffer.alloc(original.length, 0x41));
        swapped = true;
      }
      if (swapped && !restored && e.pairsDone >= 1) {
        writeFileSync(clip, original);
        utimesSync(clip, atime, mtime);
        restored = true;
      }
    };
    const out = path.join(dir, 'bundle');
    await expect(compare(base, [cand], { out, threads: 1, onProgress })).rejects.toMatchObject({ code: 'MEDIA_CHANGED', message: expect.stringContaining('measurement-r000-c000.mp4') });
    expect(swapped).toBe(true);
    expect(existsSync(out)).toBe(false);
  }, 120_000);

  it('whose inode changes after it was measured, bytes and times as they were (chmod): MEDIA_CHANGED, no bundle', async () => {
    const { base, cand, dir } = runs();
    const clip = path.join(base, 'media', 'measurement-r000-c003.mp4');
    let touched = false;
    const onProgress = (e: CompareProgress): void => {
      // Measuring is over and the bundle's media copies begin: the bytes copied would be the sealed ones.
      if (e.stage === 'bundle' && !touched) {
        chmodSync(clip, 0o600);
        touched = true;
      }
    };
    const out = path.join(dir, 'bundle');
    await expect(compare(base, [cand], { out, threads: 1, onProgress })).rejects.toMatchObject({ code: 'MEDIA_CHANGED', message: expect.stringMatching(/measurement-r000-c003\.mp4.*inode change time/) });
    expect(touched).toBe(true);
    expect(existsSync(out)).toBe(false);
  }, 120_000);
});
