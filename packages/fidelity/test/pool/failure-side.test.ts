/**
 * A pair whose both files fail the same check before decoding names side `both` (docs/reason-codes.md):
 * both files without a video stream, both 10-bit, and the same bytes given for both sides.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measurePair, measurePairOn } from '../../src/pool/measure-pair.js';
import { ClipFactory, ffmpegPath } from '../media/clips.js';

const clips = new ClipFactory();
afterAll(() => clips.remove());
let audioA: string;
let audioB: string;
let deepA: string;
let deepB: string;

beforeAll(async () => {
  // Audio only: two tones, no video stream.
  audioA = path.join(clips.dir, 'a.m4a');
  audioB = path.join(clips.dir, 'b.m4a');
  for (const [file, hz] of [[audioA, 440], [audioB, 660]] as const) {
    await promisify(execFile)(await ffmpegPath(), ['-nostdin', '-v', 'error', '-y', '-f', 'lavfi', '-i', `sine=frequency=${hz}:sample_rate=32000:duration=0.25`, '-c:a', 'aac', file]);
  }
  deepA = await clips.make({ width: 64, height: 48, frames: 4, audio: null, pixFmt: 'yuv420p10le' }, 'deep-a');
  deepB = await clips.make({ width: 64, height: 48, frames: 4, audio: null, pixFmt: 'yuv420p10le', start: 2 }, 'deep-b');
}, 60_000);

describe('a failure of both files names side both', () => {
  it('no video stream on either side', async () => {
    const outcome = await measurePair(audioA, audioB);
    expect(outcome).toMatchObject({ ok: false, failure: { code: 'NO_VIDEO_STREAM', side: 'both' } });
  }, 30_000);

  it('the same audio-only bytes on both sides', async () => {
    const outcome = await measurePairOn(audioA, audioA, {}, 1, { sameMedia: true });
    expect(outcome).toMatchObject({ ok: false, failure: { code: 'NO_VIDEO_STREAM', side: 'both' } });
  }, 30_000);

  it('both sides 10-bit', async () => {
    const outcome = await measurePair(deepA, deepB);
    expect(outcome).toMatchObject({ ok: false, failure: { code: 'UNSUPPORTED_PIXEL_FORMAT', side: 'both' } });
    if (!outcome.ok) expect(outcome.failure.message).toMatch(/Both sides are yuv420p10le/);
  }, 30_000);
});
