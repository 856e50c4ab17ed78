/**
 * A pair whose two files hold the same bytes (PairJob.sameMedia, set by compare from the sealed
 * SHA-256): the file is probed once and its clip analysis made once, and the outcome is the same
 * JSON as analysing each side on its own. A side whose analysis the command already made
 * (PairJob.known) is not analysed again, with the same outcome. The probes and the analyses are counted through the
 * modules measure-pair imports (wrapped here), not by timing.
 */
import { copyFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ClipFactory } from '../media/clips.js';

const counts = vi.hoisted(() => ({ probes: 0, video: 0, audio: 0, audioDecoded: 0 }));
vi.mock('../../src/media/audio-decoder.js', async (original) => {
  const m = await original<typeof import('../../src/media/audio-decoder.js')>();
  return { ...m, openAudioDecoders: (...args: Parameters<typeof m.openAudioDecoders>) => ((counts.audioDecoded += args[2].length), m.openAudioDecoders(...args)) };
});
vi.mock('../../src/media/probe.js', async (original) => {
  const m = await original<typeof import('../../src/media/probe.js')>();
  return { ...m, probeMedia: (...args: Parameters<typeof m.probeMedia>) => (counts.probes++, m.probeMedia(...args)) };
});
vi.mock('../../src/metrics/clip-video.js', async (original) => {
  const m = await original<typeof import('../../src/metrics/clip-video.js')>();
  return { ...m, createClipVideoAccumulator: (...args: Parameters<typeof m.createClipVideoAccumulator>) => (counts.video++, m.createClipVideoAccumulator(...args)) };
});
vi.mock('../../src/metrics/clip-audio.js', async (original) => {
  const m = await original<typeof import('../../src/metrics/clip-audio.js')>();
  return { ...m, createClipAudioAccumulator: (...args: Parameters<typeof m.createClipAudioAccumulator>) => (counts.audio++, m.createClipAudioAccumulator(...args)) };
});

const { measurePairOn } = await import('../../src/pool/measure-pair.js');
import type { PairJob } from '../../src/pool/api.js';
import type { ClipAnalysis } from '../../src/schemas/clip.js';

const clips = new ClipFactory();
let base: string;
let copy: string;
beforeAll(async () => {
  base = await clips.make({ frames: 12 }, 'base');
  copy = path.join(path.dirname(base), 'copy-of-base.mp4');
  copyFileSync(base, copy);
});
afterAll(() => clips.remove());

async function counted(sameMedia: boolean, metrics: string, known?: PairJob['known']): Promise<{ json: string; probes: number; video: number; audio: number; audioDecoded: number }> {
  Object.assign(counts, { probes: 0, video: 0, audio: 0, audioDecoded: 0 });
  const outcome = await measurePairOn(base, copy, { metrics, videoThreads: 0 }, 1, { sameMedia, ...(known ? { known } : {}) });
  if (!outcome.ok) throw new Error(outcome.failure.message);
  const { timings_ms: _t, ...measurement } = outcome.measurement;
  return { json: JSON.stringify(measurement), ...counts };
}

describe('the same bytes on both sides', () => {
  // The audio metrics need both sides' samples; without them (`ffmpeg`) only the clip analysis reads audio: one file's.
  for (const [metrics, audioDecoded] of [['default', 2], ['ffmpeg', 1]] as const) {
    it(`one probe and one clip analysis, the same outcome as two (${metrics} set)`, async () => {
      const apart = await counted(false, metrics);
      const once = await counted(true, metrics);
      expect(apart).toMatchObject({ probes: 2, video: 2, audio: 2, audioDecoded: 2 });
      expect(once).toMatchObject({ probes: 1, video: 1, audio: 1, audioDecoded });
      expect(once.json).toBe(apart.json);
      // Both sides carry the analysis, each with its own verdict fields.
      const clipsOf = (json: string): { baseline: unknown; candidate: unknown } => JSON.parse(json).clips;
      expect(clipsOf(once.json).candidate).toEqual(clipsOf(once.json).baseline);
    });
  }
});

describe('a clip this command already analysed (PairJob.known)', () => {
  for (const [metrics, audioDecoded] of [['default', 2], ['ffmpeg', 1]] as const) {
    it(`a side given its analysis is not analysed again, and the outcome is the same (${metrics} set)`, async () => {
      const apart = await counted(false, metrics);
      const given = (JSON.parse(apart.json) as { clips: { baseline: ClipAnalysis } }).clips.baseline;
      const one = await counted(false, metrics, { baseline: given });
      expect(one).toMatchObject({ probes: 2, video: 1, audio: 1, audioDecoded: 2 });
      expect(one.json).toBe(apart.json);
      // Both sides known: no accumulator; the audio is decoded only for the pair metrics (none in `ffmpeg`).
      const both = await counted(false, metrics, { baseline: given, candidate: given });
      expect(both).toMatchObject({ probes: 2, video: 0, audio: 0, audioDecoded: audioDecoded === 2 ? 2 : 0 });
      expect(both.json).toBe(apart.json);
    });
  }

  it('the analysis given is what goes into the outcome (it is not recomputed behind it)', async () => {
    const apart = await counted(false, 'ffmpeg');
    const given = structuredClone(JSON.parse(apart.json).clips.candidate);
    given.video.frame_count = 999;
    const marked = await counted(false, 'ffmpeg', { candidate: given });
    expect(JSON.parse(marked.json).clips.candidate.video.frame_count).toBe(999);
    expect(JSON.parse(marked.json).clips.baseline.video.frame_count).toBe(12);
  });
});
