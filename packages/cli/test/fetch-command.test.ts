/**
 * The fetch -> verify --provider -> compare --require-provider path through
 * the command line, against the local GitHub API of the library's tests.
 * Only `fetch` talks to the server; verify and compare are checked to make
 * no request at all.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/main.js';
import { render, validDraft, writeZip, zipItems } from '../../fidelity/test/archive/fixture.js';
import { startFakeGitHub, type FakeGitHub } from '../../fidelity/test/provider/github-server.js';
import { FIXTURE_IDENTITY, FIXTURE_RUNS, zipFolder } from '../../fidelity/test/provider/zip-run.js';
import { capture } from './capture.js';

let gh: FakeGitHub;
let root: string;
let b200Zip: Buffer;
const saved = { GITHUB_TOKEN: process.env.GITHUB_TOKEN, GH_TOKEN: process.env.GH_TOKEN };

beforeAll(async () => {
  gh = await startFakeGitHub();
  root = await mkdtemp(path.join(os.tmpdir(), 'fidelity-fetch-cli-'));
  process.env.GITHUB_TOKEN = '';
  process.env.GH_TOKEN = 'gh_token_from_the_environment';
  for (const site of ['h200', 'b200'] as const) {
    const id = FIXTURE_IDENTITY[site];
    const bytes = await zipFolder(path.join(FIXTURE_RUNS, site));
    if (site === 'b200') b200Zip = bytes;
    gh.runs.set(id.run_id, {
      id: id.run_id,
      attempts: Array.from({ length: id.attempt }, () => ({})),
      head_sha: id.head_sha,
      artifacts: [{ id: id.artifact.id, name: id.artifact.name, bytes }],
    });
  }
  const forged = await readFile(await writeZip(zipItems(render(validDraft())), path.join(root, 'forged.zip')));
  gh.runs.set(777, { id: 777, attempts: [{}], head_sha: FIXTURE_IDENTITY.h200.head_sha, artifacts: [{ id: 9001, name: 'h3-video-777-1', bytes: forged }] });
  gh.runs.set(778, { id: 778, attempts: [{ status: 'queued' }], head_sha: FIXTURE_IDENTITY.h200.head_sha, artifacts: [] });
});
afterAll(async () => {
  await gh.close();
  await rm(root, { recursive: true, force: true });
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

async function cli(...args: string[]) {
  const io = capture();
  const code = await main(args, io);
  return { code, out: io.stdout(), err: io.stderr() };
}

describe('fidelity fetch', () => {
  it('is listed in the help', async () => {
    const { out } = await cli('--help');
    expect(out).toContain('fidelity fetch <owner>/<repo> <run_id> --out <dir>');
  });

  it('writes the zip, its digest and the provider\'s record, with the token from GH_TOKEN, and prints one JSON document', async () => {
    const h = FIXTURE_IDENTITY.h200;
    const out = path.join(root, 'runs');
    const { code, out: stdout, err } = await cli('fetch', gh.repository, String(h.run_id), '--out', out, '--api-url', gh.apiUrl, '--json');
    expect(code, err).toBe(0);
    const doc = JSON.parse(stdout);
    expect(doc).toMatchObject({ ok: true, run_id: h.run_id, run_attempt: 1, head_sha: h.head_sha, conclusion: 'success', artifact: { id: h.artifact.id, name: h.artifact.name }, errors: [] });
    expect(doc.zip).toBe(path.join(out, `${h.artifact.name}.zip`));
    expect(existsSync(`${doc.zip}.provenance.json`) && existsSync(`${doc.zip}.sha256`)).toBe(true);
    expect(gh.seen.filter((s) => s.path.startsWith('/api/')).every((s) => s.authorization === 'token gh_token_from_the_environment')).toBe(true);
  });

  it('refuses a run in progress with exit 2 and its reason code, in text and in --json', async () => {
    const out = path.join(root, 'queued');
    const text = await cli('fetch', gh.repository, '778', '--out', out, '--api-url', gh.apiUrl);
    expect(text.code).toBe(2);
    expect(text.err).toMatch(/^error FETCH_RUN_IN_PROGRESS: attempt 1 of run 778 .* is "queued"/);
    const json = await cli('fetch', gh.repository, '778', '--out', out, '--api-url', gh.apiUrl, '--json');
    expect(json.code).toBe(2);
    expect(JSON.parse(json.out).errors.map((e: { code: string }) => e.code)).toEqual(['FETCH_RUN_IN_PROGRESS']);
    expect(existsSync(out)).toBe(false);
  });

  it('refuses a malformed command line with USAGE before any request', async () => {
    const before = gh.seen.length;
    for (const args of [
      ['fetch', 'no-slash', '1', '--out', root],
      ['fetch', gh.repository, 'abc', '--out', root],
      ['fetch', gh.repository, '1'],
      ['fetch', gh.repository, '1', '--out', root, '--attempt', '0'],
    ]) {
      const { code, err } = await cli(...args);
      expect(code, args.join(' ')).toBe(2);
      expect(err).toMatch(/^error USAGE/);
    }
    expect(gh.seen.length).toBe(before);
  });
});

describe('verify --provider and compare --require-provider, offline', () => {
  it('verify --provider accepts what fetch wrote, says provider-attested, and refuses a zip without provenance', async () => {
    const h = FIXTURE_IDENTITY.h200;
    const zip = path.join(root, 'runs', `${h.artifact.name}.zip`);
    const before = gh.seen.length;
    const ok = await cli('verify', zip, '--provider', '--require-digest');
    expect(ok.code, ok.err).toBe(0);
    expect(ok.out).toContain(`identity  provider-attested: agrees with ${zip}.provenance.json`);
    const plain = path.join(root, 'b200-self.zip');
    await writeFile(plain, b200Zip);
    const self = await cli('verify', plain);
    expect(self.code).toBe(0);
    expect(self.out).toContain('identity  self-attested');
    const refused = await cli('verify', plain, '--provider', '--json');
    expect(refused.code).toBe(2);
    expect(JSON.parse(refused.out).errors.map((e: { code: string }) => e.code)).toEqual(['PROVENANCE_MISSING']);
    expect(gh.seen.length).toBe(before);
  });

  it('verify --provider refuses a forged identity: ci.json names another run than the provider', async () => {
    const out = path.join(root, 'forged');
    expect((await cli('fetch', gh.repository, '777', '--out', out, '--api-url', gh.apiUrl)).code).toBe(0);
    const { code, out: stdout } = await cli('verify', path.join(out, 'h3-video-777-1.zip'), '--provider', '--json');
    expect(code).toBe(2);
    expect(JSON.parse(stdout).errors.map((e: { code: string }) => e.code)).toContain('PROVENANCE_RUN_MISMATCH');
  });

  it('compare --require-provider refuses a self-attested run, and with two fetched runs records provider identity per run', async () => {
    const h = FIXTURE_IDENTITY.h200;
    const b = FIXTURE_IDENTITY.b200;
    const runsDir = path.join(root, 'runs');
    const h200 = path.join(runsDir, `${h.artifact.name}.zip`);
    const bundle = path.join(root, 'bundle');

    const refused = await cli('compare', h200, path.join(root, 'b200-self.zip'), '--out', bundle, '--require-provider', '--json');
    expect(refused.code).toBe(2);
    expect(JSON.parse(refused.out).errors.map((e: { code: string }) => e.code)).toEqual(['RUN_INVALID', 'PROVENANCE_MISSING']);
    expect(existsSync(bundle)).toBe(false);

    expect((await cli('fetch', gh.repository, String(b.run_id), '--out', runsDir, '--api-url', gh.apiUrl)).code).toBe(0);
    const before = gh.seen.length;
    const { code, err } = await cli('compare', h200, path.join(runsDir, `${b.artifact.name}.zip`), '--out', bundle, '--require-provider', '--threads', '2', '--json');
    expect(code, err).toBe(0);
    expect(gh.seen.length).toBe(before);
    const report = JSON.parse(await readFile(path.join(bundle, 'report.json'), 'utf8'));
    expect(report.schema_version).toBe(1);
    expect(report.runs.map((r: { identity: { attested_by: string; provider: { artifact_digest: string } } }) => [r.identity.attested_by, r.identity.provider.artifact_digest.slice(0, 7)])).toEqual([
      ['provider', 'sha256:'],
      ['provider', 'sha256:'],
    ]);
    const schema = JSON.parse(await readFile(path.join(bundle, 'report.schema.json'), 'utf8'));
    expect(JSON.stringify(schema)).toContain('"attested_by"');
    for (const page of ['index.html', 'index.zh.html']) {
      const html = await readFile(path.join(bundle, page), 'utf8');
      expect(html.match(/<code>http:\/\/127\.0\.0\.1:\d+\/api\/v3<\/code>/g)?.length, page).toBe(2);
    }
    expect((await cli('verify-bundle', bundle)).code).toBe(0);
  });
});

describe('the workflow docs/run-archive.md documents, end to end', () => {
  it('two uploads (the run\'s files, then the sealed archive): fidelity fetch, then fidelity verify --provider, provider-attested', async () => {
    const runId = 30099990001;
    // The same run under another id: its ci.json must name this run, so it is written for it.
    const draft = validDraft();
    draft.ci.run_id = runId;
    draft.run.run_id = runId;
    draft.ci.artifact = { id: 7100001, name: `h3-video-${runId}-1` };
    const files = render(draft);
    const sealed = await readFile(await writeZip(zipItems(files), path.join(root, 'sealed.zip')));
    const unsealed = await readFile(await writeZip(zipItems(new Map([...files].filter(([n]) => n !== 'ci.json' && n !== 'SHA256SUMS'))), path.join(root, 'files.zip')));
    gh.runs.set(runId, {
      id: runId,
      attempts: [{}],
      head_sha: draft.ci.head_sha,
      artifacts: [
        { id: 7100001, name: `h3-video-${runId}-1`, bytes: unsealed },
        { id: 7100002, name: `h3-video-${runId}-1-archive`, bytes: sealed },
      ],
    });
    const out = path.join(root, 'two-uploads');
    const fetched = await cli('fetch', gh.repository, String(runId), '--out', out, '--api-url', gh.apiUrl, '--json');
    expect(fetched.code, fetched.out + fetched.err).toBe(0);
    const zip = (JSON.parse(fetched.out) as { zip: string }).zip;
    expect(path.basename(zip)).toBe(`h3-video-${runId}-1-archive.zip`);
    const verified = await cli('verify', zip, '--provider', '--require-digest');
    expect(verified.code, verified.out + verified.err).toBe(0);
    expect(verified.out).toContain('identity  provider-attested');
  });
});
