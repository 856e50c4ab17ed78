import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FidelityError } from '../../src/errors.js';
import { PlanJson, RunJson } from '../../src/schemas/run-archive.js';
import { generateRuns, type GenerateRunsOptions } from '../../src/synth/index.js';
import { probeStreams, readJson, sha256 } from './helpers.js';
import { refusal as refused } from '../refusal.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'fidelity-synth-options-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

const refusal = (options: unknown): Promise<FidelityError> => refused(generateRuns(options as GenerateRunsOptions));

describe('options', () => {
  it('refuses bad values before starting any work, naming the option', async () => {
    const out = path.join(root, 'never');
    const cases: [unknown, RegExp][] = [
      [undefined, /Expected an object for options/],
      [{}, /options\.outDir/],
      [{ outDir: out, size: 'huge' }, /options\.size .*"huge"/],
      [{ outDir: out, seconds: 0 }, /Expected an integer number of seconds from 1 to 3600 for options\.seconds but received 0/],
      [{ outDir: out, seconds: 1.5 }, /options\.seconds/],
      [{ outDir: out, repetitions: -1 }, /options\.repetitions/],
      [{ outDir: out, sites: ['H200', 'MI355X'] }, /options\.sites/],
      [{ outDir: out, sites: ['H200', 'H200'] }, /without duplicates/],
      [{ outDir: out, onProgress: 'loud' }, /Expected a function for options\.onProgress/],
      [{ outDir: out, cases: 11 }, /Expected an integer from 1 to 10 \(the small plan's case count\) for options\.cases but received 11/],
      [{ outDir: out, planOverride: { video: { width: 0 } } }, /Expected an integer from 1 to 65536 for options\.planOverride\.video\.width but received 0/],
      [{ outDir: out, planOverride: { audio: { channels: 1.5 } } }, /options\.planOverride\.audio\.channels/],
      [{ outDir: out, planOverride: 'wide' }, /options\.planOverride/],
    ];
    for (const [options, message] of cases) {
      const e = await refusal(options);
      expect(e.code).toBe('INVALID_ARGUMENT');
      expect(e.message).toMatch(message);
    }
    await expect(readdir(out)).rejects.toThrow();
  });

  it('names the output folder when it cannot be created', async () => {
    const file = path.join(root, 'a-file');
    await writeFile(file, 'not a folder');
    const e = await refusal({ outDir: path.join(file, 'runs') });
    expect(e.code).toBe('OUTPUT_UNWRITABLE');
    expect(e.message).toContain(file);
  });

  it('does not touch an existing run unless asked to overwrite it', async () => {
    const out = path.join(root, 'exists');
    await mkdir(path.join(out, 'b200'), { recursive: true });
    await writeFile(path.join(out, 'b200', 'keep.txt'), 'mine');
    const e = await refusal({ outDir: out, sites: ['H200', 'B200'] });
    expect(e.code).toBe('OUTPUT_EXISTS');
    expect(await readdir(out)).toEqual(['b200']);
    expect(await readFile(path.join(out, 'b200', 'keep.txt'), 'utf8')).toBe('mine');

    const r = await generateRuns({ outDir: out, sites: ['B200'], overwrite: true });
    expect(r.runs.map((x) => x.site)).toEqual(['B200']);
    // The old folder was swapped out whole, not merged into.
    expect((await readdir(path.join(out, 'b200'))).sort()).toEqual(['SHA256SUMS', 'ci.json', 'media', 'plan.json', 'run.json', 'telemetry']);
    expect((await readdir(out)).sort()).toEqual(['b200', 'synth-manifest.json']);
  });

  it('stops on abort and leaves no run and no temp folder behind', async () => {
    const out = path.join(root, 'aborted');
    const controller = new AbortController();
    const pending = generateRuns({
      outDir: out,
      signal: controller.signal,
      onProgress: (e) => {
        if (e.stage === 'encode' && e.done === 2) controller.abort();
      },
    });
    await expect(pending).rejects.toMatchObject({ code: 'ABORTED' });
    expect(await readdir(out)).toEqual([]);
  });
});

describe('plan variants', () => {
  it('supports repetitions, a longer clip, a site subset and a case limit', async () => {
    const out = path.join(root, 'variant');
    const events: string[] = [];
    const r = await generateRuns({ outDir: out, sites: ['H200', 'B200'], repetitions: 2, seconds: 2, cases: 8, onProgress: (e) => events.push(`${e.stage} ${e.done}/${e.total}`) });
    expect(r.runs.map((x) => x.site)).toEqual(['H200', 'B200']);
    expect(r.plan).toMatchObject({ plan_id: 'h3-cross-hardware-small-2s-r2-c8-v1', cases: 8, repetitions: 2, frames: 24, seconds: 2 });
    expect(events.at(-1)).toBe('write 2/2');
    const plan = PlanJson.parse(await readJson(path.join(r.runs[0]!.dir, 'plan.json')));
    expect([plan.repetitions, plan.cases.length, plan.video.frames]).toEqual([2, 8, 24]);
    const run = RunJson.parse(await readJson(path.join(r.runs[1]!.dir, 'run.json')));
    const ids = run.records.map((x) => x.slot_id);
    expect(ids).toHaveLength(1 + 2 * 8);
    expect(ids.slice(0, 2)).toEqual(['warmup-000', 'measurement-r000-c000']);
    expect(ids.at(-1)).toBe('measurement-r001-c007');
    expect(run.records.filter((x) => x.repetition === 1)).toHaveLength(8);
    // Both repetitions of a case carry the same difference, hence the same bytes.
    const m = (rep: number, c: number) => path.join(r.runs[1]!.dir, 'media', `measurement-r00${rep}-c00${c}.mp4`);
    expect(await sha256(m(0, 3))).toBe(await sha256(m(1, 3)));
    const short = r.slots.find((s) => s.difference === 'shorter_stream' && s.repetition === 1)!;
    const streams = await probeStreams(path.join(r.runs[1]!.dir, 'media', `${short.slot_id}.mp4`));
    expect(streams[0]!.nb_read_frames).toBe('20');
    expect((await probeStreams(m(0, 0)))[0]!.nb_read_frames).toBe('24');
  });
});
