/**
 * compare() over runs from three CI providers, end to end on generated runs: a GitHub baseline,
 * a GitLab candidate (job, pipeline and artifact links in GitLab's URL shapes) and an `other`
 * candidate (a run reference in words, no links). report.json, both pages and verify-bundle each
 * handle what a provider has and leave out what it has not; no link is invented.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sealDir } from './bundle-check/make-bundle.js';
import { verifyBundle } from '../src/bundle-check/verify.js';
import { reportJsonText } from '../src/bundle/write.js';
import { compare } from '../src/compare.js';
import type { CompareResult } from '../src/comparison/types.js';
import { Report } from '../src/schemas/report.js';
import { SYNTH_GITLAB } from '../src/synth/sites.js';
import { generateRuns, type GeneratedRuns } from '../src/synth/index.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-providers-'));
let runs: GeneratedRuns;
let result: CompareResult;
const dir = (site: string) => runs.runs.find((r) => r.site === site)!.dir;

beforeAll(async () => {
  runs = await generateRuns({ outDir: path.join(tmp, 'runs'), cases: 2, providers: { B200: 'gitlab', H100: 'other' } });
  result = await compare(dir('H200'), [dir('B200'), dir('H100')], { out: path.join(tmp, 'bundle'), threads: 2 });
}, 300_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('compare across CI providers', () => {
  it('records each run with its provider and the links that provider has', () => {
    const byGpu = (gpu: string) => result.report.runs.find((r) => r.hardware.gpu_model === gpu)!;
    const github = byGpu('H200');
    expect(github).toMatchObject({ provider: 'github', server_url: 'https://github.com', repository: 'example-org/video-serving-bench', workflow: 'h3-serving' });
    expect(github.links.run).toBe(`https://github.com/example-org/video-serving-bench/actions/runs/${github.run_id}/attempts/${github.run_attempt}`);

    const gitlab = byGpu('B200');
    const project = `${SYNTH_GITLAB.server_url}/${SYNTH_GITLAB.project_path}/-`;
    expect(gitlab).toMatchObject({ provider: 'gitlab', server_url: SYNTH_GITLAB.server_url, repository: SYNTH_GITLAB.project_path, workflow: null, run_attempt: 1, artifact: { id: null } });
    expect(gitlab.gitlab).toEqual({ project_id: SYNTH_GITLAB.project_id, pipeline_id: expect.any(Number) });
    expect(gitlab.links).toEqual({
      run: `${project}/jobs/${gitlab.run_id}`,
      artifact: `${project}/jobs/${gitlab.run_id}/artifacts/browse`,
      pipeline: `${project}/pipelines/${gitlab.gitlab!.pipeline_id}`,
    });

    const other = byGpu('H100');
    expect(other).toMatchObject({ provider: 'other', server_url: null, repository: null, workflow: null, links: { run: null, artifact: null }, artifact: { id: null } });
    expect(other.run_ref).toMatch(/^Jenkins video-serving-bench #/);
    // report.json as written reads back through its schema.
    Report.parse(JSON.parse(readFileSync(path.join(result.out, 'report.json'), 'utf8')));
  });

  it('links GitLab pages from both pages and shows the other run in words, with no link', () => {
    const gitlab = result.report.runs.find((r) => r.provider === 'gitlab')!;
    const other = result.report.runs.find((r) => r.provider === 'other')!;
    for (const page of ['index.html', 'index.zh.html']) {
      const html = readFileSync(path.join(result.out, page), 'utf8');
      for (const url of [gitlab.links.run!, gitlab.links.artifact!, gitlab.links.pipeline!]) expect(html, `${page} ${url}`).toContain(`href="${url}"`);
      expect(html).toContain(other.run_ref!.replace(/&/g, '&amp;'));
      expect(html).toContain('GitLab CI');
      // Every outside link goes to a server a run declares: github.com or the GitLab server.
      const origins = new Set([...html.matchAll(/href="(https:[^"]+)"/g)].map((m) => new URL(m[1]!).origin));
      expect([...origins].sort()).toEqual(['https://github.com', SYNTH_GITLAB.server_url].sort());
    }
  });

  it('verify-bundle accepts the GitLab https links and checks no link for the other run', async () => {
    const checked = await verifyBundle(result.out);
    expect(checked.errors).toEqual([]);
    expect(checked.ok).toBe(true);
  });

  it('verify-bundle refuses a link claimed for a run of provider "other", even to a declared server', async () => {
    const copy = path.join(tmp, 'tampered');
    rmSync(copy, { recursive: true, force: true });
    await import('node:fs/promises').then((fs) => fs.cp(result.out, copy, { recursive: true }));
    const report = Report.parse(JSON.parse(readFileSync(path.join(copy, 'report.json'), 'utf8')));
    const other = report.runs.find((r) => r.provider === 'other')!;
    other.links.run = 'https://github.com/example-org/video-serving-bench/actions/runs/1/attempts/1';
    writeFileSync(path.join(copy, 'report.json'), reportJsonText(report));
    sealDir(copy);
    const checked = await verifyBundle(copy);
    expect(checked.ok).toBe(false);
    expect(checked.errors.map((e) => `${e.code} ${e.where?.path ?? ''}`)).toEqual([`BUNDLE_LINK_EXTERNAL runs[${report.runs.indexOf(other)}].links.run`]);
  });
});
