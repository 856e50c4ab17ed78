/**
 * The pooled RGB PSNR and MAE of measurePair against InferenceX's own recipe, run live:
 * inferencex-recipe.py (PyAV's `to_ndarray("rgb24")` and numpy, Debian's /usr/bin/python3) on the
 * same files. Equal to the bit: the metric is InferenceX's, so a user comparing our report with
 * InferenceX's evaluator must read the same numbers.
 *
 * CI must run this (.ci/run installs python3-av and python3-numpy, and a missing one fails there).
 * Elsewhere, without them, it is reported as skipped, loudly, never as passed.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measurePair } from '../../src/pool/measure-pair.js';
import { ClipFactory } from '../media/clips.js';
import { ffmpeg, GOLDEN_DIR } from './oracle.js';

const run = promisify(execFile);
const PYTHON = '/usr/bin/python3';
const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'inferencex-recipe.py');
const RUNS = path.join(GOLDEN_DIR, '..', 'runs');

const probe = spawnSync(PYTHON, ['-c', 'import av, numpy'], { encoding: 'utf8' });
const why = probe.error ? `${PYTHON} not found` : probe.status !== 0 ? `${PYTHON} lacks PyAV or numpy (${probe.stderr.trim().split('\n').at(-1)})` : '';
if (why) {
  if (process.env.CI === 'true') throw new Error(`InferenceX's recipe must run on CI: ${why}. .ci/run installs python3-av and python3-numpy.`);
  console.warn(`SKIPPED: InferenceX's pooled RGB recipe (PyAV + numpy): ${why}; apt-get install -y python3-av python3-numpy.`);
}
const live = why ? describe.skip : describe;

interface RecipePair {
  baseline: string;
  candidate: string;
  pix_fmt?: string;
  frames?: number;
  mae?: number;
  psnr_db?: number | null;
  error?: string;
}

async function recipe(pairs: [string, string][]): Promise<{ versions: { libswscale: string }; pairs: RecipePair[] }> {
  const { stdout } = await run(PYTHON, [SCRIPT, ...pairs.flat()], { maxBuffer: 16 << 20 });
  return JSON.parse(stdout) as { versions: { libswscale: string }; pairs: RecipePair[] };
}

/** The libswscale version of the resolved ffmpeg, from its -version banner ("libswscale      6.  7.100 /  6.  7.100"). */
async function ffmpegSwscale(): Promise<string> {
  const { stdout } = await run(await ffmpeg(), ['-hide_banner', '-version']);
  const m = /libswscale\s+(\d+)\.\s*(\d+)\.\s*(\d+)/.exec(stdout);
  return m ? `${Number(m[1])}.${Number(m[2])}.${Number(m[3])}` : 'unknown';
}

const clips = new ClipFactory();
afterAll(() => clips.remove());

const measured = new Map<string, ReturnType<typeof measurePair>>();
/**
 * measurePair(a, b) in the inferencex set, one thread, measured once per pair in this file: the
 * pooled figures and the compare_media fields are checked on mostly the same fixture and golden
 * pairs, each against its own recipe, and they read one measurement instead of two alike.
 */
function measureInferencex(a: string, b: string): ReturnType<typeof measurePair> {
  const key = JSON.stringify([a, b]);
  let m = measured.get(key);
  if (!m) {
    m = measurePair(a, b, { metrics: 'inferencex', videoThreads: 0 });
    measured.set(key, m);
  }
  return m;
}

live("InferenceX's recipe: pooled RGB PSNR and MAE, to the bit", () => {
  const committed: [string, string][] = [];
  beforeAll(() => {
    const slots = ['measurement-r000-c000', 'measurement-r000-c001', 'measurement-r000-c002', 'measurement-r000-c003', 'measurement-r000-c004', 'measurement-r000-c005', 'measurement-r000-c008', 'measurement-r000-c009', 'warmup-000'];
    for (const candidate of ['b200', 'h100']) for (const s of slots) committed.push([path.join(RUNS, 'h200', 'media', `${s}.mp4`), path.join(RUNS, candidate, 'media', `${s}.mp4`)]);
    for (const n of ['noise', 'blur', 'content', 'tiny-1level', 'gain-offset']) committed.push([path.join(GOLDEN_DIR, 'media', `${n}-a.mp4`), path.join(GOLDEN_DIR, 'media', `${n}-b.mp4`)]);
  });

  it('every compatible pair of the committed runs and golden clips (our conversion)', async () => {
    const theirs = await recipe(committed);
    let compared = 0;
    for (const [i, [a, b]] of committed.entries()) {
      const outcome = await measureInferencex(a, b);
      const t = theirs.pairs[i]!;
      if (!outcome.ok) {
        // Incompatible pairs (the runs hold some on purpose) have no figures on either side.
        expect(t.error ?? outcome.failure.code, `${a} ${b}`).toBeDefined();
        continue;
      }
      const v = outcome.measurement.video;
      expect(t.error, `${a} ${b}`).toBeUndefined();
      expect(v.rgb_conversion).toBe('fidelity');
      expect({ frames: v.frames, psnr_db: v.psnr_db, mae: v.mae }, `${path.basename(a)} against ${b}`).toEqual({ frames: t.frames, psnr_db: t.psnr_db, mae: t.mae });
      compared++;
    }
    expect(compared).toBeGreaterThanOrEqual(20);
  }, 180_000);

  it('full range (yuvj420p) and 4:2:2 streams (our conversion), and 4:4:4 and an odd 4:2:0 height (ffmpeg converts, with PyAV\'s parameters)', async () => {
    const pairs: { files: [string, string]; by: 'fidelity' | 'ffmpeg'; range: 'limited' | 'full' }[] = [];
    const twoOf = async (spec: Parameters<ClipFactory['make']>[0]): Promise<[string, string]> => [
      await clips.make({ ...spec, crf: 18 }),
      await clips.make({ ...spec, crf: 34 }),
    ];
    pairs.push({ files: await twoOf({ width: 174, height: 98, frames: 6, audio: null, pixFmt: 'yuvj420p' }), by: 'fidelity', range: 'full' });
    pairs.push({ files: await twoOf({ width: 174, height: 98, frames: 6, audio: null, pixFmt: 'yuv422p' }), by: 'fidelity', range: 'limited' });
    pairs.push({ files: await twoOf({ width: 96, height: 64, frames: 6, audio: null, pixFmt: 'yuv444p' }), by: 'ffmpeg', range: 'limited' });
    // H.264 4:2:0 cannot have an odd height; MPEG-4 part 2 can.
    const odd = async (q: number): Promise<string> => {
      const file = path.join(clips.dir, `odd-${q}.mp4`);
      await run(await ffmpeg(), ['-nostdin', '-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=size=96x64:rate=24:d=0.25', '-vf', 'scale=96:63,format=yuv420p', '-c:v', 'mpeg4', '-q:v', String(q), file]);
      return file;
    };
    pairs.push({ files: [await odd(2), await odd(12)], by: 'ffmpeg', range: 'limited' });

    const theirs = await recipe(pairs.map((p) => p.files));
    const sameSwscale = (await ffmpegSwscale()) === theirs.versions.libswscale;
    if (!sameSwscale) console.warn(`NOTE: the resolved ffmpeg's libswscale is not PyAV's (${theirs.versions.libswscale}): the ffmpeg-converted pairs are checked for their conversion field only.`);
    for (const [i, p] of pairs.entries()) {
      const outcome = await measurePair(p.files[0], p.files[1], { metrics: 'inferencex', videoThreads: 0 });
      expect(outcome.ok, JSON.stringify(outcome)).toBe(true);
      if (!outcome.ok) continue;
      const v = outcome.measurement.video;
      const t = theirs.pairs[i]!;
      expect([v.rgb_conversion, v.rgb_matrix, v.rgb_range], t.pix_fmt).toEqual([p.by, 'bt601', p.range]);
      expect(v.psnr_db, t.pix_fmt).not.toBeNull();
      // ffmpeg's conversion equals PyAV's only with the same libswscale (and is not promised across CPUs).
      if (p.by === 'fidelity' || sameSwscale) expect({ psnr_db: v.psnr_db, mae: v.mae }, `${t.pix_fmt} ${p.files.join(' ')}`).toEqual({ psnr_db: t.psnr_db, mae: t.mae });
    }
  }, 180_000);
});

type Value = number | boolean | null | Value[];
interface RecipeMedia {
  baseline: string;
  candidate: string;
  compatible: boolean;
  refusal: string | null;
  metrics: Record<string, Value>;
}

/** Counts, flags, nulls and lists exactly; other numbers within 1e-9 relative (numpy's summation order). */
function sameFigure(ours: Value | undefined, theirs: Value, where: string): void {
  if (Array.isArray(theirs)) {
    expect(Array.isArray(ours), where).toBe(true);
    expect((ours as Value[]).length, `${where}.length`).toBe(theirs.length);
    theirs.forEach((t, i) => sameFigure((ours as Value[])[i], t, `${where}[${i}]`));
  } else if (typeof theirs === 'number' && !Number.isInteger(theirs)) {
    expect(typeof ours, where).toBe('number');
    expect(Math.abs((ours as number) - theirs), `${where}: ${ours} against ${theirs}`).toBeLessThanOrEqual(1e-9 * Math.abs(theirs));
  } else if (typeof theirs === 'number' && typeof ours === 'number' && !Number.isInteger(ours)) {
    // numpy may print an integral float (1.0, 0.0) where ours is the same value.
    expect(Math.abs(ours - theirs), where).toBeLessThanOrEqual(1e-9 * Math.abs(theirs));
  } else {
    expect(ours, where).toEqual(theirs);
  }
}

async function compareMediaRecipe(pairs: [string, string][]): Promise<RecipeMedia[]> {
  const { stdout } = await run(PYTHON, [SCRIPT, '--compare-media', ...pairs.flat()], { maxBuffer: 64 << 20 });
  return (JSON.parse(stdout) as { pairs: RecipeMedia[] }).pairs;
}

/** A small clip with float PCM in QuickTime (exact sample counts and exact silence, which AAC has neither of). */
async function pcmClip(name: string, exprs: string, samples = 16000, videoStart = 0): Promise<string> {
  const file = path.join(clips.dir, `${name}.mov`);
  await run(await ffmpeg(), [
    '-nostdin', '-v', 'error', '-y',
    '-f', 'lavfi', '-i', `testsrc2=size=64x48:rate=24,trim=start_frame=${videoStart}:end_frame=${videoStart + 12},setpts=PTS-STARTPTS`,
    '-f', 'lavfi', '-i', `aevalsrc=exprs=${exprs}:s=32000:d=1,atrim=end_sample=${samples}`,
    '-map', '0:v', '-map', '1:a', '-c:v', 'libx264', '-preset', 'ultrafast', '-crf', '30', '-threads', '1', '-pix_fmt', 'yuv420p', '-c:a', 'pcm_f32le', file,
  ]);
  return file;
}

live("InferenceX's compare_media, field for field (pairs[].inferencex)", () => {
  it('equals the recipe on every fixture pair with video and audio, and on the edge cases', async () => {
    const pairs: [string, string][] = [];
    const slots = ['measurement-r000-c000', 'measurement-r000-c001', 'measurement-r000-c002', 'measurement-r000-c003', 'measurement-r000-c004', 'measurement-r000-c005', 'measurement-r000-c006', 'measurement-r000-c007', 'measurement-r000-c008', 'measurement-r000-c009', 'warmup-000'];
    for (const candidate of ['b200', 'h100']) {
      // Every slot both runs have media for (a failed request has none).
      for (const s of slots) pairs.push([path.join(RUNS, 'h200', 'media', `${s}.mp4`), path.join(RUNS, candidate, 'media', `${s}.mp4`)]);
    }
    pairs.splice(0, pairs.length, ...pairs.filter((p) => p.every((f) => existsSync(f))));
    for (const n of ['noise', 'content']) pairs.push([path.join(GOLDEN_DIR, 'media', `${n}-a.mp4`), path.join(GOLDEN_DIR, 'media', `${n}-b.mp4`)]);
    const tone = '0.4*sin(2*PI*440*t)';
    const other = '0.3*sin(2*PI*523*t)+0.05*sin(2*PI*3000*t)';
    const edge = {
      silentBaselineChannel: [await pcmClip('sb-a', `0|${tone}`), await pcmClip('sb-b', `${tone}|${tone}`, 16000, 1)],
      silencedCandidateChannel: [await pcmClip('sc-a', `${tone}|${other}`), await pcmClip('sc-b', `${tone}|1e-5*sin(2*PI*440*t)`, 16000, 1)],
      bothSilent: [await pcmClip('bs-a', `0|${tone}`), await pcmClip('bs-b', `0|${other}`, 16000, 1)],
      // The same pictures (x264, one thread: the same stream), other sound.
      identicalVideo: [await pcmClip('iv-a', `${tone}|${tone}`), await pcmClip('iv-b', `${other}|${tone}`)],
      sameFile: [path.join(RUNS, 'h200', 'media', 'measurement-r000-c001.mp4'), path.join(RUNS, 'h200', 'media', 'measurement-r000-c001.mp4')],
      oneSampleShorter: [await pcmClip('os-a', `${tone}|${tone}`, 16000), await pcmClip('os-b', `${tone}|${tone}`, 15999)],
    } satisfies Record<string, [string, string]>;
    const edges = Object.entries(edge);
    pairs.push(...edges.map(([, p]) => p));
    const theirs = await compareMediaRecipe(pairs);
    let compatible = 0;
    for (const [i, [a, b]] of pairs.entries()) {
      const outcome = await measureInferencex(a, b);
      const ours = outcome.ok ? outcome.measurement.inferencex : outcome.inferencex;
      const t = theirs[i]!;
      const label = `${path.basename(a)} against ${path.relative(path.join(RUNS, '..'), b)}`;
      if (!t.compatible && !outcome.ok && !ours) {
        // This library refuses the pair first for a reason of its own (a different frame count is
        // InferenceX's too): then the figures must be there. Anything else is a test of nothing.
        throw new Error(`${label}: InferenceX refuses (${t.refusal}), we gave no figures (${outcome.failure.code})`);
      }
      expect(ours, label).toBeDefined();
      expect(ours!.compatible, `${label} (${t.refusal})`).toBe(t.compatible);
      expect(Object.keys(ours!.metrics).sort(), label).toEqual(Object.keys(t.metrics).sort());
      for (const [key, value] of Object.entries(t.metrics)) sameFigure((ours!.metrics as Record<string, Value>)[key], value, `${label}: ${key}`);
      if (t.compatible) compatible++;
    }
    expect(compatible).toBeGreaterThanOrEqual(20);

    // The edge cases say what they are named for.
    const at = (name: keyof typeof edge) => theirs[pairs.length - edges.length + edges.findIndex(([n]) => n === name)]!;
    expect(at('silentBaselineChannel').metrics).toMatchObject({ audio_rms_ratio_channels: [null, expect.any(Number)], audio_spectral_cosine: null, audio_spectral_cosine_channels: [null, expect.any(Number)] });
    expect(at('silencedCandidateChannel').metrics).toMatchObject({ audio_newly_silent_channels: [1] });
    expect(at('bothSilent').metrics).toMatchObject({ audio_rms_ratio_channels: [null, expect.any(Number)], audio_spectral_cosine_channels: [null, expect.any(Number)], audio_newly_silent_channels: [] });
    expect(at('identicalVideo').metrics).toMatchObject({ video_identical: true, video_psnr_db: null, video_mae: 0, audio_identical: false });
    expect(at('sameFile').metrics).toMatchObject({ video_identical: true, audio_identical: true, audio_spectral_cosine: 1 });
    expect(at('oneSampleShorter')).toMatchObject({ compatible: false, refusal: 'sample count' });
  }, 600_000);

  it('are the same figures in every set that computes them, and absent in the others', async () => {
    const [a, b] = [path.join(RUNS, 'h200', 'media', 'measurement-r000-c003.mp4'), path.join(RUNS, 'b200', 'media', 'measurement-r000-c003.mp4')];
    const ix = await measureInferencex(a, b);
    const all = await measurePair(a, b, { metrics: 'all', videoThreads: 1, audioThread: true });
    const ff = await measurePair(a, b, { metrics: 'ffmpeg', videoThreads: 0 });
    expect(ix.ok && all.ok && ff.ok).toBe(true);
    if (!ix.ok || !all.ok || !ff.ok) return;
    expect(ix.measurement.inferencex?.compatible).toBe(true);
    expect(JSON.stringify(all.measurement.inferencex)).toBe(JSON.stringify(ix.measurement.inferencex));
    expect(ff.measurement.inferencex).toBeUndefined();
  }, 180_000);
});
