// The short-clip set of `bench/phases.mjs --size short`: clips shaped like users' own (720x528,
// 84 frames at 24000/1001 fps, H.264 with B-frames, AAC stereo 48 kHz), in two valid run archives
// (docs/run-archive.md), a baseline and a candidate with 4 comparable pairs:
//
//   c000  byte-identical to the baseline
//   c001  the baseline re-encoded at CRF 28 (audio re-encoded at 96 kb/s)
//   c002  the baseline with a slight colour change (saturation +6%, gamma +3%), same CRF, audio copied
//   c003  the baseline re-encoded at CRF 18, audio copied
//
// Content is meant to load the codec and the metrics as real footage does, not flat test patterns:
// a zooming Mandelbrot, blurred Life, a cellular automaton over gradients and drifting gradients,
// each panned across a larger canvas with temporal grain; sound is filtered noise plus tones and
// chirps, different per channel. A candidate is made from the baseline MP4 (decoded and encoded
// again), as a user's re-encode is.
//
// The run folders come from the library's own generator (generateRuns, small profile, H200 and
// B200, 4 cases: every one of those slots is `ok` and has an MP4), then their media are swapped for
// these clips, plan.json states the clips' spec, run.json the new plan's digest, and the library's
// writeSeal reseals each folder; verifyRun must accept both before the set is used. Nothing here
// changes the generator: its profiles stay what the tests pin.
//
// Made once into bench/out/phases-short/ (git-ignored) and reused: short-clips.json is written last,
// so a set without it is remade.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const SHORT = { width: 720, height: 528, rate: '24000/1001', fps: 23.976, frames: 84, sampleRate: 48_000, crf: 23 };
// The audio is cut where the video ends, in whole samples: 84 frames x 1001/24000 s x 48000 Hz.
const SAMPLES = Math.round((SHORT.frames * 1001 * SHORT.sampleRate) / 24_000);
const CANVAS = '960x704'; // the sources are drawn larger than the clip and panned across

/**
 * Pans a 960x704 picture across the 720x528 frame (a different path per case), adds grain, cuts to
 * 84 frames. The grain goes on yuv420p: on the sources' packed RGBA it turns a frame to pure noise.
 */
const finish = (i) =>
  `crop=720:528:x='120+110*sin(t*${0.9 + 0.2 * i})':y='88+80*cos(t*${0.6 + 0.15 * i})',format=yuv420p,noise=alls=${5 + i}:allf=t,trim=end_frame=${SHORT.frames},setpts=PTS-STARTPTS`;

const VIDEO = [
  `mandelbrot=size=${CANVAS}:rate=${SHORT.rate}:start_scale=2.5:end_scale=0.05:end_pts=400:start_x=-0.743644:start_y=-0.131826:maxiter=128`,
  `life=size=240x176:rate=${SHORT.rate}:mold=8:ratio=0.12:seed=29:life_color=#f0c040:death_color=#102040:mold_color=#603020,scale=${CANVAS.replace('x', ':')}:flags=bicubic,gblur=sigma=3`,
  `gradients=size=${CANVAS}:rate=${SHORT.rate}:speed=0.03:seed=47,format=gbrp[g];cellauto=size=240x176:rate=${SHORT.rate}:rule=110:seed=47,scale=${CANVAS.replace('x', ':')}:flags=bicubic,gblur=sigma=1.5,format=gbrp[c];[g][c]blend=all_mode=screen`,
  `gradients=size=${CANVAS}:rate=${SHORT.rate}:n=6:speed=0.02:seed=83`,
];
const NOISE = ['pink', 'brown', 'white', 'pink'];
const TONES = [
  `0.18*sin(2*PI*(300+220*t)*t)|0.15*sin(2*PI*440*t)*(0.6+0.4*sin(2*PI*3*t))`,
  `0.2*sin(2*PI*196*t)*(0.5+0.5*sin(2*PI*0.7*t))|0.14*sin(2*PI*(880-150*t)*t)`,
  `0.12*sin(2*PI*523*t)+0.1*sin(2*PI*659*t)|0.16*sin(2*PI*(150+400*t)*t)`,
  `0.1*sin(2*PI*110*t)*(0.5+0.5*sin(2*PI*5*t))|0.1*sin(2*PI*(1200-300*t)*t)`,
];

const X264 = ['-c:v', 'libx264', '-preset', 'medium', '-pix_fmt', 'yuv420p']; // medium: 3 B-frames, as most encoders ship
const AAC = (kbps) => ['-c:a', 'aac', '-b:a', `${kbps}k`, '-ar', String(SHORT.sampleRate), '-ac', '2'];
const COMMON = ['-hide_banner', '-nostdin', '-loglevel', 'error', '-y'];
const CLEAN = ['-map_metadata', '-1', '-fflags', '+bitexact']; // output options: no creation time or version tags

function baselineArgs(i, out) {
  const audio = [
    `anoisesrc=color=${NOISE[i]}:sample_rate=${SHORT.sampleRate}:amplitude=0.15:seed=${11 + i},lowpass=f=${2500 + 500 * i},highpass=f=60,aformat=sample_fmts=fltp:channel_layouts=stereo[n]`,
    `aevalsrc='${TONES[i]}':c=stereo:s=${SHORT.sampleRate},aformat=sample_fmts=fltp[t]`,
    `[n][t]amix=inputs=2:normalize=0,atrim=end_sample=${SAMPLES}[a]`,
  ];
  return [...COMMON, '-filter_complex', [`${VIDEO[i]},${finish(i)}[v]`, ...audio].join(';'), '-map', '[v]', '-map', '[a]', ...X264, '-crf', String(SHORT.crf), ...AAC(128), ...CLEAN, out];
}

/** The candidates: what each does to its baseline MP4 (c000 is a byte copy). */
const CANDIDATES = [
  null,
  // The decoder hands out the last AAC frame whole (the end of the edit list is not applied on
  // input), so the re-encode is cut to the baseline's samples; its edit list then shows the same
  // 3.503 s, and the pair is comparable.
  ['-crf', '28', '-af', `atrim=end_sample=${SAMPLES}`, ...AAC(96)],
  ['-vf', 'eq=saturation=1.06:gamma=1.03', '-crf', String(SHORT.crf), '-c:a', 'copy'],
  ['-crf', '18', '-c:a', 'copy'],
];
const DESCRIPTIONS = ['byte-identical', 'CRF 28, audio re-encoded at 96 kb/s', 'saturation +6%, gamma +3%, audio copied', 'CRF 18, audio copied'];

async function limited(tasks, limit) {
  let next = 0;
  await Promise.all(Array.from({ length: limit }, async () => {
    while (next < tasks.length) await tasks[next++]();
  }));
}

/**
 * The set, made once: `{ baseline, candidate, pairs: [{ a, b, slot, candidate }] }`, paths absolute.
 * `lib` is the built library (dist/index.js), `root` the repository root, `ffmpeg` the resolved binary.
 */
export async function shortRuns({ root, lib, ffmpeg, log = () => {} }) {
  const dir = path.join(root, 'bench/out/phases-short');
  const done = path.join(dir, 'short-clips.json');
  if (!existsSync(done)) await make(dir, done, { root, lib, ffmpeg, log });
  const manifest = JSON.parse(readFileSync(done, 'utf8'));
  const abs = (p) => path.join(dir, p);
  return { baseline: abs('h200'), candidate: abs('b200'), pairs: manifest.pairs.map((p) => ({ ...p, a: abs(p.a), b: abs(p.b) })), planned: manifest.pairs.length };
}

async function make(dir, done, { root, lib, ffmpeg, log }) {
  log(`generating the short-clip set into ${path.relative(root, dir)} (once)...`);
  rmSync(dir, { recursive: true, force: true });
  const clips = path.join(dir, 'clips');
  mkdirSync(clips, { recursive: true });
  const base = (i) => path.join(clips, `base-${i}.mp4`);
  const cand = (i) => path.join(clips, `cand-${i}.mp4`);
  await limited([0, 1, 2, 3].map((i) => () => run(ffmpeg, baselineArgs(i, base(i)))), 2);
  await limited([0, 1, 2, 3].map((i) => async () => {
    if (!CANDIDATES[i]) copyFileSync(base(i), cand(i));
    else await run(ffmpeg, [...COMMON, '-i', base(i), ...X264, ...CANDIDATES[i], ...CLEAN, cand(i)]);
  }), 2);

  // The run skeletons: every file the format asks for, from the library's generator.
  const made = await lib.generateRuns({ outDir: dir, size: 'small', sites: ['H200', 'B200'], cases: 4, overwrite: true });
  rmSync(made.manifest); // it describes the generator's own differences, not these clips
  const plan = JSON.parse(readFileSync(path.join(dir, 'h200/plan.json'), 'utf8'));
  plan.plan_id = 'short-clips-720x528-84f-v1';
  plan.video = { width: SHORT.width, height: SHORT.height, fps: SHORT.fps, frames: SHORT.frames };
  plan.audio = { sample_rate: SHORT.sampleRate, channels: 2 };
  const planBytes = `${JSON.stringify(lib.PlanJson.parse(plan), null, 2)}\n`;
  const planSha = createHash('sha256').update(planBytes).digest('hex');
  const { writeSeal } = await import(pathToFileURL(path.join(root, 'packages/fidelity/dist/synth/seal.js')).href);
  const pairs = [];
  for (const [folder, clip] of [['h200', base], ['b200', cand]]) {
    const runDir = path.join(dir, folder);
    const runJson = JSON.parse(readFileSync(path.join(runDir, 'run.json'), 'utf8'));
    runJson.plan_sha256 = planSha;
    for (const r of runJson.records) {
      // The warmup runs case 0 and is never compared: the baseline's clip on both sides.
      const i = r.kind === 'warmup' ? 0 : plan.cases.findIndex((c) => c.case_id === r.case_id);
      copyFileSync(r.kind === 'warmup' ? base(0) : clip(i), path.join(runDir, r.media));
      if (folder === 'b200' && r.kind === 'measurement') pairs.push({ slot: r.slot_id, candidate: DESCRIPTIONS[i], a: `h200/${r.media}`, b: `b200/${r.media}` });
    }
    writeFileSync(path.join(runDir, 'plan.json'), planBytes);
    writeFileSync(path.join(runDir, 'run.json'), `${JSON.stringify(lib.RunJson.parse(runJson), null, 2)}\n`);
    await writeSeal(runDir);
    const verdict = await lib.verifyRun(runDir);
    if (!verdict.ok) throw new Error(`the short-clip run ${folder} does not verify: ${JSON.stringify(verdict.problems ?? verdict, null, 1).slice(0, 2000)}`);
  }
  rmSync(clips, { recursive: true, force: true });
  writeFileSync(done, `${JSON.stringify({ spec: SHORT, pairs }, null, 2)}\n`);
}
