/**
 * fetchRun against a local GitHub REST API (github-server.ts): the real
 * @octokit/rest client with its retry and throttling plugins, over HTTP on
 * 127.0.0.1. Every refusal must leave `out` without a new file.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { verifyRun } from '../../src/archive/verify.js';
import { fetchRun, type FetchRunOptions } from '../../src/provider/fetch.js';
import { Provenance } from '../../src/provider/schema.js';
import { render, validDraft, writeZip, zipItems } from '../archive/fixture.js';
import { sha256, startFakeGitHub, type FakeGitHub } from './github-server.js';
import { FIXTURE_IDENTITY, FIXTURE_RUNS, zipFolder } from './zip-run.js';
import { refusal } from '../refusal.js';

const TOKEN = 'ghp_test_token_for_the_fake_api';
let gh: FakeGitHub;
let root: string;
let h200: Buffer;
let b200: Buffer;
let n = 0;

beforeAll(async () => {
  gh = await startFakeGitHub();
  root = await mkdtemp(path.join(os.tmpdir(), 'fidelity-fetch-'));
  h200 = await zipFolder(path.join(FIXTURE_RUNS, 'h200'));
  b200 = await zipFolder(path.join(FIXTURE_RUNS, 'b200'));
});
afterAll(async () => {
  await gh.close();
  await rm(root, { recursive: true, force: true });
});

/** The provider's state before each test: h200 (one attempt) and b200 (two attempts, artifacts of both), among other artifacts. */
beforeEach(() => {
  gh.runs.clear();
  gh.seen.length = 0;
  gh.pageSize = 100;
  gh.intercept = null;
  gh.linkRewrite = null;
  gh.rateLimit(0, 0);
  gh.failNext(0, 500);
  const h = FIXTURE_IDENTITY.h200;
  gh.runs.set(h.run_id, {
    id: h.run_id,
    attempts: [{}],
    head_sha: h.head_sha,
    artifacts: [
      { id: 4241998, name: 'server-logs', bytes: Buffer.from('logs') },
      { id: 4241999, name: 'h3-telemetry-raw', bytes: Buffer.from('raw') },
      { id: 4242000, name: 'junit-report', bytes: Buffer.from('junit') },
      { id: h.artifact.id, name: h.artifact.name, bytes: h200 },
      { id: 4242002, name: 'profile', bytes: Buffer.from('profile') },
    ],
  });
  const b = FIXTURE_IDENTITY.b200;
  gh.runs.set(b.run_id, {
    id: b.run_id,
    attempts: [{ conclusion: 'failure' }, {}],
    head_sha: b.head_sha,
    artifacts: [
      { id: 4243001, name: `h3-video-${b.run_id}-1`, bytes: Buffer.from('attempt one, failed') },
      { id: b.artifact.id, name: b.artifact.name, bytes: b200 },
    ],
  });
});

async function outDir(): Promise<string> {
  return path.join(root, `out-${++n}`);
}

function options(out: string, extra: Partial<FetchRunOptions> = {}): FetchRunOptions {
  return { out, apiUrl: gh.apiUrl, token: TOKEN, retries: 0, ...extra };
}

/** Nothing new in `out`: no zip, no sidecar, no provenance, no temp file. */
async function expectNothingWritten(out: string): Promise<void> {
  const names = await readdir(out).catch(() => []);
  expect(names).toEqual([]);
}

describe('fetchRun: the provider says, the bytes agree', () => {
  it('downloads the attempt\'s artifact across paginated listings, checks GitHub\'s digest, and records what the provider said', async () => {
    gh.pageSize = 2;
    const out = await outDir();
    const result = await fetchRun(gh.repository, FIXTURE_IDENTITY.h200.run_id, options(out));
    const name = FIXTURE_IDENTITY.h200.artifact.name;
    expect(result.zip).toBe(path.join(out, `${name}.zip`));
    expect((await readdir(out)).sort()).toEqual([`${name}.zip`, `${name}.zip.provenance.json`, `${name}.zip.sha256`]);
    expect((await readFile(result.zip)).equals(h200)).toBe(true);
    expect(await readFile(result.digest, 'utf8')).toBe(`sha256:${sha256(h200)}  ${name}.zip\n`);

    const record = Provenance.parse(JSON.parse(await readFile(result.provenance, 'utf8')));
    expect(record).toEqual(result.record);
    expect(record.provider).toEqual({ name: 'github', api_url: gh.apiUrl, server_url: 'https://github.com' });
    expect(record.repository.full_name).toBe('example-org/video-serving-bench');
    expect(record.run).toMatchObject({
      id: FIXTURE_IDENTITY.h200.run_id,
      run_attempt: 1,
      latest_attempt: 1,
      head_sha: FIXTURE_IDENTITY.h200.head_sha,
      path: '.github/workflows/h3-serving.yml',
      status: 'completed',
      conclusion: 'success',
      html_url: `https://github.com/example-org/video-serving-bench/actions/runs/${FIXTURE_IDENTITY.h200.run_id}`,
      updated_at: '2026-11-29T22:01:00Z',
    });
    expect(record.artifact).toMatchObject({ id: 4242001, name, digest: `sha256:${sha256(h200)}`, size_in_bytes: h200.length, expired: false, expires_at: '2027-02-27T21:58:00Z' });
    expect(record.download).toEqual({ file: `${name}.zip`, sha256: sha256(h200), size: h200.length, redirected_to: `${gh.origin}/storage/artifacts/4242001.zip` });
    // The signed storage URL's query is a credential: never recorded.
    expect(JSON.stringify(record)).not.toContain('short-lived');

    // Run, attempt, three pages of artifacts (2 + 2 + 1) through the Link headers, the download, the storage.
    const paths = gh.seen.map((s) => s.path.replace(/^\/api\/v3\/repos\/example-org\/video-serving-bench\/actions/, ''));
    expect(paths).toEqual([
      `/runs/${FIXTURE_IDENTITY.h200.run_id}`,
      `/runs/${FIXTURE_IDENTITY.h200.run_id}/attempts/1`,
      `/runs/${FIXTURE_IDENTITY.h200.run_id}/artifacts?per_page=100`,
      `/runs/${FIXTURE_IDENTITY.h200.run_id}/artifacts?per_page=100&page=2`,
      `/runs/${FIXTURE_IDENTITY.h200.run_id}/artifacts?per_page=100&page=3`,
      '/artifacts/4242001/zip',
      '/storage/artifacts/4242001.zip?sv=2025-01-01&se=2026-11-30T00%3A01%3A00Z&sig=short-lived',
    ]);
    expect(record.requests.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 302, 200]);
    expect(record.requests.every((r) => typeof r.date === 'string' && !Number.isNaN(Date.parse(r.date)))).toBe(true);
    // The token goes to the API and never to the storage host.
    expect(gh.seen.slice(0, -1).every((s) => s.authorization?.endsWith(TOKEN))).toBe(true);
    expect(gh.seen.at(-1)!.authorization).toBeUndefined();

    // What fetch wrote verifies offline, provider-attested, digest checked.
    const verified = await verifyRun(result.zip, { requireProvider: true, requireDigest: true });
    expect(verified.ok, JSON.stringify(verified.ok ? [] : verified.problems)).toBe(true);
    if (verified.ok) {
      expect(verified.run.provenance.attested_by).toBe('provider');
      expect(verified.run.digest.checked).toBe(true);
      await verified.run.close();
    }
  });

  it('takes the latest attempt by default and an earlier one with attempt, each by its <prefix>-<run_id>-<attempt> artifact', async () => {
    const b = FIXTURE_IDENTITY.b200;
    const latest = await fetchRun(gh.repository, b.run_id, options(await outDir()));
    expect(latest.record.artifact.name).toBe(b.artifact.name);
    expect(latest.record.run).toMatchObject({ run_attempt: 2, latest_attempt: 2, conclusion: 'success' });
    const first = await fetchRun(gh.repository, b.run_id, options(await outDir(), { attempt: 1 }));
    expect(first.record.artifact.name).toBe(`h3-video-${b.run_id}-1`);
    expect(first.record.run).toMatchObject({ run_attempt: 1, latest_attempt: 2, conclusion: 'failure' });
  });

  it('waits out a 403 rate limit until its x-ratelimit-reset, as octokit\'s throttling plugin does, then goes on', async () => {
    gh.rateLimit(1, 1);
    const started = Date.now();
    const result = await fetchRun(gh.repository, FIXTURE_IDENTITY.h200.run_id, options(await outDir()));
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect((await readFile(result.zip)).equals(h200)).toBe(true);
    // The first request was refused and asked again.
    expect(gh.seen[0]!.path).toBe(gh.seen[1]!.path);
  });

  it('retries a 502 with octokit\'s retry plugin', async () => {
    gh.failNext(1, 502);
    const result = await fetchRun(gh.repository, FIXTURE_IDENTITY.h200.run_id, options(await outDir(), { retries: 1 }));
    expect(result.record.run.id).toBe(FIXTURE_IDENTITY.h200.run_id);
  });
});

describe('fetchRun refusals: exit 2 with a reason code, nothing half-written', () => {
  it('a rate limit that resets later than it may wait is FETCH_RATE_LIMITED, naming the reset time', async () => {
    gh.rateLimit(5, 3600);
    const out = await outDir();
    const error = await refusal(fetchRun(gh.repository, FIXTURE_IDENTITY.h200.run_id, options(out, { maxRateLimitWaitS: 60 })));
    expect(error.code).toBe('FETCH_RATE_LIMITED');
    expect(error.message).toMatch(/rate limit exceeded until \d{4}-\d\d-\d\dT/);
    await expectNothingWritten(out);
  });

  it('an artifact whose bytes do not hash to GitHub\'s digest is FETCH_DIGEST_MISMATCH, and the download is removed', async () => {
    const run = gh.runs.get(FIXTURE_IDENTITY.h200.run_id)!;
    run.artifacts.find((a) => a.id === 4242001)!.digest = `sha256:${sha256(Buffer.from('the bytes that were uploaded'))}`;
    const out = await outDir();
    const error = await refusal(fetchRun(gh.repository, run.id, options(out)));
    expect(error.code).toBe('FETCH_DIGEST_MISMATCH');
    expect(error.message).toContain(sha256(h200));
    await expectNothingWritten(out);
  });

  it('an expired artifact is FETCH_ARTIFACT_EXPIRED, whether the listing says so or the download answers 410', async () => {
    const run = gh.runs.get(FIXTURE_IDENTITY.h200.run_id)!;
    const artifact = run.artifacts.find((a) => a.id === 4242001)!;
    artifact.expired = true;
    const out = await outDir();
    expect((await refusal(fetchRun(gh.repository, run.id, options(out)))).code).toBe('FETCH_ARTIFACT_EXPIRED');
    artifact.expired = false;
    artifact.goneOnDownload = true;
    const error = await refusal(fetchRun(gh.repository, run.id, options(out)));
    expect(error.code).toBe('FETCH_ARTIFACT_EXPIRED');
    expect(gh.seen.some((s) => s.path.endsWith('/artifacts/4242001/zip'))).toBe(true);
    await expectNothingWritten(out);
  });

  it('a run still in progress is FETCH_RUN_IN_PROGRESS, before any artifact is listed', async () => {
    gh.runs.get(FIXTURE_IDENTITY.h200.run_id)!.attempts[0]!.status = 'in_progress';
    const out = await outDir();
    const error = await refusal(fetchRun(gh.repository, FIXTURE_IDENTITY.h200.run_id, options(out)));
    expect(error.code).toBe('FETCH_RUN_IN_PROGRESS');
    expect(gh.seen.some((s) => s.path.includes('/artifacts'))).toBe(false);
    await expectNothingWritten(out);
  });

  it('a wrong attempt: one the run does not have is FETCH_ATTEMPT_NOT_FOUND; an artifact of another attempt is FETCH_ATTEMPT_MISMATCH', async () => {
    const b = FIXTURE_IDENTITY.b200;
    const out = await outDir();
    expect((await refusal(fetchRun(gh.repository, b.run_id, options(out, { attempt: 3 })))).code).toBe('FETCH_ATTEMPT_NOT_FOUND');
    expect((await refusal(fetchRun(gh.repository, b.run_id, options(out, { attempt: 1, artifact: b.artifact.name })))).code).toBe('FETCH_ATTEMPT_MISMATCH');
    // Attempt 2 lost its artifact: only attempt 1's is left.
    gh.runs.get(b.run_id)!.artifacts.pop();
    const error = await refusal(fetchRun(gh.repository, b.run_id, options(out)));
    expect(error.code).toBe('FETCH_ATTEMPT_MISMATCH');
    expect(error.message).toContain(`h3-video-${b.run_id}-1`);
    await expectNothingWritten(out);
  });

  it('a missing run, a missing or ambiguous artifact, no digest, and a refused token each have their code', async () => {
    const h = FIXTURE_IDENTITY.h200;
    const out = await outDir();
    expect((await refusal(fetchRun(gh.repository, 123, options(out)))).code).toBe('FETCH_RUN_NOT_FOUND');
    expect((await refusal(fetchRun(gh.repository, h.run_id, options(out, { artifact: 'nope-30054883436-1' })))).code).toBe('FETCH_ARTIFACT_MISSING');
    const run = gh.runs.get(h.run_id)!;
    run.artifacts.push({ id: 4242003, name: `h3-audio-${h.run_id}-1`, bytes: Buffer.from('other') });
    expect((await refusal(fetchRun(gh.repository, h.run_id, options(out)))).code).toBe('FETCH_ARTIFACT_AMBIGUOUS');
    run.artifacts.pop();
    run.artifacts.find((a) => a.id === h.artifact.id)!.digest = null;
    expect((await refusal(fetchRun(gh.repository, h.run_id, options(out)))).code).toBe('FETCH_DIGEST_MISSING');
    gh.failNext(1, 401);
    expect((await refusal(fetchRun(gh.repository, h.run_id, options(out)))).code).toBe('FETCH_ACCESS_DENIED');
    await expectNothingWritten(out);
  });

  it('files already in out are FETCH_OUT_EXISTS, and force replaces them', async () => {
    const out = await outDir();
    const first = await fetchRun(gh.repository, FIXTURE_IDENTITY.h200.run_id, options(out));
    await writeFile(first.zip, 'local edit');
    const error = await refusal(fetchRun(gh.repository, FIXTURE_IDENTITY.h200.run_id, options(out)));
    expect(error.code).toBe('FETCH_OUT_EXISTS');
    expect(await readFile(first.zip, 'utf8')).toBe('local edit');
    await fetchRun(gh.repository, FIXTURE_IDENTITY.h200.run_id, options(out, { force: true }));
    expect((await readFile(first.zip)).equals(h200)).toBe(true);
    expect((await readdir(out)).length).toBe(3);
  });

  it('cancelled during the download is ABORTED, and the partial download is removed', async () => {
    const out = await outDir();
    const controller = new AbortController();
    const error = await refusal(
      fetchRun(gh.repository, FIXTURE_IDENTITY.h200.run_id, options(out, { signal: controller.signal, onProgress: (e) => void (e.stage === 'download' && controller.abort()) })),
    );
    expect(error.code).toBe('ABORTED');
    expect(gh.seen.some((s) => s.path.startsWith('/storage/'))).toBe(true);
    await expectNothingWritten(out);
  });

  it('arguments are checked before any request', async () => {
    const out = await outDir();
    for (const [repo, id, extra] of [
      ['not-a-repo', 1, {}],
      [gh.repository, 0, {}],
      [gh.repository, 1, { attempt: 0 }],
      [gh.repository, 1, { apiUrl: 'ftp://example.com' }],
    ] as const) {
      expect((await refusal(fetchRun(repo, id, options(out, extra)))).code).toBe('INVALID_ARGUMENT');
    }
    expect(gh.seen).toEqual([]);
  });
});

describe('a forged identity', () => {
  it('an artifact whose ci.json names another run than the provider does is fetched, then refused by verify with the provider', async () => {
    // Run 777's artifact claims, inside, to be run 30054883436: consistent with itself, sealed, and a lie.
    const forged = await readFile(await writeZip(zipItems(render(validDraft())), path.join(root, 'forged-source.zip')));
    gh.runs.set(777, { id: 777, attempts: [{}], head_sha: 'c2f27fe453ef613f4eb0f8d356a6dbd80ffed7dd', artifacts: [{ id: 9001, name: 'h3-video-777-1', bytes: forged }] });
    const result = await fetchRun(gh.repository, 777, options(await outDir()));

    const self = await verifyRun(path.join(root, 'forged-source.zip'));
    expect(self.ok).toBe(true);
    if (self.ok) await self.run.close();

    for (const requireProvider of [true, false]) {
      const verified = await verifyRun(result.zip, { requireProvider });
      expect(verified.ok).toBe(false);
      const problems = verified.ok ? [] : verified.problems;
      expect(problems.map((p) => `${p.code} ${p.where?.path}`).sort()).toEqual([
        'PROVENANCE_ARTIFACT_MISMATCH $.artifact.id',
        'PROVENANCE_ARTIFACT_MISMATCH $.artifact.name',
        'PROVENANCE_RUN_MISMATCH $.run_id',
      ]);
      expect(problems.find((p) => p.code === 'PROVENANCE_RUN_MISMATCH')!.message).toContain('777');
    }
  });
});

describe("fetchRun treats the provider's answers as hostile input", () => {
  /** Settles `work`, or says 'hung' after `ms` (the test then fails on that, not on its own time limit). */
  async function within<T>(work: Promise<T>, ms: number): Promise<T | 'hung'> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), ms)));
    try {
      return await Promise.race([work, late]);
    } finally {
      clearTimeout(timer);
    }
  }
  const codeOf = async (work: Promise<unknown>, ms = 15_000): Promise<string> => {
    const r = await within(
      work.then(
        () => 'fetched',
        (e: { code?: string }) => e.code ?? String(e),
      ),
      ms,
    );
    return r;
  };

  it('sends the token only to the API origin: a pagination Link to another origin is refused, and that origin sees nothing', async () => {
    const { createServer } = await import('node:http');
    const seen: (string | undefined)[] = [];
    const other = createServer((req, res) => {
      seen.push(req.headers.authorization);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"total_count":0,"artifacts":[]}');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const otherOrigin = `http://127.0.0.1:${(other.address() as { port: number }).port}`;
    try {
      gh.pageSize = 2;
      gh.linkRewrite = (link) => link.replaceAll(gh.origin, otherOrigin);
      const out = await outDir();
      expect(await codeOf(fetchRun(gh.repository, FIXTURE_IDENTITY.h200.run_id, options(out)))).toBe('FETCH_PROVIDER_INCONSISTENT');
      expect(seen).toEqual([]);
      await expectNothingWritten(out);
    } finally {
      other.closeAllConnections();
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it('takes plain http for the API only on loopback', async () => {
    const out = await outDir();
    expect((await refusal(fetchRun(gh.repository, 1, options(out, { apiUrl: 'http://api.example.test/api/v3' })))).code).toBe('INVALID_ARGUMENT');
    expect(gh.seen).toEqual([]);
    // 127.0.0.1 is loopback: the other tests use it.
    await fetchRun(gh.repository, FIXTURE_IDENTITY.h200.run_id, options(out, { apiUrl: gh.apiUrl.replace('127.0.0.1', 'localhost') }));
  });

  it('an API that never answers is FETCH_TIMEOUT after the connect limit', async () => {
    gh.intercept = () => true;
    const out = await outDir();
    expect(await codeOf(fetchRun(gh.repository, FIXTURE_IDENTITY.h200.run_id, options(out, { limits: { connectMs: 300 } })))).toBe('FETCH_TIMEOUT');
    await expectNothingWritten(out);
  });

  it('a slowloris (a byte now and then, forever) is FETCH_TIMEOUT after the total limit; a stalled body after the idle limit', async () => {
    const timers: NodeJS.Timeout[] = [];
    gh.intercept = (_req, res, url) => {
      if (!url.pathname.endsWith('/artifacts')) return false;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"total_count":1,"artifacts":[');
      timers.push(setInterval(() => res.write(' '), 100));
      return true;
    };
    const out = await outDir();
    try {
      expect(await codeOf(fetchRun(gh.repository, FIXTURE_IDENTITY.h200.run_id, options(out, { limits: { totalMs: 1500, idleMs: 1000 } })))).toBe('FETCH_TIMEOUT');
      gh.intercept = (_req, res, url) => {
        if (!url.pathname.endsWith('/artifacts')) return false;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"total_count":1,');
        return true;
      };
      const error = await within(refusal(fetchRun(gh.repository, FIXTURE_IDENTITY.h200.run_id, options(out, { limits: { idleMs: 500 } }))), 15_000);
      expect(error === 'hung' ? 'hung' : error.code).toBe('FETCH_TIMEOUT');
      expect(error === 'hung' ? '' : error.message).toMatch(/idle/);
      await expectNothingWritten(out);
    } finally {
      for (const t of timers) clearInterval(t);
    }
  });

  it('an endless Link loop is refused: a page that links to itself, or pages without end', async () => {
    gh.pageSize = 2;
    gh.linkRewrite = (link, url) => `<${url.href}>; rel="next"`;
    const out = await outDir();
    expect(await codeOf(fetchRun(gh.repository, FIXTURE_IDENTITY.h200.run_id, options(out)))).toBe('FETCH_PROVIDER_INCONSISTENT');
    gh.linkRewrite = (link, url) => {
      const next = new URL(url.href);
      next.searchParams.set('page', String(Number(url.searchParams.get('page') ?? 1) + 1));
      return `<${next.href}>; rel="next"`;
    };
    const error = await within(refusal(fetchRun(gh.repository, FIXTURE_IDENTITY.h200.run_id, options(out, { limits: { maxPages: 20 } }))), 30_000);
    expect(error === 'hung' ? 'hung' : error.code).toBe('FETCH_PROVIDER_INCONSISTENT');
    expect(gh.seen.filter((s) => s.path.includes('/artifacts?')).length).toBeLessThanOrEqual(2 + 20);
    await expectNothingWritten(out);
  }, 60_000);

  it('a signal during a request that is still pending stops it at once: ABORTED, nothing written', async () => {
    gh.intercept = () => true;
    const out = await outDir();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const started = Date.now();
    expect(await codeOf(fetchRun(gh.repository, FIXTURE_IDENTITY.h200.run_id, options(out, { signal: controller.signal })))).toBe('ABORTED');
    expect(Date.now() - started).toBeLessThan(10_000);
    await expectNothingWritten(out);
  });

  it('the download stops at the artifact\'s size_in_bytes: an endless body is refused and removed', async () => {
    const timers: NodeJS.Timeout[] = [];
    gh.intercept = (_req, res, url) => {
      if (!url.pathname.startsWith('/storage/')) return false;
      res.writeHead(200, { 'content-type': 'application/zip' });
      const chunk = Buffer.alloc(64 * 1024, 7);
      timers.push(setInterval(() => res.write(chunk), 1));
      return true;
    };
    const out = await outDir();
    try {
      expect(await codeOf(fetchRun(gh.repository, FIXTURE_IDENTITY.h200.run_id, options(out)))).toBe('FETCH_PROVIDER_INCONSISTENT');
      await expectNothingWritten(out);
    } finally {
      for (const t of timers) clearInterval(t);
    }
  });

  it('checks artifact names: 300 characters, or a newline, cannot name the files it writes', async () => {
    const h = FIXTURE_IDENTITY.h200;
    const run = gh.runs.get(h.run_id)!;
    const artifact = run.artifacts.find((a) => a.id === h.artifact.id)!;
    for (const name of [`${'x'.repeat(300)}-${h.run_id}-1`, `h3\nvideo-${h.run_id}-1`]) {
      artifact.name = name;
      const out = await outDir();
      expect(await codeOf(fetchRun(gh.repository, h.run_id, options(out))), JSON.stringify(name.slice(0, 20))).toBe('FETCH_PROVIDER_INCONSISTENT');
      await expectNothingWritten(out);
    }
  });

  it('an --out that cannot be written (a file in place of a folder, a folder under /proc) is OUT_NOT_WRITABLE', async () => {
    const file = path.join(root, `a-file-${n++}`);
    await writeFile(file, 'not a folder');
    for (const out of [path.join(file, 'runs'), `/proc/fidelity-fetch-${process.pid}`]) {
      expect(await codeOf(fetchRun(gh.repository, FIXTURE_IDENTITY.h200.run_id, options(out)), 20_000), out).toBe('OUT_NOT_WRITABLE');
    }
  });
});

describe('the two-upload workflow of docs/run-archive.md', () => {
  /**
   * The job uploads the run's files first (the artifact ci.json names: its id is known only after),
   * then the sealed archive with ci.json as `<name>-archive`.
   */
  beforeEach(async () => {
    const h = FIXTURE_IDENTITY.h200;
    const files = await zipFolder(path.join(FIXTURE_RUNS, 'h200'), ['ci.json', 'SHA256SUMS']);
    gh.runs.set(h.run_id, {
      id: h.run_id,
      attempts: [{}],
      head_sha: h.head_sha,
      artifacts: [
        { id: 4241998, name: 'server-logs', bytes: Buffer.from('logs') },
        { id: h.artifact.id, name: h.artifact.name, bytes: files },
        { id: 4242777, name: `${h.artifact.name}-archive`, bytes: h200 },
      ],
    });
  });

  it('fetch takes the sealed archive, records the artifact ci.json names, and verify --provider accepts it', async () => {
    const h = FIXTURE_IDENTITY.h200;
    for (const artifact of [undefined, `${h.artifact.name}-archive`]) {
      const out = await outDir();
      const result = await fetchRun(gh.repository, h.run_id, options(out, artifact ? { artifact } : {}));
      expect(result.record.artifact).toMatchObject({ id: 4242777, name: `${h.artifact.name}-archive`, digest: `sha256:${sha256(h200)}` });
      expect(result.record.named_artifact).toMatchObject({ id: h.artifact.id, name: h.artifact.name });
      const verified = await verifyRun(result.zip, { requireProvider: true, requireDigest: true });
      expect(verified.ok, JSON.stringify(verified.ok ? [] : verified.problems)).toBe(true);
      if (verified.ok) {
        expect(verified.run.provenance.attested_by).toBe('provider');
        await verified.run.close();
      }
    }
  });

  it('an archive whose files artifact is missing is FETCH_ARTIFACT_MISSING; a record whose named artifact is not ci.json\'s fails verify', async () => {
    const h = FIXTURE_IDENTITY.h200;
    const run = gh.runs.get(h.run_id)!;
    const files = run.artifacts.splice(1, 1)[0]!;
    expect((await refusal(fetchRun(gh.repository, h.run_id, options(await outDir())))).code).toBe('FETCH_ARTIFACT_MISSING');
    run.artifacts.splice(1, 0, { ...files, id: 5550001 });
    const result = await fetchRun(gh.repository, h.run_id, options(await outDir()));
    const verified = await verifyRun(result.zip, { requireProvider: true });
    expect(verified.ok ? [] : verified.problems.map((p) => p.code)).toEqual(['PROVENANCE_ARTIFACT_MISMATCH']);
  });
});
