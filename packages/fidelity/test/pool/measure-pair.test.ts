import { inferencexRefused } from '../../src/metrics/inferencex.js';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measurePair, measurePairOn } from '../../src/pool/measure-pair.js';
import { AUTO_THREADS_MIN_CORES, autoSsimAside, autoVideoThreads } from '../../src/pool/pair-options.js';
import { planeGeometry } from '../../src/media/pixel-formats.js';
import type { VideoProbe } from '../../src/media/probe.js';
import type { MeasureProgress } from '../../src/pool/api.js';
import { MeasureOutcome, type VideoMetrics } from '../../src/schemas/measurement.js';
import { ClipFactory, ffmpegChildren } from '../media/clips.js';

const clips = new ClipFactory();
let base: string;
let other: string;
beforeAll(async () => {
  base = await clips.make({ frames: 24 }, 'base');
  other = await clips.make({ frames: 24, crf: 40 }, 'other');
});
afterAll(() => clips.remove());

describe('measurePair', () => {
  it('measures identical files as identical, with the defined degenerate values', async () => {
    const outcome = await measurePair(base, base);
    expect(MeasureOutcome.parse(outcome)).toEqual(outcome);
    if (!outcome.ok) throw new Error(outcome.failure.message);
    const { audio } = outcome.measurement;
    const video = outcome.measurement.video as Required<VideoMetrics>;
    expect(video).toMatchObject({ width: 128, height: 72, frames: 24, identical: true, psnr_db: null, mae: 0 });
    expect(video.ssim.per_frame).toEqual(Array(24).fill(1));
    expect(video.psnr_y).toMatchObject({ identical_frames: 24, min: null });
    expect(video.psnr_y.per_frame).toEqual(Array(24).fill(null));
    expect(audio).toMatchObject({ identical: true, sample_rate: 32000 });
    expect(audio?.channels).toHaveLength(2);
    expect(audio?.channels.every((c) => c.snr_db === null && c.identical)).toBe(true);
  });

  it('measures every frame of a differing pair and reports progress up to the total', async () => {
    const progress: MeasureProgress[] = [];
    const outcome = await measurePair(base, other, { onProgress: (p) => progress.push(p) });
    if (!outcome.ok) throw new Error(outcome.failure.message);
    const video = outcome.measurement.video as Required<VideoMetrics>;
    expect(video.identical).toBe(false);
    expect(video.ssim.per_frame).toHaveLength(24);
    expect(video.ssim.min).toBeLessThan(1);
    expect(video.psnr_y.per_frame.every((x) => typeof x === 'number' && x > 10)).toBe(true);
    expect(progress[0]).toEqual({ framesDone: 0, framesTotal: 24 });
    expect(progress.at(-1)).toEqual({ framesDone: 24, framesTotal: 24 });
    expect(progress.map((p) => p.framesDone)).toEqual([...Array(25).keys()]);
  });

  it('is deterministic: the same pair twice, audio in a helper thread or not, gives the same JSON', async () => {
    const x = await measurePair(base, other, { audioThread: true });
    const y = await measurePair(base, other, { audioThread: false });
    expect(x.ok && x.measurement.audio?.channels).toHaveLength(2);
    expect(JSON.stringify(x)).toBe(JSON.stringify(y));
  });

  it('measures exactly the chosen metric set, with the bytes of the `all` set, for every thread count', async () => {
    const all = await measurePair(base, other, { metrics: 'all', videoThreads: 0 });
    if (!all.ok) throw new Error(all.failure.message);
    const rgbFields = ['rgb_conversion', 'rgb_matrix', 'rgb_range'];
    const fields = (v: object): string[] => Object.keys(v).filter((k) => !['width', 'height', 'frames', 'identical', 'temporal_offset', ...rgbFields].includes(k)).sort();
    const expected: Record<string, { video: string[]; audio: boolean }> = {
      default: { video: ['mae', 'psnr_db', 'psnr_y', 'ssim', 'ssim_ffmpeg'], audio: true },
      ffmpeg: { video: ['psnr_y', 'ssim_ffmpeg'], audio: false },
      inferencex: { video: ['mae', 'psnr_db'], audio: true },
      'ssim,psnr_y': { video: ['psnr_y', 'ssim'], audio: false },
    };
    for (const [metrics, want] of Object.entries(expected)) {
      const results = [];
      for (const videoThreads of [0, 2]) results.push(await measurePair(base, other, { metrics, videoThreads }));
      expect(JSON.stringify(results[1]), `${metrics}: threads`).toBe(JSON.stringify(results[0]));
      const r = results[0]!;
      if (!r.ok) throw new Error(r.failure.message);
      expect(MeasureOutcome.parse(r)).toEqual(r);
      expect(fields(r.measurement.video), metrics).toEqual(want.video);
      // How rgb24 was made is recorded exactly when a chosen metric reads it: here, our conversion.
      const readsRgb = want.video.includes('mae');
      expect(rgbFields.map((f) => (r.measurement.video as Record<string, unknown>)[f]), metrics).toEqual(readsRgb ? ['fidelity', 'bt601', 'limited'] : [undefined, undefined, undefined]);
      // Not computed is absent, never null (null says the files have no audio).
      expect('audio' in r.measurement, metrics).toBe(want.audio);
      for (const f of want.video) {
        const key = f as keyof VideoMetrics;
        expect(JSON.stringify(r.measurement.video[key]), `${metrics}: ${f}`).toBe(JSON.stringify(all.measurement.video[key]));
      }
      if (want.audio) expect(JSON.stringify(r.measurement.audio)).toBe(JSON.stringify(all.measurement.audio));
      // The temporal offset diagnosis is in every set, the same bits: offset 0 comes from the ssim series where the set
      // has one and is measured by the same kernel where it has not.
      expect(r.measurement.video.temporal_offset, metrics).toBeDefined();
      expect(JSON.stringify(r.measurement.video.temporal_offset), `${metrics}: temporal_offset`).toBe(JSON.stringify(all.measurement.video.temporal_offset));
    }
    await expect(measurePair(base, other, { metrics: 'vmaf' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('gives the same JSON with the video metrics spread over helper threads as in one thread', async () => {
    const progress: MeasureProgress[] = [];
    const inThread = await measurePair(base, other, { videoThreads: 0 });
    for (const videoThreads of [1, 3]) {
      const spread = await measurePair(base, other, { videoThreads, onProgress: (p) => progress.push(p) });
      expect(JSON.stringify(spread)).toBe(JSON.stringify(inThread));
    }
    // Frames come back from the helpers in any order; progress still counts up one by one.
    expect(progress.filter((p) => p.framesDone === 24)).toHaveLength(2);
    expect(progress.every((p, i) => i === 0 || p.framesDone === 0 || p.framesDone === progress[i - 1]!.framesDone + 1)).toBe(true);
  });

  it('gives the same JSON with the Gaussian SSIM beside the measuring thread (two cores, no helper threads) as in one thread', async () => {
    // Large enough for the thread (autoSsimAside): 640x360, 90 frames.
    const big = await clips.make({ width: 640, height: 360, frames: 90 }, 'aside-a');
    const bigOther = await clips.make({ width: 640, height: 360, frames: 90, crf: 40 }, 'aside-b');
    /** MessagePorts open while a measurement runs, and its outcome. */
    const portsDuring = async (a: string, b: string, cores: number, metrics?: 'default'): Promise<{ ports: number; outcome: MeasureOutcome }> => {
      let ports = 0;
      const outcome = await measurePairOn(a, b, { ...(metrics ? { metrics } : {}), onProgress: () => (ports = Math.max(ports, process.getActiveResourcesInfo().filter((r) => r === 'MessagePort').length)) }, cores);
      expect(outcome.ok).toBe(true);
      return { ports, outcome };
    };
    // One core never starts the thread: that run is the default set's measurement in one thread, the
    // one the run beside is held to (it was measured once for each check; one run serves both).
    const oneCore = await portsDuring(big, bigOther, 1, 'default');
    expect(oneCore.ports).toBe(0);
    for (const metrics of ['default', 'all'] as const) {
      const inThread = metrics === 'default' ? oneCore.outcome : await measurePair(big, bigOther, { metrics, videoThreads: 0 });
      const progress: MeasureProgress[] = [];
      let ports = 0;
      const beside = await measurePairOn(big, bigOther, {
        metrics,
        onProgress: (p) => {
          progress.push(p);
          // The SSIM thread's port is open while differing frames are out.
          ports = Math.max(ports, process.getActiveResourcesInfo().filter((r) => r === 'MessagePort').length);
        },
      }, 2);
      expect(JSON.stringify(beside)).toBe(JSON.stringify(inThread));
      expect(ports).toBeGreaterThan(0);
      expect(progress.at(-1)).toEqual({ framesDone: 90, framesTotal: 90 });
      expect(progress.every((p, i) => i === 0 || p.framesDone === progress[i - 1]!.framesDone + 1)).toBe(true);
    }
    // Identical frames never start it; nor does a small stream (nor one core, above).
    expect((await portsDuring(big, big, 2)).ports).toBe(0);
    expect((await portsDuring(base, other, 2)).ports).toBe(0);
  });

  it('fails a corrupt candidate as UNDECODABLE with helper threads too, leaving no ffmpeg behind', async () => {
    const garbage = path.join(clips.dir, 'garbage-threads.mp4');
    writeFileSync(garbage, Buffer.alloc(10_000, 7));
    const outcome = await measurePair(base, garbage, { videoThreads: 2 });
    expect(outcome).toMatchObject({ ok: false, failure: { code: 'UNDECODABLE' } });
    expect(await ffmpegChildren()).toEqual([]);
  });

  describe('refuses an incompatible pair before any metric, with its reason code', () => {
    const cases: [string, Parameters<ClipFactory['make']>[0]][] = [
      ['INCOMPATIBLE_SIZE', { width: 160, height: 90 }],
      ['INCOMPATIBLE_FRAME_COUNT', { frames: 23 }],
      // Same frame count, other instants: 25 fps.
      ['INCOMPATIBLE_TIMESTAMPS', { fps: 25 }],
      ['INCOMPATIBLE_AUDIO_PRESENCE', { audio: null }],
      ['INCOMPATIBLE_SAMPLE_RATE', { audio: { sampleRate: 44100 } }],
      ['INCOMPATIBLE_CHANNELS', { audio: { channels: 1 } }],
      ['INCOMPATIBLE_SAMPLE_COUNT', { audio: { seconds: 1.5 } }],
      ['INCOMPATIBLE_PIXEL_FORMAT', { pixFmt: 'yuv444p' }],
      ['UNSUPPORTED_PIXEL_FORMAT', { codec: 'ffv1', pixFmt: 'yuv420p10le', ext: 'mkv' }],
    ];
    it.each(cases)('%s', async (code, spec) => {
      const candidate = await clips.make(spec);
      const progress: MeasureProgress[] = [];
      const outcome = await measurePair(base, candidate, { onProgress: (p) => progress.push(p) });
      // A side is named where the refusal is about one file; a difference between the two names none.
      const side = code === 'UNSUPPORTED_PIXEL_FORMAT' ? { side: 'candidate' } : {};
      // InferenceX refuses these pairs too (its own list: size, frame count, start/end time, audio presence,
      // rate, channels, sample count; the ffv1 clip in Matroska starts 32 ms later): the default set carries
      // its template. A chroma layout alone is no refusal of InferenceX's, so that pair has no figures.
      const inferencex = code === 'INCOMPATIBLE_PIXEL_FORMAT' ? {} : { inferencex: inferencexRefused() };
      expect(outcome).toEqual({ ok: false, failure: { code, message: expect.any(String), ...side }, ...inferencex });
      // No frame was measured: decoding never started. The audio's sample count is the decoder's, so
      // that check runs once the files are decoded (media/audio-facts.ts); the metrics are dropped.
      if (code !== 'INCOMPATIBLE_SAMPLE_COUNT') expect(progress).toEqual([]);
    });
  });

  it('accepts the same instants in another time base', async () => {
    // 90 kHz instead of 12288 Hz: same timestamps in seconds, so comparable.
    const { execFile } = await import('node:child_process');
    const { resolveFfmpeg } = await import('../../src/media/ffmpeg.js');
    const retimed = path.join(clips.dir, 'retimed.mp4');
    const ffmpeg = (await resolveFfmpeg()).ffmpeg.path;
    await new Promise<void>((resolve, reject) =>
      execFile(ffmpeg, ['-v', 'error', '-i', base, '-c', 'copy', '-video_track_timescale', '90000', retimed], (e) => (e ? reject(e) : resolve())),
    );
    const outcome = await measurePair(base, retimed);
    expect(outcome.ok && outcome.measurement.video.identical).toBe(true);
  });

  it('fails a corrupt file as UNDECODABLE with the decoder saying why', async () => {
    const garbage = path.join(clips.dir, 'garbage.mp4');
    writeFileSync(garbage, Buffer.alloc(10_000, 7));
    const outcome = await measurePair(base, garbage);
    expect(outcome).toMatchObject({ ok: false, failure: { code: 'UNDECODABLE', message: expect.stringContaining('candidate') } });
  });

  it('names the side ffmpeg names when the one process decoding both files fails', async () => {
    // A decoder that fails as ffmpeg does mid-stream, about one input: the probes and everything else run the real one.
    const { wrapperDecoder } = await import('../media/wrapper.js');
    const { mkdtempSync } = await import('node:fs');
    const dir = mkdtempSync(path.join(clips.dir, 'failing-'));
    const failing = (input: number) =>
      wrapperDecoder(dir, `ffmpeg-${input}`, [
        'case " $* " in *" rawvideo "*) ;; *) exec "$REAL" "$@";; esac',
        `echo "[h264 @ 0x5581] error while decoding MB 7 3, bytestream -5" >&2`,
        `echo "Error while decoding stream #${input}:0: Invalid data found when processing input" >&2`,
        'exit 1',
      ].join('\n')).file;
    for (const [input, side] of [[0, 'baseline'], [1, 'candidate']] as const) {
      const outcome = await measurePair(base, other, { ffmpeg: { ffmpegPath: failing(input) } });
      expect(outcome).toMatchObject({ ok: false, failure: { code: 'UNDECODABLE', side, message: expect.stringMatching(new RegExp(`^${side}: [\\s\\S]*stream #${input}:0`)) } });
    }
    expect(await ffmpegChildren()).toEqual([]);
  });

  it('fails a file whose index lists frames its data has lost (cut mid-stream) as UNDECODABLE', async () => {
    // moov first (faststart), then the mdat cut short: ffprobe lists every packet, decoding finds fewer frames.
    const { execFile } = await import('node:child_process');
    const { resolveFfmpeg } = await import('../../src/media/ffmpeg.js');
    const fast = path.join(clips.dir, 'fast.mp4');
    const ffmpeg = (await resolveFfmpeg()).ffmpeg.path;
    await new Promise<void>((resolve, reject) =>
      execFile(ffmpeg, ['-v', 'error', '-i', base, '-c', 'copy', '-movflags', '+faststart', fast], (e) => (e ? reject(e) : resolve())),
    );
    const bytes = readFileSync(fast);
    const cut = path.join(clips.dir, 'cut.mp4');
    writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length * 0.5)));
    const outcome = await measurePair(cut, base);
    expect(outcome).toMatchObject({ ok: false, failure: { code: 'UNDECODABLE', message: expect.stringContaining('baseline') } });
  });

  /** The long clip both abort tests measure, encoded once. */
  let longClip: Promise<string> | undefined;
  it.each([0, 2])('stops on abort (%i video helper threads): ABORTED, and no ffmpeg child left running', async (videoThreads) => {
    longClip ??= clips.make({ frames: 240, width: 320, height: 180 }, 'long');
    const long = await longClip;
    const controller = new AbortController();
    let children: number[] = [];
    const outcome = await measurePair(long, long, {
      videoThreads,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.framesDone === 5) {
          // Snapshot the decoders, then cancel.
          void ffmpegChildren().then((pids) => {
            children = pids;
            controller.abort();
          });
        }
      },
    });
    expect(outcome).toEqual({ ok: false, failure: { code: 'ABORTED', message: expect.any(String) } });
    // One ffmpeg decodes both files' video (the audio's starts after frame 8).
    expect(children.length).toBeGreaterThanOrEqual(1);
    const left = await ffmpegChildren();
    expect(left.filter((pid) => children.includes(pid))).toEqual([]);
  });

  it('answers ABORTED at once for a signal already aborted', async () => {
    expect(await measurePair(base, other, { signal: AbortSignal.abort() })).toMatchObject({ ok: false, failure: { code: 'ABORTED' } });
  });

  it('kills a child past its time limit: DECODE_TIMEOUT', async () => {
    const outcome = await measurePair(base, other, { timeoutMs: 1 });
    expect(outcome).toMatchObject({ ok: false, failure: { code: 'DECODE_TIMEOUT' } });
    expect(await ffmpegChildren()).toEqual([]);
  });

  it('throws on bad arguments and on a missing ffmpeg, which no pair could get past', async () => {
    await expect(measurePair('', other)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(measurePair(base, other, { timeoutMs: -5 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    for (const videoThreads of [-1, 1.5, 65, Number.NaN]) {
      await expect(measurePair(base, other, { videoThreads })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    }
    await expect(measurePair(base, other, { ffmpeg: { ffmpegPath: path.join(clips.dir, 'no-such-ffmpeg') } })).rejects.toMatchObject({
      code: 'FFMPEG_BROKEN',
    });
  });
});

describe('autoVideoThreads', () => {
  const stream = (width: number, height: number, frames: number): VideoProbe => ({ geometry: planeGeometry('yuv420p', width, height), frames }) as unknown as VideoProbe;

  it('gives a full-size stream one helper per core from 4 cores on, none on fewer (the decoders need them)', () => {
    const full = stream(1344, 768, 192);
    expect(AUTO_THREADS_MIN_CORES).toBe(4);
    expect([1, 2, 3, 4, 8, 16].map((cores) => autoVideoThreads(full, cores))).toEqual([0, 0, 0, 4, 8, 16]);
  });

  it('puts the Gaussian SSIM of a full-size stream beside the measuring thread from 2 cores on, not for a small one', () => {
    expect([1, 2, 3].map((cores) => autoSsimAside(stream(1344, 768, 192), cores))).toEqual([false, true, true]);
    expect(autoSsimAside(stream(128, 72, 24), 16)).toBe(false);
    expect(autoSsimAside({ geometry: null, frames: 192 } as unknown as VideoProbe, 16)).toBe(false);
  });

  it('gives a small stream none, and a stream without a known plane layout none', () => {
    expect(autoVideoThreads(stream(128, 72, 24), 16)).toBe(0);
    expect(autoVideoThreads({ geometry: null, frames: 192 } as unknown as VideoProbe, 16)).toBe(0);
  });
});
