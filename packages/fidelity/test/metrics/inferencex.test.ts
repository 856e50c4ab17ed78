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
      const outcome = await measurePair(a, b, { metrics: 'inferencex', videoThreads: 0 });
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
