import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIO_DIFF_SECONDS } from '../../src/bundle/assets-keys.js';
import { makePairAssets } from '../../src/bundle/assets.js';
import { worstFrameOf } from '../../src/bundle/video-series.js';
import { extractAudio, extractFrame, stillOf } from '../../src/media/frames.js';
import type { PairCapture } from '../../src/media/frames.js';
import type { DecodedFrame } from '../../src/metrics/frame.js';
import { createFrameCapture } from '../../src/pool/frame-capture.js';
import { measurePairKeeping } from '../../src/pool/measure-pair.js';
import type { MeasureOptions } from '../../src/pool/api.js';
import type { PairMeasurement } from '../../src/schemas/measurement.js';
import type { PairReport } from '../../src/schemas/report.js';
import { ClipFactory } from '../media/clips.js';


const clips = new ClipFactory();
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-capture-test-'));
afterAll(() => {
  clips.remove();
  rmSync(tmp, { recursive: true, force: true });
});
let base: string;
let other: string;
let base444: string;
let other444: string;
beforeAll(async () => {
  [base, other, base444, other444] = await Promise.all([
    clips.make({ frames: 12 }, 'base'),
    // Other audio (a 660 Hz tone), so the pair has difference audio and a waveform.
    clips.make({ frames: 12, crf: 40, audio: { frequency: 660, seconds: 0.5 } }, 'other'),
    clips.make({ frames: 6, pixFmt: 'yuv444p', audio: null }, 'base444'),
    clips.make({ frames: 6, pixFmt: 'yuv444p', crf: 40, audio: null }, 'other444'),
  ]);
});

const keep = { audioSeconds: AUDIO_DIFF_SECONDS };

async function measured(a: string, b: string, options: MeasureOptions): Promise<{ measurement: PairMeasurement; capture: PairCapture }> {
  const { outcome, capture } = await measurePairKeeping(a, b, options, 1, keep);
  if (!outcome.ok) throw new Error(outcome.failure.message);
  if (!capture) throw new Error('nothing captured');
  return { measurement: outcome.measurement, capture };
}

/** The capture equals what the fallback extracts from the files, byte for byte. */
async function expectSameAsExtracted(a: string, b: string, m: PairMeasurement, capture: PairCapture): Promise<void> {
  const video = m.video;
  const worst = worstFrameOf(video);
  expect(capture.frame?.index).toBe(worst);
  const size = { width: video.width, height: video.height };
  for (const [file, side] of [[a, capture.frame!.baseline], [b, capture.frame!.candidate]] as const) {
    const extracted = await extractFrame(file, worst, size);
    expect(Buffer.from(side.planes).equals(Buffer.from(extracted.native.planes))).toBe(true);
    expect(side.rgb === null ? null : Buffer.from(side.rgb).equals(Buffer.from(extracted.native.rgb!))).toBe(extracted.native.rgb === null ? null : true);
    expect(side.pixFmt).toBe(extracted.native.pixFmt);
    const still = stillOf(side);
    expect(Buffer.from(still.rgb).equals(Buffer.from(extracted.rgb))).toBe(true);
    expect(Buffer.from(still.y).equals(Buffer.from(extracted.y))).toBe(true);
  }
  if (m.audio) {
    const layout = { channels: m.audio.channels.length, maxSamples: m.audio.sample_rate * AUDIO_DIFF_SECONDS };
    for (const [file, head] of [[a, capture.audio!.baseline], [b, capture.audio!.candidate]] as const) {
      const extracted = await extractAudio(file, layout);
      expect(head.map((c) => c.length)).toEqual(extracted.map((c) => c.length));
      head.forEach((c, i) => expect(Buffer.from(c.buffer, c.byteOffset, c.byteLength).equals(Buffer.from(extracted[i]!.buffer))).toBe(true));
    }
  } else {
    expect(capture.audio).toBeNull();
  }
}

describe('the measuring decode keeps the stills\' frame and the audio head', () => {
  it('in the measuring thread: the same planes, rgb24 and float samples as extracting them again', async () => {
    const { measurement, capture } = await measured(base, other, { videoThreads: 0 });
    expect(measurement.video.identical).toBe(false);
    expect(capture.frame!.baseline.rgb).toBeNull(); // yuv420p: the library converts, ffmpeg gives no rgb24
    await expectSameAsExtracted(base, other, measurement, capture);
  });

  it('for the inferencex set, which charts no series: frame 0, the stills\' stand-in, as extracted', async () => {
    for (const videoThreads of [0, 2]) {
      const ix = await measured(base, other, { videoThreads, metrics: 'inferencex' });
      expect(ix.measurement.video.ssim).toBeUndefined();
      expect(ix.measurement.video.psnr_y).toBeUndefined();
      expect(ix.capture.frame?.index).toBe(0);
      await expectSameAsExtracted(base, other, ix.measurement, ix.capture);
    }
  });

  it('with helper threads, and for the ffmpeg set (its worst frame is FFmpeg All\'s)', async () => {
    const threaded = await measured(base, other, { videoThreads: 2 });
    await expectSameAsExtracted(base, other, threaded.measurement, threaded.capture);
    const ff = await measured(base, other, { videoThreads: 0, metrics: 'ffmpeg' });
    expect(ff.measurement.video.ssim).toBeUndefined();
    expect(ff.capture.frame?.index).toBe(ff.measurement.video.ssim_ffmpeg!.all.worst_frame);
    expect(ff.capture.audio).toBeNull(); // a set without `audio` writes no difference audio
  });

  it('for a stream converted by ffmpeg (4:4:4): ffmpeg\'s rgb24 through the decoder\'s filter, as extracted', async () => {
    const { measurement, capture } = await measured(base444, other444, { videoThreads: 0 });
    expect(capture.frame!.baseline.rgb?.length).toBe(measurement.video.width * measurement.video.height * 3);
    await expectSameAsExtracted(base444, other444, measurement, capture);
  });

  it('gives the bundle the same files as extracting, and falls back when the kept frame is not the stills\' frame', async () => {
    const { measurement, capture } = await measured(base, other, { videoThreads: 0 });
    const pair = { video: measurement.video, audio: measurement.audio ?? null } as Pick<PairReport, 'video' | 'audio'>;
    const write = async (name: string, kept?: PairCapture, files = { baselinePath: base, candidatePath: other }): Promise<Map<string, Buffer>> => {
      const outDir = path.join(tmp, name);
      await makePairAssets({ pair, ...files, outDir, prefix: 'p', ...(kept ? { capture: kept } : {}) });
      const dir = path.join(outDir, 'p');
      return new Map(readdirSync(dir).sort().map((f) => [f, readFileSync(path.join(dir, f))]));
    };
    const extracted = await write('extracted');
    // With the capture the files are not decoded at all: paths that do not exist are never opened.
    const missing = { baselinePath: path.join(tmp, 'missing-a.mp4'), candidatePath: path.join(tmp, 'missing-b.mp4') };
    const fromCapture = await write('captured', capture, missing);
    expect([...extracted.keys()].filter((f) => f.endsWith('.flac'))).toHaveLength(1);
    expect([...extracted.keys()]).toContain('baseline-worst.webp');
    expect([...fromCapture.keys()]).toEqual([...extracted.keys()]);
    for (const [f, bytes] of extracted) expect(fromCapture.get(f)!.equals(bytes), f).toBe(true);
    // A frame other than the stills' (and no audio) is not used: the files are extracted, the same bytes.
    const wrong: PairCapture = { frame: { ...capture.frame!, index: (capture.frame!.index + 1) % measurement.video.frames, baseline: { ...capture.frame!.baseline, planes: new Uint8Array(capture.frame!.baseline.planes.length) } }, audio: null };
    const fellBack = await write('fallback', wrong);
    for (const [f, bytes] of extracted) expect(fellBack.get(f)!.equals(bytes), f).toBe(true);
  });
});

describe('createFrameCapture', () => {
  const W = 4;
  const H = 2;
  const frameOf = (fill: number): DecodedFrame => ({ width: W, height: H, chromaWidth: 2, chromaHeight: 1, y: new Uint8Array(W * H).fill(fill), u: new Uint8Array(2).fill(fill), v: new Uint8Array(2).fill(fill) });
  const video = (worst: number): never => ({ ssim: { worst_frame: worst } }) as never;
  const capture = (): ReturnType<typeof createFrameCapture> => createFrameCapture(['ssim', 'psnr_y'], { pixFmt: 'yuv420p', samples: W * H, rgb24: false }, 0);

  it('keeps the smallest value, the first index on ties, whatever order the values come in', () => {
    const c = capture();
    // Frames 0..3 in order; values of 1 and 3 come back late (copies wait for them), 2 and 0 at once.
    c.onValues(0, { metrics: { ssim: 0.9 } });
    c.frame(0, frameOf(0), frameOf(100), false);
    c.frame(1, frameOf(1), frameOf(101), true);
    c.onValues(2, { metrics: { ssim: 0.5 } });
    c.frame(2, frameOf(2), frameOf(102), false);
    c.frame(3, frameOf(3), frameOf(103), true);
    c.onValues(3, { metrics: { ssim: 0.5 } }); // a tie, later index: not kept
    c.onValues(1, { metrics: { ssim: 0.5 } }); // the same value at an earlier index: kept
    c.onValues(4, { metrics: { ssim: Number.NaN } }); // NaN is nobody's worst
    const kept = c.finish(video(1));
    expect(kept.frame?.index).toBe(1);
    expect([...kept.frame!.baseline.planes]).toEqual(Array(12).fill(1));
    expect([...kept.frame!.candidate.planes]).toEqual(Array(12).fill(101));
  });

  it('reuses the buffers of dropped copies without touching the kept one', () => {
    const c = capture();
    const values = [0.9, 0.4, 0.7, 0.2, 0.8, 0.6, 0.3, 0.95];
    // Each frame set aside, its value back one frame later (as with the SSIM helper).
    values.forEach((v, i) => {
      c.frame(i, frameOf(i), frameOf(50 + i), true);
      if (i > 0) c.onValues(i - 1, { metrics: { ssim: values[i - 1] } });
    });
    c.onValues(values.length - 1, { metrics: { ssim: values.at(-1) } });
    const kept = c.finish(video(3));
    expect(kept.frame?.index).toBe(3);
    expect([...kept.frame!.baseline.planes]).toEqual(Array(12).fill(3));
    expect([...kept.frame!.candidate.planes]).toEqual(Array(12).fill(53));
  });

  it('hands over no frame when the worst frame\'s value came after its buffers were gone, or the series disagrees', () => {
    const c = capture();
    c.onValues(0, { metrics: { ssim: 0.5 } });
    c.frame(0, frameOf(0), frameOf(0), false);
    c.frame(1, frameOf(1), frameOf(1), false); // no value yet, not set aside
    c.onValues(1, { metrics: { ssim: 0.1 } });
    expect(c.finish(video(1)).frame).toBeNull();
    const d = capture();
    d.onValues(0, { metrics: { ssim: 0.1 } });
    d.frame(0, frameOf(0), frameOf(0), false);
    expect(d.finish(video(0)).frame?.index).toBe(0);
    const e = capture();
    e.onValues(0, { metrics: { ssim: 0.1 } });
    e.frame(0, frameOf(0), frameOf(0), false);
    expect(e.finish(video(3)).frame).toBeNull();
  });

  it('holds frame 0 as the stand-in while no frame is worse: before its value, with NaN values, and in a set that tracks no series', () => {
    // Frame 0 before its value: kept, and it stays the stills' frame when its value is the worst.
    const c = capture();
    c.frame(0, frameOf(0), frameOf(100), false);
    c.onValues(0, { metrics: { ssim: 0.1 } });
    c.frame(1, frameOf(1), frameOf(101), false);
    c.onValues(1, { metrics: { ssim: 0.5 } });
    expect([...c.finish(video(0)).frame!.candidate.planes]).toEqual(Array(12).fill(100));
    // PSNR Y with every frame equal: no value is anybody's worst, the series has no worst frame, the stills show frame 0.
    const psnr = createFrameCapture(['psnr_y'], { pixFmt: 'yuv420p', samples: W * H, rgb24: false }, 0);
    for (const i of [0, 1, 2]) {
      psnr.frame(i, frameOf(i), frameOf(i), false);
      psnr.onValues(i, { metrics: { psnr_y: 0 } });
    }
    expect(psnr.finish({ psnr_y: { worst_frame: null } } as never).frame?.index).toBe(0);
    // A frame 0 whose NaN value comes after its copy was set aside: the copy becomes the stand-in.
    const late = capture();
    late.frame(0, frameOf(0), frameOf(100), true);
    late.onValues(0, { metrics: { ssim: Number.NaN } });
    expect(late.finish({ ssim: { worst_frame: null } } as never).frame?.index).toBe(0);
    // The stand-in gives way to the first frame worse than nothing, and comes back on a tie at frame 0 set aside.
    const tie = capture();
    tie.frame(0, frameOf(0), frameOf(100), true);
    tie.frame(1, frameOf(1), frameOf(101), true);
    tie.onValues(1, { metrics: { ssim: 0.5 } });
    tie.onValues(0, { metrics: { ssim: 0.5 } });
    expect([...tie.finish(video(0)).frame!.baseline.planes]).toEqual(Array(12).fill(0));
    // The `inferencex` set (psnr_db, mae, audio) tracks no series: frame 0 is the stills' frame, kept once.
    const ix = createFrameCapture(['psnr_db', 'mae', 'audio'], { pixFmt: 'yuv420p', samples: W * H, rgb24: false }, 0);
    for (const i of [0, 1, 2]) {
      ix.onValues(i, { metrics: { psnr_db: 1, mae: 2 } });
      ix.frame(i, frameOf(i), frameOf(50 + i), false);
    }
    const kept = ix.finish({ mae: 0.5 } as never).frame;
    expect(kept?.index).toBe(0);
    expect([...kept!.candidate.planes]).toEqual(Array(12).fill(50));
    expect(ix.finish(null).frame).toBeNull(); // nothing measured: nothing handed over
  });

  it('keeps the first seconds of audio per channel, across chunks, and no more', () => {
    const c = createFrameCapture(['ssim'], { pixFmt: 'yuv420p', samples: W * H, rgb24: false }, 5);
    const chunk = (from: number, n: number): Float32Array[] => [Float32Array.from({ length: n }, (_, i) => from + i), Float32Array.from({ length: n }, (_, i) => -(from + i))];
    c.audio(chunk(0, 3), chunk(10, 3));
    c.audio(chunk(3, 3), chunk(13, 3));
    c.audio(chunk(6, 3), chunk(16, 3));
    const { audio } = c.finish(null);
    expect(audio!.baseline.map((ch) => [...ch])).toEqual([[0, 1, 2, 3, 4], [-0, -1, -2, -3, -4]]);
    expect(audio!.candidate.map((ch) => [...ch])).toEqual([[10, 11, 12, 13, 14], [-10, -11, -12, -13, -14]]);
  });
});
