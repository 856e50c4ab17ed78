/**
 * Each clip on its own (docs/metrics.md, "Clip validity") against an independent oracle:
 * clip-validity-oracle.py (PyAV + numpy, Debian's /usr/bin/python3) makes small clips for each
 * figure and code (black, white, a fade from black, a held frame, repeated frames, duplicate and
 * uneven video timestamps, silence, a clipped tone, a DC offset, two identical channels, an audio
 * timestamp gap and an overlap; an H.264 clip with a frame the decoder conceals and flags corrupt,
 * one whose frame size changes) and analyses them from the definitions; measurePair's analysis of
 * the same files must agree within 1e-9 relative, and each code must fire on its clip and not on
 * the others.
 *
 * The clips are ffv1 video (lossless) and 16-bit PCM audio in Matroska: exact samples whatever the
 * CPU, and timestamps as written. CI must run this (.ci/run installs python3-av and python3-numpy);
 * elsewhere, without them, it is reported as skipped, loudly, never as passed.
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clipReasons } from '../../src/metrics/clip-checks.js';
import type { ClipExpectations } from '../../src/metrics/clip-checks.js';
import { logsCorruptFrames } from '../../src/media/decoder-log.js';
import { resolveFfmpeg } from '../../src/media/ffmpeg.js';
import { analyseClip } from '../../src/pool/analyse-clip.js';
import { measurePair } from '../../src/pool/measure-pair.js';
import { isUnconditionallyValid } from '../../src/schemas/clip.js';
import type { ClipAnalysis } from '../../src/schemas/clip.js';

const run = promisify(execFile);
const PYTHON = '/usr/bin/python3';
const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'clip-validity-oracle.py');

const probe = spawnSync(PYTHON, ['-c', 'import av, numpy'], { encoding: 'utf8' });
const why = probe.error ? `${PYTHON} not found` : probe.status !== 0 ? `${PYTHON} lacks PyAV or numpy` : '';
if (why) {
  if (process.env.CI === 'true') throw new Error(`The clip-validity oracle must run on CI: ${why}. .ci/run installs python3-av and python3-numpy.`);
  console.warn(`SKIPPED: the clip-validity oracle (PyAV + numpy): ${why}; apt-get install -y python3-av python3-numpy.`);
}
const live = why ? describe.skip : describe;

const NAMES = [
  'black', 'white', 'fade', 'held', 'repeated', 'duplicate-pts', 'uneven', 'silence', 'clipped', 'dc', 'identical-channels', 'sound', 'audio-gap', 'audio-overlap',
  'corrupt', 'geometry',
] as const;
type Name = (typeof NAMES)[number];
/** The H.264 clips (a frame the decoder conceals and flags, a size change) are MP4; the rest lossless Matroska. */
const fileOf = (name: Name): string => `${name}${name === 'corrupt' || name === 'geometry' ? '.mp4' : '.mkv'}`;

type Figures = Record<string, unknown>;
interface OracleClip {
  file: string;
  video: Figures;
  audio: Figures | null;
}

/** Equal within 1e-9 relative (the summation order differs from numpy's); nulls, counts and lists exactly. */
function close(ours: unknown, theirs: unknown, where: string): void {
  if (typeof theirs === 'number' && typeof ours === 'number') {
    const tol = 1e-9 * Math.max(Math.abs(ours), Math.abs(theirs)) + 1e-15;
    expect(Math.abs(ours - theirs), `${where}: ${ours} against ${theirs}`).toBeLessThanOrEqual(tol);
  } else if (Array.isArray(theirs)) {
    expect(Array.isArray(ours), where).toBe(true);
    expect((ours as unknown[]).length, where).toBe(theirs.length);
    theirs.forEach((t, i) => close((ours as unknown[])[i], t, `${where}[${i}]`));
  } else {
    expect(ours, where).toEqual(theirs);
  }
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'clip-validity-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

live('clip validity against the PyAV + numpy oracle', () => {
  const ours = new Map<Name, ClipAnalysis>();
  const theirs = new Map<Name, OracleClip>();

  /** Whether the ffmpeg the library resolves logs the decoder's corrupt flags (media/decoder-log.ts); else the counts are null. */
  let countsCorrupt = false;

  beforeAll(async () => {
    const toolchain = await resolveFfmpeg();
    countsCorrupt = logsCorruptFrames(toolchain.ffmpeg.version);
    if (!countsCorrupt) console.warn(`NOT CHECKED: ${toolchain.ffmpeg.version} does not log corrupt frames in the form read; corrupt_frame_count is null`);
    // The clips' own ffmpeg is the one measured with.
    await run(PYTHON, [SCRIPT, 'make', dir], { env: { ...process.env, FFMPEG: toolchain.ffmpeg.path } });
    const files = NAMES.map((n) => path.join(dir, fileOf(n)));
    const { stdout } = await run(PYTHON, [SCRIPT, 'analyse', ...files], { maxBuffer: 16 << 20 });
    const oracle = JSON.parse(stdout) as { clips: OracleClip[] };
    oracle.clips.forEach((c, i) => theirs.set(NAMES[i]!, c));
    for (const [i, name] of NAMES.entries()) {
      // The clip against itself: the pair's decode analyses each side on its own.
      const outcome = await measurePair(files[i]!, files[i]!, { videoThreads: 0 });
      if (!outcome.ok) throw new Error(`${name}: ${outcome.failure.code} ${outcome.failure.message}`);
      const clips = outcome.measurement.clips!;
      expect(clips.candidate, name).toEqual(clips.baseline);
      ours.set(name, clips.baseline);
    }
  }, 120_000);

  it('every figure of every clip equals the oracle (1e-9 relative)', () => {
    let compared = 0;
    for (const name of NAMES) {
      const o = ours.get(name)!;
      const t = theirs.get(name)!;
      for (const [key, value] of Object.entries(t.video)) {
        close((o.video as Figures)[key], key === 'corrupt_frame_count' && !countsCorrupt ? null : value, `${name} video.${key}`);
        compared++;
      }
      expect(o.audio === null, name).toBe(t.audio === null);
      for (const [key, value] of Object.entries(t.audio ?? {})) {
        close((o.audio as Figures)[key], key === 'corrupt_frame_count' && !countsCorrupt ? null : value, `${name} audio.${key}`);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(200);
    // The oracle's own clips say what they are: one frame flagged corrupt, one size change.
    expect(theirs.get('corrupt')!.video).toMatchObject({ corrupt_frame_count: 1, geometry_stable: true });
    expect(theirs.get('geometry')!.video).toMatchObject({ corrupt_frame_count: 0, geometry_stable: false, frame_count: 12 });
    expect(ours.get('geometry')!.video).toMatchObject({ width: 64, height: 48, frame_count: 12 });
  });

  it('the figures say what each clip is', () => {
    expect(ours.get('black')!.video).toMatchObject({ black_fraction: 1, blank_fraction: 1, duplicate_fraction: 1, blank_runs: [[0, 11]] });
    expect(ours.get('white')!.video).toMatchObject({ white_fraction: 1, black_fraction: 0, blank_fraction: 1 });
    expect(ours.get('fade')!.video).toMatchObject({ black_fraction: 1 / 12, blank_runs: [[0, 0]], frozen_fraction: 0 });
    expect(ours.get('held')!.video).toMatchObject({ duplicate_fraction: 1, frozen_fraction: 1, mean_adjacent_frame_mae: 0, frozen_runs: [[0, 11]] });
    expect(ours.get('repeated')!.video).toMatchObject({ duplicate_fraction: 6 / 11, frozen_fraction: 6 / 11, frozen_runs: [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9], [10, 11]] });
    expect(ours.get('duplicate-pts')!.video).toMatchObject({ nonincreasing_timestamps: 1, min_frame_interval_seconds: 0 });
    expect(ours.get('silence')!.audio).toMatchObject({ silent_channels: [0, 1], rms_dbfs_channels: [null, null], silent_runs: [[0, 15999]] });
    expect(ours.get('clipped')!.audio!.clipping_fraction_channels.every((f) => f! > 0.1)).toBe(true);
    expect(ours.get('sound')!.audio!.clipping_fraction_channels).toEqual([0, 0]);
    expect(ours.get('dc')!.audio!.dc_offset_channels.every((d) => Math.abs(d! - 0.25) < 0.01)).toBe(true);
    expect(ours.get('identical-channels')!.audio!.identical_channel_pairs).toEqual([[0, 1]]);
    expect(ours.get('sound')!.audio!.identical_channel_pairs).toEqual([]);
    expect(ours.get('audio-gap')!.audio).toMatchObject({ max_timestamp_gap_seconds: 0.256, max_timestamp_gap_at_sample: 8192, sample_count: 16000 });
    expect(ours.get('audio-overlap')!.audio!.max_timestamp_gap_seconds).toBeCloseTo(512 / 16000, 12);
  });

  const codes = (name: Name, e: ClipExpectations = {}): string[] => {
    const c = ours.get(name)!;
    return clipReasons(c.video, c.audio, e).map((r) => r.code);
  };

  it('by default (motion and sound required): each clip gets exactly its codes', () => {
    const expected: Record<Name, string[]> = {
      black: ['CLIP_BLANK', 'CLIP_NO_MOTION'],
      white: ['CLIP_BLANK', 'CLIP_NO_MOTION'],
      fade: [],
      held: ['CLIP_NO_MOTION'],
      repeated: [],
      'duplicate-pts': ['CLIP_TIMESTAMPS'],
      uneven: [],
      silence: ['CLIP_SILENT'],
      clipped: [],
      dc: [],
      'identical-channels': [],
      sound: [],
      'audio-gap': ['CLIP_AUDIO_GAP'],
      'audio-overlap': ['CLIP_AUDIO_GAP'],
      corrupt: countsCorrupt ? ['CLIP_CORRUPT_FRAMES'] : [],
      geometry: ['CLIP_GEOMETRY_CHANGED'],
    };
    for (const name of NAMES) {
      expect(codes(name), name).toEqual(expected[name]);
      expect(ours.get(name)!.reasons.map((r) => r.code), name).toEqual(expected[name]);
      expect(ours.get(name)!.valid, name).toBe(expected[name].length === 0);
    }
  });

  it('InferenceX\'s unconditional checks: timestamps and audio continuity, not motion, sound or blankness', () => {
    expect(isUnconditionallyValid(ours.get('duplicate-pts')!)).toBe(false);
    expect(ours.get('audio-gap')!.unconditional_valid).toBe(false);
    expect(ours.get('black')!.unconditional_valid).toBe(true);
    expect(ours.get('silence')!.unconditional_valid).toBe(true);
    expect(ours.get('held')!.unconditional_valid).toBe(true);
    expect(ours.get('geometry')!.unconditional_valid).toBe(false);
    expect(ours.get('corrupt')!.unconditional_valid).toBe(!countsCorrupt);
  });

  it('corrupt frames and a size change: each code fires on its clip alone, with its figures in words', () => {
    if (countsCorrupt) {
      expect(ours.get('corrupt')!.reasons).toEqual([{ code: 'CLIP_CORRUPT_FRAMES', message: 'the decoder flagged 1 video frame corrupt' }]);
      // Every other clip was decoded and counted: 0, not null.
      for (const name of NAMES.filter((n) => n !== 'corrupt')) expect(ours.get(name)!.video.corrupt_frame_count, name).toBe(0);
      for (const name of NAMES.filter((n) => ours.get(n)!.audio)) expect(ours.get(name)!.audio!.corrupt_frame_count, name).toBe(0);
    }
    expect(ours.get('geometry')!.reasons).toEqual([{ code: 'CLIP_GEOMETRY_CHANGED', message: "a decoded frame's size differs from the first frame's 64x48" }]);
    for (const name of NAMES.filter((n) => n !== 'geometry')) expect(ours.get(name)!.video.geometry_stable, name).toBe(true);
    // The check reads the figures alone (merge re-derives the reasons from them).
    const corrupt = ours.get('sound')!;
    expect(clipReasons({ ...corrupt.video, corrupt_frame_count: 2 }, { ...corrupt.audio!, corrupt_frame_count: 3 }).map((r) => r.message)).toEqual([
      'the decoder flagged 2 video and 3 audio frames corrupt',
    ]);
    expect(clipReasons({ ...corrupt.video, geometry_stable: null }, corrupt.audio)).toEqual([]);
  });

  it('one clip alone (verify --clips) gets the same counts, sizes and codes as in its pair', async () => {
    for (const name of ['corrupt', 'geometry', 'sound'] as const) {
      const alone = await analyseClip(path.join(dir, fileOf(name)));
      if (!alone.ok) throw new Error(`${name}: ${alone.failure.code} ${alone.failure.message}`);
      expect(alone.clip, name).toEqual(ours.get(name));
    }
  }, 60_000);

  it('the plan\'s expectations: opting out, fractions, cadence, duration and A/V skew', () => {
    expect(codes('held', { requires_motion: false })).toEqual([]);
    expect(codes('silence', { requires_sound: false })).toEqual([]);
    expect(codes('black', { requires_motion: false })).toEqual(['CLIP_BLANK']);
    expect(codes('fade', { max_blank_fraction: 0.05 })).toEqual(['CLIP_BLANK']);
    expect(codes('fade', { max_blank_fraction: 0.1 })).toEqual([]);
    expect(codes('repeated', { max_frozen_fraction: 0.5 })).toEqual(['CLIP_FROZEN']);
    expect(codes('repeated', { max_frozen_fraction: 0.6 })).toEqual([]);
    expect(codes('held', { requires_motion: false, max_frozen_fraction: 0.99 })).toEqual(['CLIP_FROZEN']);
    // The right average rate with uneven steps; Matroska's millisecond ticks stay within the tolerance.
    expect(codes('uneven', { fps: 12 })).toEqual(['CLIP_CADENCE']);
    expect(codes('sound', { fps: 12 })).toEqual([]);
    expect(codes('sound', { fps: 10 })).toEqual(['CLIP_CADENCE']);
    expect(codes('sound', { fps: 12, duration_seconds: 1 })).toEqual([]);
    expect(codes('sound', { fps: 12, duration_seconds: 2 })).toEqual(['CLIP_DURATION']);
    expect(codes('sound', { fps: 12, duration_seconds: 1.5, duration_tolerance_seconds: 0.6 })).toEqual([]);
    expect(codes('sound', { max_av_start_skew_seconds: 0, max_av_end_skew_seconds: 0.1 })).toEqual([]);
    expect(codes('audio-gap', { max_av_end_skew_seconds: 0.1 })).toEqual(['CLIP_AUDIO_GAP', 'CLIP_AV_SKEW']);
  });
});
