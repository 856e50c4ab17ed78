/**
 * verifyRun against `<zip>.provenance.json`: a record written here by hand
 * (as fetchRun would write it for the draft run), then each identity field
 * broken in turn. Offline: nothing here opens a socket.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyRun } from '../../src/archive/verify.js';
import type { VerifyResult } from '../../src/archive/types.js';
import { Provenance, provenanceJsonSchema } from '../../src/provider/schema.js';
import { render, rm, sha256, tarItems, tempRoot, validDraft, writeDir, writeFile, writeTarGz, writeZip, zipItems } from './fixture.js';

let root: string;
let zip: string;
let zipSha: string;

beforeAll(async () => {
  root = await tempRoot('provenance');
  zip = await writeZip(zipItems(render(validDraft())), path.join(root, 'h3-video-30054883436-1.zip'));
  zipSha = sha256(await readFile(zip));
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** What fetchRun records for the draft run (ci.json of validDraft). */
function record(): Provenance {
  return {
    schema_version: 1,
    kind: 'fidelity-provenance',
    tool: { name: 'fidelity', version: '0.1.0' },
    fetched_at: '2026-11-30T10:00:00.000Z',
    provider: { name: 'github', api_url: 'https://api.github.com', server_url: 'https://github.com' },
    repository: { full_name: 'Example-Org/video-serving-bench', id: 1296269, html_url: 'https://github.com/Example-Org/video-serving-bench' },
    run: {
      id: 30054883436,
      run_attempt: 1,
      latest_attempt: 1,
      run_number: 562,
      name: 'h3-serving',
      display_title: 'H3 serving smoke',
      path: '.github/workflows/h3-serving.yml',
      workflow_id: 159038,
      event: 'workflow_dispatch',
      head_sha: 'c2f27fe453ef613f4eb0f8d356a6dbd80ffed7dd',
      head_branch: 'main',
      status: 'completed',
      conclusion: 'success',
      url: 'https://api.github.com/repos/Example-Org/video-serving-bench/actions/runs/30054883436',
      html_url: 'https://github.com/Example-Org/video-serving-bench/actions/runs/30054883436',
      created_at: '2026-11-29T21:30:00Z',
      updated_at: '2026-11-29T22:01:00Z',
      run_started_at: '2026-11-29T21:31:00Z',
    },
    artifact: {
      id: 4242001,
      name: 'h3-video-30054883436-1',
      size_in_bytes: 1234,
      digest: `sha256:${zipSha}`,
      url: 'https://api.github.com/repos/Example-Org/video-serving-bench/actions/artifacts/4242001',
      archive_download_url: 'https://api.github.com/repos/Example-Org/video-serving-bench/actions/artifacts/4242001/zip',
      created_at: '2026-11-29T21:58:00Z',
      updated_at: '2026-11-29T21:58:00Z',
      expires_at: '2027-02-27T21:58:00Z',
      expired: false,
      workflow_run: { id: 30054883436, head_sha: 'c2f27fe453ef613f4eb0f8d356a6dbd80ffed7dd', head_branch: 'main', repository_id: 1296269 },
    },
    download: { file: 'h3-video-30054883436-1.zip', sha256: zipSha, size: 1234, redirected_to: null },
    requests: [],
  };
}

async function withRecord(r: unknown, options: { requireProvider?: boolean } = {}): Promise<VerifyResult> {
  await writeFile(`${zip}.provenance.json`, typeof r === 'string' ? r : JSON.stringify(r));
  try {
    const result = await verifyRun(zip, options);
    if (result.ok) await result.run.close();
    return result;
  } finally {
    await rm(`${zip}.provenance.json`, { force: true });
  }
}

const problems = (r: VerifyResult) => (r.ok ? [] : r.problems.map((p) => `${p.code} ${p.where?.path ?? ''}`.trim()));

describe('provider attestation in verifyRun', () => {
  it('a zip that agrees with its provenance file is provider-attested (repository names compare without case)', async () => {
    const result = await withRecord(record(), { requireProvider: true });
    expect(problems(result)).toEqual([]);
    expect(result.ok && result.run.provenance.attested_by).toBe('provider');
    expect(result.ok && result.run.provenance.file).toBe(`${zip}.provenance.json`);
    expect(result.ok && result.run.provenance.record?.run.conclusion).toBe('success');
  });

  it('without a provenance file a run is self-attested; requireProvider refuses it, and any folder or tar.gz', async () => {
    const plain = await verifyRun(zip);
    expect(plain.ok && plain.run.provenance).toEqual({ attested_by: 'self', file: null, record: null });
    if (plain.ok) await plain.run.close();
    expect(problems(await verifyRun(zip, { requireProvider: true }))).toEqual(['PROVENANCE_MISSING']);
    const files = render(validDraft());
    const dir = await writeDir(files, path.join(root, 'folder'));
    const tgz = await writeTarGz(tarItems(files), path.join(root, 'run.tar.gz'));
    // A provenance file beside a tar.gz does not count: the provider's artifact is the zip.
    await writeFile(`${tgz}.provenance.json`, JSON.stringify(record()));
    for (const source of [dir, tgz]) expect(problems(await verifyRun(source, { requireProvider: true })), source).toEqual(['PROVENANCE_MISSING']);
  });

  it('a GitHub provenance record beside a GitLab run is refused (PROVENANCE_UNSUPPORTED): it cannot describe that run', async () => {
    const d = validDraft();
    const { repository: _r, workflow: _w, artifact, ...rest } = d.ci;
    d.ci = { ...rest, schema_version: 2, provider: 'gitlab', project_path: 'example-org/serving/video-serving-bench', project_id: 4242, pipeline_id: 1187654321, artifact: { name: artifact.name } };
    await import('node:fs/promises').then((fs) => fs.mkdir(path.join(root, 'gitlab'), { recursive: true }));
    const gl = await writeZip(zipItems(render(d)), path.join(root, 'gitlab', 'h3-video-30054883436-1.zip'));
    const r = record();
    r.artifact.digest = `sha256:${sha256(await readFile(gl))}`;
    r.download.sha256 = sha256(await readFile(gl));
    await writeFile(`${gl}.provenance.json`, JSON.stringify(r));
    for (const requireProvider of [false, true]) {
      const result = await verifyRun(gl, { requireProvider });
      expect(problems(result), String(requireProvider)).toEqual(requireProvider ? ['PROVENANCE_UNSUPPORTED $.provider', 'PROVENANCE_UNSUPPORTED $.provider'] : ['PROVENANCE_UNSUPPORTED $.provider']);
    }
  });

  it('a provenance file that is not JSON or not the schema is PROVENANCE_MALFORMED, with or without requireProvider', async () => {
    expect(problems(await withRecord('{ not json'))).toEqual(['PROVENANCE_MALFORMED']);
    const bad = record() as unknown as { artifact: { digest: string } };
    bad.artifact.digest = zipSha;
    expect(problems(await withRecord(bad))).toEqual(['PROVENANCE_MALFORMED $.artifact.digest']);
  });

  it('each identity field the archive and the provider disagree on has its code, pointing at ci.json', async () => {
    const cases: [string, (r: Provenance) => void, string[]][] = [
      ['run id', (r) => void (r.run.id = 30054883437), ['PROVENANCE_RUN_MISMATCH $.run_id']],
      ['attempt', (r) => void (r.run.run_attempt = 2), ['PROVENANCE_RUN_MISMATCH $.run_attempt']],
      ['repository', (r) => void (r.repository.full_name = 'example-org/other-bench'), ['PROVENANCE_REPOSITORY_MISMATCH $.repository']],
      ['server', (r) => void (r.provider.server_url = 'https://ghe.example.com'), ['PROVENANCE_REPOSITORY_MISMATCH $.server_url']],
      ['head sha', (r) => void (r.run.head_sha = '0'.repeat(40)), ['PROVENANCE_HEAD_SHA_MISMATCH $.head_sha']],
      ['artifact name', (r) => void (r.artifact.name = 'h3-audio-30054883436-1'), ['PROVENANCE_ARTIFACT_MISMATCH $.artifact.name']],
      ['artifact id', (r) => void (r.artifact.id = 4242002), ['PROVENANCE_ARTIFACT_MISMATCH $.artifact.id']],
      [
        'digest',
        (r) => {
          r.artifact.digest = `sha256:${'a'.repeat(64)}`;
          r.download.sha256 = 'a'.repeat(64);
        },
        ['PROVENANCE_DIGEST_MISMATCH $.artifact.digest', 'PROVENANCE_DIGEST_MISMATCH $.download.sha256'],
      ],
    ];
    for (const [label, change, expected] of cases) {
      const r = record();
      change(r);
      for (const requireProvider of [false, true]) expect(problems(await withRecord(r, { requireProvider })), label).toEqual(expected);
    }
  });

  it('a zip changed after fetch no longer matches the provider\'s digest', async () => {
    const other = await writeZip(zipItems(render(validDraft()), 'folder/'), path.join(root, 'changed.zip'));
    const r = record();
    r.download.file = 'changed.zip';
    await writeFile(`${other}.provenance.json`, JSON.stringify(r));
    const result = await verifyRun(other, { requireProvider: true });
    expect(problems(result)).toEqual(['PROVENANCE_DIGEST_MISMATCH $.artifact.digest', 'PROVENANCE_DIGEST_MISMATCH $.download.sha256']);
  });
});

describe('the provenance JSON Schema', () => {
  it('docs/provenance.schema.json is the one generated from the zod schema', () => {
    const committed = readFileSync(fileURLToPath(new URL('../../../../docs/provenance.schema.json', import.meta.url)), 'utf8');
    expect(committed).toBe(`${JSON.stringify(provenanceJsonSchema(), null, 2)}\n`);
  });
});
