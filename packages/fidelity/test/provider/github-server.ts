/**
 * A small GitHub REST API on 127.0.0.1 for the fetch tests: the endpoints
 * fetchRun calls, with bodies shaped as GitHub documents them ("Get a
 * workflow run", "Get a workflow run attempt", "List workflow run artifacts"
 * with Link-header pagination, "Download an artifact" answering 302 to a
 * second, short-lived URL on the same server), plus the failures GitHub
 * really sends: a 403 primary rate limit with x-ratelimit-* headers, 404,
 * 410 for an expired artifact, a 5xx. octokit talks to it through apiUrl;
 * nothing of octokit is replaced.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeArtifact {
  id: number;
  name: string;
  /** The bytes the download serves. */
  bytes: Buffer;
  /** GitHub's digest field: default sha256 of `bytes`; null for artifacts older than upload-artifact v4. */
  digest?: string | null;
  expired?: boolean;
  /** The download endpoint answers 410 even though the listing says not expired (it expired in between). */
  goneOnDownload?: boolean;
}

export interface FakeRun {
  id: number;
  /** Attempts 1..N; the last is the run's latest. Each attempt's status (default completed). */
  attempts: { status?: string; conclusion?: string | null }[];
  head_sha: string;
  artifacts: FakeArtifact[];
}

export interface Seen {
  method: string;
  path: string;
  authorization: string | undefined;
}

export interface FakeGitHub {
  /** The API root to give fetchRun (GitHub Enterprise style: /api/v3). */
  apiUrl: string;
  origin: string;
  repository: string;
  runs: Map<number, FakeRun>;
  seen: Seen[];
  /** The next N API requests answer 403 rate-limited, with x-ratelimit-reset this many seconds ahead. */
  rateLimit(times: number, resetInS: number): void;
  /** The next N API requests answer this status (e.g. 502, 401). */
  failNext(times: number, status: number): void;
  /** Page size of the artifact list, to exercise pagination with few artifacts. */
  pageSize: number;
  /**
   * A hostile provider's behaviour: called for every request after it is
   * recorded in `seen`; returning true means it answered (or chose never to).
   */
  intercept: ((req: IncomingMessage, res: ServerResponse, url: URL) => boolean) | null;
  /** Rewrites every Link header of the artifact list (a hostile pagination). */
  linkRewrite: ((link: string, url: URL) => string) | null;
  close(): Promise<void>;
}

export const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

const DOCS = 'https://docs.github.com/rest';
const SERVER = 'https://github.com';

export async function startFakeGitHub(repository = 'example-org/video-serving-bench'): Promise<FakeGitHub> {
  const [owner, name] = repository.split('/') as [string, string];
  const runs = new Map<number, FakeRun>();
  const seen: Seen[] = [];
  let limited = { times: 0, resetInS: 0 };
  let failing = { times: 0, status: 500 };
  let origin = '';
  const api = (): string => `${origin}/api/v3`;
  const repoApi = (): string => `${api()}/repos/${repository}`;

  const user = () => ({
    login: owner,
    id: 9919,
    node_id: 'MDEyOk9yZ2FuaXphdGlvbjk5MTk=',
    avatar_url: 'https://avatars.githubusercontent.com/u/9919?v=4',
    gravatar_id: '',
    url: `${api()}/users/${owner}`,
    html_url: `${SERVER}/${owner}`,
    type: 'Organization',
    site_admin: false,
  });
  const minimalRepository = () => ({
    id: 1296269,
    node_id: 'MDEwOlJlcG9zaXRvcnkxMjk2MjY5',
    name,
    full_name: repository,
    owner: user(),
    private: false,
    html_url: `${SERVER}/${repository}`,
    description: 'video serving benchmark',
    fork: false,
    url: repoApi(),
  });

  const runBody = (run: FakeRun, attempt: number) => {
    const a = run.attempts[attempt - 1]!;
    const status = a.status ?? 'completed';
    const base = `${repoApi()}/actions/runs/${run.id}`;
    return {
      id: run.id,
      name: 'h3-serving',
      node_id: 'WFR_kwLOBnW0pM8AAAAG_Yd3kA',
      check_suite_id: 42 + attempt,
      check_suite_node_id: 'CS_kwDOBnW0pM8AAAAB',
      head_branch: 'main',
      head_sha: run.head_sha,
      path: '.github/workflows/h3-serving.yml',
      display_title: 'H3 serving smoke',
      run_number: 562,
      event: 'workflow_dispatch',
      status,
      conclusion: status === 'completed' ? (a.conclusion === undefined ? 'success' : a.conclusion) : null,
      workflow_id: 159038,
      url: base,
      html_url: `${SERVER}/${repository}/actions/runs/${run.id}`,
      pull_requests: [],
      created_at: '2026-11-29T21:30:00Z',
      updated_at: `2026-11-29T22:0${attempt}:00Z`,
      actor: user(),
      triggering_actor: user(),
      run_attempt: attempt,
      referenced_workflows: [],
      run_started_at: `2026-11-29T21:3${attempt}:00Z`,
      jobs_url: `${base}/jobs`,
      logs_url: `${base}/logs`,
      check_suite_url: `${repoApi()}/check-suites/${42 + attempt}`,
      artifacts_url: `${base}/artifacts`,
      cancel_url: `${base}/cancel`,
      rerun_url: `${base}/rerun`,
      previous_attempt_url: attempt > 1 ? `${base}/attempts/${attempt - 1}` : null,
      workflow_url: `${repoApi()}/actions/workflows/159038`,
      head_commit: {
        id: run.head_sha,
        tree_id: 'd23f6eedb1e1b9610bbc754ddb5197bfe7271223',
        message: 'Run the H3 smoke',
        timestamp: '2026-11-29T21:29:00Z',
        author: { name: 'Octo Cat', email: 'octocat@github.com' },
        committer: { name: 'GitHub', email: 'noreply@github.com' },
      },
      repository: minimalRepository(),
      head_repository: minimalRepository(),
    };
  };

  const artifactBody = (run: FakeRun, a: FakeArtifact) => ({
    id: a.id,
    node_id: 'MDg6QXJ0aWZhY3QxMQ==',
    name: a.name,
    size_in_bytes: a.bytes.length,
    url: `${repoApi()}/actions/artifacts/${a.id}`,
    archive_download_url: `${repoApi()}/actions/artifacts/${a.id}/zip`,
    expired: a.expired ?? false,
    created_at: '2026-11-29T21:58:00Z',
    expires_at: a.expired ? '2026-11-30T00:00:00Z' : '2027-02-27T21:58:00Z',
    updated_at: '2026-11-29T21:58:00Z',
    digest: a.digest === undefined ? `sha256:${sha256(a.bytes)}` : a.digest,
    workflow_run: { id: run.id, repository_id: 1296269, head_repository_id: 1296269, head_branch: 'main', head_sha: run.head_sha },
  });

  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
      'x-github-api-version-selected': '2022-11-28',
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': '4999',
      'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600),
      'x-ratelimit-used': '1',
      'x-ratelimit-resource': 'core',
      ...headers,
    });
    res.end(text);
  };
  const notFound = (res: ServerResponse): void => json(res, 404, { message: 'Not Found', documentation_url: DOCS, status: '404' });

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', origin);
    seen.push({ method: req.method ?? '', path: url.pathname + url.search, authorization: req.headers.authorization });
    if (fake.intercept?.(req, res, url)) return;
    // The storage URL the download redirects to: no API headers, no token needed (the query is the credential).
    const blob = /^\/storage\/artifacts\/(\d+)\.zip$/.exec(url.pathname);
    if (blob) {
      if (url.searchParams.get('sig') !== 'short-lived' || req.headers.authorization) {
        res.writeHead(403, { 'content-type': 'application/xml' });
        res.end('<Error><Code>AuthenticationFailed</Code></Error>');
        return;
      }
      const a = [...runs.values()].flatMap((r) => r.artifacts).find((x) => x.id === Number(blob[1]));
      if (!a) return notFound(res);
      res.writeHead(200, { 'content-type': 'application/zip', 'content-length': a.bytes.length });
      // Two writes, so the client really streams.
      const half = Math.floor(a.bytes.length / 2);
      res.write(a.bytes.subarray(0, half));
      res.end(a.bytes.subarray(half));
      return;
    }
    if (!url.pathname.startsWith('/api/v3/')) return notFound(res);
    if (limited.times > 0) {
      limited.times--;
      const reset = Math.floor(Date.now() / 1000) + limited.resetInS;
      json(
        res,
        403,
        { message: 'API rate limit exceeded for 127.0.0.1. (But here\'s the good news: Authenticated requests get a higher rate limit.)', documentation_url: `${DOCS}/overview/resources-in-the-rest-api#rate-limiting` },
        { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-used': '60', 'x-ratelimit-reset': String(reset) },
      );
      return;
    }
    if (failing.times > 0) {
      failing.times--;
      const message = failing.status === 401 ? 'Bad credentials' : 'Server Error';
      json(res, failing.status, { message, documentation_url: DOCS, status: String(failing.status) });
      return;
    }
    const path = url.pathname.slice('/api/v3'.length);
    const prefix = `/repos/${repository}/actions`;
    if (!path.startsWith(`${prefix}/`)) return notFound(res);
    const rest = path.slice(prefix.length);
    let m = /^\/runs\/(\d+)$/.exec(rest);
    if (m) {
      const run = runs.get(Number(m[1]));
      return run ? json(res, 200, runBody(run, run.attempts.length)) : notFound(res);
    }
    m = /^\/runs\/(\d+)\/attempts\/(\d+)$/.exec(rest);
    if (m) {
      const run = runs.get(Number(m[1]));
      const attempt = Number(m[2]);
      return run && attempt >= 1 && attempt <= run.attempts.length ? json(res, 200, runBody(run, attempt)) : notFound(res);
    }
    m = /^\/runs\/(\d+)\/artifacts$/.exec(rest);
    if (m) {
      const run = runs.get(Number(m[1]));
      if (!run) return notFound(res);
      const perPage = Math.min(Number(url.searchParams.get('per_page') ?? 30), 100, fake.pageSize);
      const page = Math.max(1, Number(url.searchParams.get('page') ?? 1));
      const last = Math.max(1, Math.ceil(run.artifacts.length / perPage));
      const link = (p: number, rel: string): string => {
        const u = new URL(url.href);
        u.searchParams.set('per_page', String(Number(url.searchParams.get('per_page') ?? 30)));
        u.searchParams.set('page', String(p));
        return `<${u.href}>; rel="${rel}"`;
      };
      const links: string[] = [];
      if (page > 1) links.push(link(page - 1, 'prev'), link(1, 'first'));
      if (page < last) links.push(link(page + 1, 'next'), link(last, 'last'));
      const items = run.artifacts.slice((page - 1) * perPage, page * perPage).map((a) => artifactBody(run, a));
      const linkHeader = links.length ? links.join(', ') : '';
      const shown = fake.linkRewrite ? fake.linkRewrite(linkHeader, url) : linkHeader;
      return json(res, 200, { total_count: run.artifacts.length, artifacts: items }, shown ? { link: shown } : {});
    }
    m = /^\/artifacts\/(\d+)\/zip$/.exec(rest);
    if (m) {
      const id = Number(m[1]);
      const a = [...runs.values()].flatMap((r) => r.artifacts).find((x) => x.id === id);
      if (!a) return notFound(res);
      if (a.expired || a.goneOnDownload) return json(res, 410, { message: 'Artifact has expired', documentation_url: DOCS, status: '410' });
      res.writeHead(302, { location: `${origin}/storage/artifacts/${id}.zip?sv=2025-01-01&se=2026-11-30T00%3A01%3A00Z&sig=short-lived`, 'content-length': 0 });
      res.end();
      return;
    }
    notFound(res);
  };

  const server: Server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const fake: FakeGitHub = {
    apiUrl: api(),
    origin,
    repository,
    runs,
    seen,
    pageSize: 100,
    intercept: null,
    linkRewrite: null,
    rateLimit(times, resetInS) {
      limited = { times, resetInS };
    },
    failNext(times, status) {
      failing = { times, status };
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((e) => (e ? reject(e) : resolve()));
      }),
  };
  return fake;
}
