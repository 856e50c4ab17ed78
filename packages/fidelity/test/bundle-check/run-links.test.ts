/**
 * verify-bundle holds a bundle's run links to the rules verify holds ci.json to
 * (schemas/ci-links.ts): a valid server_url (no port 0), a repository or project path with no
 * "." or ".." part, and links that are exactly the ones the run's ids build; a page link with a
 * dot segment, or outside a declared server's base path, is refused too.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { allowedBases, allowedOrigins, judgeLink } from '../../src/bundle-check/links.js';
import { verifyBundle } from '../../src/bundle-check/verify.js';
import { reportJsonText } from '../../src/bundle/write.js';
import type { Report } from '../../src/schemas/report.js';
import { makeBundle, makeReport, PAGE, sealDir } from './make-bundle.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-run-links-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;

/** The hand-made bundle with report.json's runs changed by `edit`, resealed. */
async function errorsWith(edit: (r: Report) => void, page = PAGE): Promise<{ code: string; message: string }[]> {
  const dir = path.join(tmp, `b${n++}`);
  makeBundle(dir, page);
  const report = makeReport();
  edit(report);
  writeFileSync(path.join(dir, 'report.json'), reportJsonText(report));
  sealDir(dir);
  return (await verifyBundle(dir)).errors.map((e) => ({ code: e.code, message: e.message }));
}

/** Links as a naive writer would build them, by plain concatenation. */
const naive = (server: string, repo: string, id: number) => ({ run: `${server}/${repo}/actions/runs/${id}/attempts/1`, artifact: `${server}/${repo}/actions/runs/${id}/artifacts/${id + 1}` });

describe("verify-bundle on a bundle's run links", () => {
  it('accepts the links the ids build', async () => {
    expect(await errorsWith(() => undefined)).toEqual([]);
  });

  it('refuses a repository "../.." or "./." with links built from it (they leave the repository)', async () => {
    for (const repo of ['../..', './.']) {
      const errors = await errorsWith((r) => {
        r.runs[1]!.repository = repo;
        r.runs[1]!.links = naive('https://github.com', repo, 2);
      });
      expect(errors.map((e) => e.code), repo).toContain('BUNDLE_LINK_EXTERNAL');
      expect(errors.map((e) => e.message).join('\n')).toMatch(/repository "\.{1,2}\/\.{1,2}" has a part/);
    }
  });

  it('refuses a server_url with port 0, and every link to it', async () => {
    const errors = await errorsWith((r) => {
      for (const run of r.runs) {
        run.server_url = 'https://github.com:0';
        run.links = naive('https://github.com:0', 'example-org/bench', run.run_id);
      }
    });
    expect(errors.map((e) => e.message).join('\n')).toMatch(/server_url names port 0/);
    expect(errors.every((e) => e.code === 'BUNDLE_LINK_EXTERNAL')).toBe(true);
  });

  it('refuses a GitLab project path "../../evil.example" that leaves the server base path', async () => {
    const server = 'https://gitlab.example.com/gitlab';
    const errors = await errorsWith((r) => {
      const run = r.runs[1]!;
      run.provider = 'gitlab';
      run.server_url = server;
      run.repository = '../../evil.example';
      run.workflow = null;
      run.artifact = { id: null, name: 'art-2-1' };
      run.gitlab = { project_id: 1, pipeline_id: 9 };
      const project = `${server}/../../evil.example/-`;
      run.links = { run: `${project}/jobs/2`, artifact: `${project}/jobs/2/artifacts/browse`, pipeline: `${project}/pipelines/9` };
    });
    expect(errors.map((e) => e.message).join('\n')).toMatch(/project path "\.\.\/\.\.\/evil\.example" has a part "\.\."/);
    expect(errors.filter((e) => e.message.includes('dot') || e.message.includes('"." or ".."')).length).toBeGreaterThanOrEqual(3);
  });

  it('refuses a link that is not the one the ids build, even to the declared server', async () => {
    const errors = await errorsWith((r) => {
      r.runs[1]!.links.run = 'https://github.com/someone-else/repo/actions/runs/2/attempts/1';
    });
    expect(errors).toEqual([{ code: 'BUNDLE_LINK_EXTERNAL', message: expect.stringMatching(/runs\[1\]\.links\.run is not the link the run's ids build \(https:\/\/github\.com\/example-org\/bench\/actions\/runs\/2\/attempts\/1\)/) }]);
  });

  it('refuses a page link with a dot segment, plain or percent-encoded', async () => {
    for (const link of ['https://github.com/example-org/bench/../../evil/x', 'https://github.com/example-org/%2e%2e/x']) {
      const errors = await errorsWith(() => undefined, PAGE.replace('https://github.com/example-org/bench/actions/runs/1/attempts/1', link));
      expect(errors.map((e) => [e.code, /"\." or "\.\."/.test(e.message)]), link).toEqual([['BUNDLE_LINK_EXTERNAL', true]]);
    }
  });
});

describe('judgeLink with the servers base paths', () => {
  it('keeps a link below the base path of a server with one; a server verify refuses allows nothing', () => {
    const servers = ['https://gitlab.example.com/gitlab/', 'https://github.com:0'];
    const origins = allowedOrigins(servers);
    const bases = allowedBases(servers);
    expect(bases).toEqual(['https://gitlab.example.com/gitlab/']);
    expect(judgeLink('https://gitlab.example.com/gitlab/g/p/-/jobs/1', 'index.html', origins, bases).kind).toBe('external');
    expect(judgeLink('https://gitlab.example.com/evil.example/x', 'index.html', origins, bases)).toMatchObject({ kind: 'refused', why: expect.stringMatching(/outside the base path/) });
    expect(judgeLink('https://github.com:0/o/r', 'index.html', origins, bases).kind).toBe('refused');
  });
});
