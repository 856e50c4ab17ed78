/**
 * ci.json per CI provider (docs/run-archive.md, "ci.json"): GitHub as before (version 1 files
 * unchanged), GitLab with the ids GitLab has and links built from them in GitLab's URL shapes, any
 * other CI with a run reference in words and no links at all. Provider attestation stays GitHub's:
 * asking for it on another CI's run is refused with its own code.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summarizeRun } from '../../src/archive/summary.js';
import { verifyRun } from '../../src/archive/verify.js';
import { render, rm, tempRoot, validDraft, writeDir, writeZip, zipItems, type Draft } from './fixture.js';

let root: string;
let n = 0;
beforeAll(async () => {
  root = await tempRoot('providers');
});
afterAll(() => rm(root, { recursive: true, force: true }));

function gitlab(d: Draft): Draft {
  const { repository: _r, workflow: _w, artifact, ...rest } = d.ci;
  d.ci = { ...rest, schema_version: 2, provider: 'gitlab', server_url: 'https://gitlab.example.com/', project_path: 'example-org/serving/video-serving-bench', project_id: 4242, pipeline_id: 1187654321, artifact: { name: artifact.name } };
  return d;
}

function other(d: Draft): Draft {
  const { server_url: _s, repository: _r, workflow: _w, artifact, ...rest } = d.ci;
  d.ci = { ...rest, schema_version: 2, provider: 'other', run_ref: 'Jenkins video-serving-bench #812 (ci.example.internal)', artifact: { name: artifact.name } };
  return d;
}

async function verifyDraft(d: Draft, options: Parameters<typeof verifyRun>[1] = {}) {
  return verifyRun(await writeDir(render(d), path.join(root, `run-${n++}`)), options);
}

describe('ci.json providers', () => {
  it('reads a version 1 ci.json (no provider) as GitHub, exactly as before', async () => {
    const r = await verifyDraft(validDraft());
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.run.ci.provider).toBeUndefined();
    expect(r.run.links).toEqual({
      run: 'https://github.com/example-org/video-serving-bench/actions/runs/30054883436/attempts/1',
      artifact: 'https://github.com/example-org/video-serving-bench/actions/runs/30054883436/artifacts/4242001',
    });
    expect(summarizeRun(r.run)).toMatchObject({ provider: 'github', repository: 'example-org/video-serving-bench', workflow: 'h3-serving', artifact: { id: 4242001 } });
  });

  it('reads a version 2 ci.json that names github the same way', async () => {
    const d = validDraft();
    d.ci.schema_version = 2;
    d.ci.provider = 'github';
    const r = await verifyDraft(d);
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.run.links.run).toBe('https://github.com/example-org/video-serving-bench/actions/runs/30054883436/attempts/1');
  });

  it('builds GitLab links from GitLab ids: the job, its pipeline, the job artifacts', async () => {
    const r = await verifyDraft(gitlab(validDraft()));
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    const project = 'https://gitlab.example.com/example-org/serving/video-serving-bench/-';
    expect(r.run.links).toEqual({ run: `${project}/jobs/30054883436`, artifact: `${project}/jobs/30054883436/artifacts/browse`, pipeline: `${project}/pipelines/1187654321` });
    expect(summarizeRun(r.run)).toMatchObject({
      provider: 'gitlab',
      server_url: 'https://gitlab.example.com/',
      repository: 'example-org/serving/video-serving-bench',
      workflow: null,
      run_id: 30054883436,
      run_attempt: 1,
      artifact: { id: null, name: 'h3-video-30054883436-1' },
      gitlab: { project_id: 4242, pipeline_id: 1187654321 },
    });
  });

  it('refuses a repository or project path with a "." or ".." part (CI_REPOSITORY): the links would leave the repository or the server\'s base path', async () => {
    const cases: [string, (d: Draft) => Draft][] = [
      ['../..', (d) => ({ ...d, ci: { ...d.ci, repository: '../..' } })],
      ['./.', (d) => ({ ...d, ci: { ...d.ci, repository: './.' } })],
      ['owner/..', (d) => ({ ...d, ci: { ...d.ci, repository: 'owner/..' } })],
      ['../../evil.example', (d) => ({ ...gitlab(d), ci: { ...gitlab(d).ci, project_path: '../../evil.example' } })],
      ['group/./project', (d) => ({ ...gitlab(d), ci: { ...gitlab(d).ci, project_path: 'group/./project' } })],
    ];
    for (const [name, edit] of cases) {
      const r = await verifyDraft(edit(validDraft()));
      expect(r.ok ? [] : r.problems.map((p) => [p.code, p.message.includes('a URL resolves')]), name).toEqual([['CI_REPOSITORY', true]]);
    }
    // Dots inside a name are a name: GitHub allows "my.repo" and "..x".
    const dotted = validDraft();
    dotted.ci.repository = 'example-org/my.repo..x';
    const r = await verifyDraft(dotted);
    expect(r.ok ? r.run.links.run : r.problems).toBe('https://github.com/example-org/my.repo..x/actions/runs/30054883436/attempts/1');
  });

  it('gives an "other" run no links and no server: it is named by its reference in words', async () => {
    const r = await verifyDraft(other(validDraft()));
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.run.links).toEqual({ run: null, artifact: null });
    expect(summarizeRun(r.run)).toMatchObject({ provider: 'other', server_url: null, repository: null, run_ref: 'Jenkins video-serving-bench #812 (ci.example.internal)' });
  });

  it('refuses provider attestation for a GitLab or other run with PROVENANCE_UNSUPPORTED, not as a missing file', async () => {
    for (const [label, d] of [['gitlab', gitlab(validDraft())], ['other', other(validDraft())]] as const) {
      const zip = await writeZip(zipItems(render(d)), path.join(root, `${label}-${n++}.zip`));
      const r = await verifyRun(zip, { requireProvider: true });
      expect(r.ok, label).toBe(false);
      const codes = r.ok ? [] : r.problems.map((p) => p.code);
      expect(codes, label).toEqual(['PROVENANCE_UNSUPPORTED']);
      expect(r.ok ? '' : r.problems[0]!.message).toContain(`names provider "${label}"`);
      // Without the requirement the run is valid and self-attested.
      const plain = await verifyRun(zip);
      expect(plain.ok && plain.run.provenance.attested_by).toBe('self');
    }
  });

});
