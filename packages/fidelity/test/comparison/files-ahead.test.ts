import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIO_DIFF_SECONDS } from '../../src/bundle/assets-keys.js';
import { renderPairFilesAhead, writePairFiles } from '../../src/bundle/pair-files.js';
import { filesAhead } from '../../src/comparison/files-ahead.js';
import type { PairCapture } from '../../src/media/frames.js';
import { measurePairKeeping } from '../../src/pool/measure-pair.js';
import type { MeasureOutcome, PairMeasurement } from '../../src/schemas/measurement.js';
import { ClipFactory } from '../media/clips.js';

const clips = new ClipFactory();
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-ahead-test-'));
afterAll(() => {
  clips.remove();
  rmSync(tmp, { recursive: true, force: true });
});

let base: string;
let other: string;
let outcome: MeasureOutcome & { ok: true };
let capture: PairCapture;
beforeAll(async () => {
  [base, other] = await Promise.all([
    clips.make({ frames: 12 }, 'base'),
    // Other audio (a 660 Hz tone), so the pair has difference audio and a waveform.
    clips.make({ frames: 12, crf: 40, audio: { frequency: 660, seconds: 0.5 } }, 'other'),
  ]);
  const kept = await measurePairKeeping(base, other, { videoThreads: 0 }, 1, { audioSeconds: AUDIO_DIFF_SECONDS });
  if (!kept.outcome.ok || !kept.capture) throw new Error('the pair was not measured');
  outcome = kept.outcome;
  capture = kept.capture;
});

const figures = (m: PairMeasurement): { video: PairMeasurement['video']; audio: NonNullable<PairMeasurement['audio']> | null } => ({ video: m.video, audio: m.audio ?? null });

/** A folder's files, by name, sorted. */
function filesIn(dir: string): Map<string, Buffer> {
  return new Map(readdirSync(dir).sort().map((f) => [f, readFileSync(path.join(dir, f))]));
}

describe('renderPairFilesAhead', () => {
  it('makes the files writePairFiles makes from the media: the same names, keys, order and bytes', async () => {
    const pair = figures(outcome.measurement);
    const written = await writePairFiles({ dir: path.join(tmp, 'made-here'), pair, prefix: 'p', baselinePath: base, candidatePath: other, ffmpeg: {} });
    const made = await renderPairFilesAhead(pair, capture);
    expect(made).not.toBeNull();
    // Written from the bytes made ahead; the media paths are never opened.
    const ahead = await writePairFiles({ dir: path.join(tmp, 'made-ahead'), pair, prefix: 'p', baselinePath: path.join(tmp, 'missing-a.mp4'), candidatePath: path.join(tmp, 'missing-b.mp4'), made: Promise.resolve(made), ffmpeg: {} });
    expect(Object.entries(ahead)).toEqual(Object.entries(written));
    expect(Object.keys(written)).toEqual(['frames_csv', 'baseline_worst_webp', 'candidate_worst_webp', 'abs_diff_webp', 'ssim_heatmap_png', expect.stringMatching(/^audio_diff/), 'audio_waveform_png']);
    const here = filesIn(path.join(tmp, 'made-here', 'p'));
    const there = filesIn(path.join(tmp, 'made-ahead', 'p'));
    expect([...there.keys()]).toEqual([...here.keys()]);
    for (const [name, bytes] of here) expect(there.get(name)!.equals(bytes), name).toBe(true);
  });

  it('is null when the capture lacks the stills\' frame or the audio head, or the pair has no video figures', () => {
    const pair = figures(outcome.measurement);
    expect(renderPairFilesAhead(pair, { ...capture, frame: null })).toBeNull();
    expect(renderPairFilesAhead(pair, { ...capture, frame: { ...capture.frame!, index: capture.frame!.index + 1 } })).toBeNull();
    expect(renderPairFilesAhead(pair, { ...capture, audio: null })).toBeNull();
    expect(renderPairFilesAhead(pair, { ...capture, audio: { baseline: capture.audio!.baseline.slice(1), candidate: capture.audio!.candidate } })).toBeNull();
    expect(renderPairFilesAhead({ video: null, audio: null }, capture)).toBeNull();
    // Audio without a difference needs no head: the frame alone suffices.
    const silentDiff = { ...pair.audio!, identical: true };
    expect(renderPairFilesAhead({ ...pair, audio: silentDiff }, { ...capture, audio: null })).not.toBeNull();
  });
});

describe('filesAhead', () => {
  it('makes each measured pair\'s files from its capture and drops the capture; leaves the others to the bundle', async () => {
    const captures = new Map<string, PairCapture>([
      ['a', capture],
      ['b', { ...capture, frame: null }],
      ['c', capture],
    ]);
    const ahead = filesAhead(captures);
    ahead.onMeasured('a', outcome);
    ahead.onMeasured('b', outcome);
    ahead.onMeasured('c', { ok: false, failure: { code: 'DECODE_FAILED', message: 'x' } } as MeasureOutcome);
    ahead.onMeasured('d', outcome); // nothing kept for it
    await ahead.settled();
    expect([...ahead.made.keys()]).toEqual(['a', 'b']);
    expect(await ahead.made.get('a')).toEqual(await renderPairFilesAhead(figures(outcome.measurement), capture));
    expect(await ahead.made.get('b')).toBeNull();
    // Made: its capture is no longer held. Not made (b) or not started (c): kept for the bundle.
    expect([...captures.keys()]).toEqual(['b', 'c']);
  });

  it('throws a pair\'s failure where the bundle waits for it, and goes on with the next pair', async () => {
    const broken = { ...capture, frame: { ...capture.frame! } };
    Object.defineProperty(broken.frame, 'baseline', { get: () => { throw new Error('unreadable frame'); } });
    const ahead = filesAhead(new Map<string, PairCapture>([['bad', broken as PairCapture], ['good', capture]]));
    ahead.onMeasured('bad', outcome);
    ahead.onMeasured('good', outcome);
    await expect(ahead.settled()).resolves.toBeUndefined();
    await expect(ahead.made.get('bad')).rejects.toThrow('unreadable frame');
    expect(await ahead.made.get('good')).not.toBeNull();
  });
});
