import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hidesHead, hidesTail, presentation, readEditLists } from '../../src/media/edit-list.js';
import type { TrackEdits } from '../../src/media/edit-list.js';
import { ClipFactory } from './clips.js';
import { changeEdit, delayTrack } from './mp4-patch.js';

const clips = new ClipFactory();
let base: string;
beforeAll(async () => {
  base = await clips.make({ frames: 24 }, 'base');
});
afterAll(() => clips.remove());

const track = (edits: TrackEdits['edits'], mediaDuration = 33024n): TrackEdits => ({ trackId: 2, movieTimescale: 1000, mediaTimescale: 32000, mediaDuration, edits });

describe('readEditLists', () => {
  it('reads every track of an MP4 with its time scales, and sees an inserted delay and a changed rate', async () => {
    const plain = await readEditLists(base, 'baseline');
    // ffmpeg numbers MP4 tracks from 1: video, then audio.
    expect([...plain.keys()]).toEqual([1, 2]);
    const audio = plain.get(2)!;
    expect(audio).toMatchObject({ mediaTimescale: 32000 });
    expect(audio.mediaDuration).toBeGreaterThan(0n);
    const late = path.join(clips.dir, 'late.mp4');
    delayTrack(base, late, 'soun', 500);
    const delayed = (await readEditLists(late, 'candidate')).get(2)!;
    expect(delayed.edits).toEqual([{ duration: 500n, mediaTime: -1n, rate: 65536 }, ...audio.edits!]);
    expect(presentation(delayed)[0]).toEqual({ empty: true, num: 500n, den: 1000n, rate: 0 });
    const slow = path.join(clips.dir, 'slow.mp4');
    changeEdit(base, slow, 'vide', { rate: 0x8000 });
    expect((await readEditLists(slow, 'candidate')).get(1)!.edits![0]!.rate).toBe(0x8000);
  });

  it('gives nothing for a file without a moov box, and refuses none of it', async () => {
    const junk = path.join(clips.dir, 'junk.mp4');
    writeFileSync(junk, Buffer.alloc(4096, 0x11));
    expect((await readEditLists(junk, 'baseline')).size).toBe(0);
  });
});

describe('hidden media', () => {
  it('tells a trimmed tail and a trimmed head from priming that is shown to the end', () => {
    // AAC priming: 1024 samples skipped, the rest (32000 of 33024) shown: 1000 ms.
    const priming = track([{ duration: 1000n, mediaTime: 1024n, rate: 65536 }]);
    expect(hidesTail(priming)).toBe(false);
    expect(hidesHead(priming)).toBe(true);
    expect(hidesTail(track([{ duration: 500n, mediaTime: 1024n, rate: 65536 }]))).toBe(true);
    expect(hidesTail(track(null))).toBe(false);
    expect(hidesHead(track([{ duration: 1032n, mediaTime: 0n, rate: 65536 }]))).toBe(false);
  });
});
