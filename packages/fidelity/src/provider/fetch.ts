/**
 * fetchRun: downloads one run's artifact from GitHub Actions and keeps the
 * provider's record of it beside the zip (docs/provenance.md).
 *
 *   run (latest attempt) -> the attempt asked for (completed?) -> artifacts
 *   of the run (every page) -> the one named <prefix>-<run_id>-<attempt> ->
 *   download (the API redirects to storage; streamed to disk while hashed)
 *   -> SHA-256 against GitHub's digest -> <name>.zip, <name>.zip.sha256,
 *   <name>.zip.provenance.json
 *
 * Every refusal happens before anything is put in place: the three files are
 * written under temporary names in `out` and renamed only when the digest
 * matched, the provenance file last, so its presence means the rest is whole.
 */
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { hashChunks } from '../archive/hash.js';
import { FidelityError, invalidParameter } from '../errors.js';
import { TOOL_NAME, TOOL_VERSION } from '../version.js';
import { createClient, providerFailure, type GitHubClient } from './client.js';
import { Provenance, provenancePath, type ProviderRequest, type ProvenanceArtifact, type ProvenanceRun } from './schema.js';

/** GitHub.com's REST API; `apiUrl` (`--api-url`) points fetch at GitHub Enterprise instead. */
export const DEFAULT_API_URL = 'https://api.github.com';

/** Options of fetchRun(): which run attempt and artifact, where to write, and how to reach the API. */
export interface FetchRunOptions {
  /** Folder the files are written to (created when missing). */
  out: string;
  /** The run attempt (default: the run's latest). */
  attempt?: number;
  /** The artifact's exact name (default: the one artifact named `<prefix>-<run_id>-<attempt>`). */
  artifact?: string;
  /** REST API root: https://api.github.com, or `https://<host>/api/v3` for GitHub Enterprise Server. */
  apiUrl?: string;
  /** Default: GITHUB_TOKEN, else GH_TOKEN, from the environment. */
  token?: string;
  /** Replace files of the same names in `out` (otherwise FETCH_OUT_EXISTS). */
  force?: boolean;
  /** Longest wait for a rate limit to reset, in seconds (default 60); past it FETCH_RATE_LIMITED. */
  maxRateLimitWaitS?: number;
  /** Retries of a 5xx or network failure (default 3, with octokit's backoff of 1, 4, 9 s). */
  retries?: number;
  signal?: AbortSignal;
  onProgress?: (event: FetchProgress) => void;
}

/** Progress of fetchRun(): the API calls, then the download's bytes. */
export type FetchProgress =
  | { stage: 'run' | 'artifacts'; detail: string }
  | { stage: 'download'; bytes: number; total: number };

/** What fetchRun() wrote: the zip, its digest file and its provenance record, and what the provider said. */
export interface FetchRunResult {
  /** The zip written. */
  zip: string;
  /** `<zip>.sha256`: the digest sidecar the run-archive format reads. */
  digest: string;
  /** `<zip>.provenance.json`. */
  provenance: string;
  record: Provenance;
}

const REPOSITORY = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;
const DIGEST = /^sha256:([0-9a-fA-F]{64})$/;

type Run = Awaited<ReturnType<GitHubClient['rest']['actions']['getWorkflowRun']>>['data'];
type Artifact = Awaited<ReturnType<GitHubClient['rest']['actions']['listWorkflowRunArtifacts']>>['data']['artifacts'][number];

function checkArguments(repository: string, runId: number, options: FetchRunOptions): { owner: string; repo: string; apiUrl: string } {
  if (typeof repository !== 'string' || !REPOSITORY.test(repository)) throw invalidParameter('repository', 'owner/name', repository);
  if (!Number.isSafeInteger(runId) || runId < 1) throw invalidParameter('runId', 'a positive integer', runId);
  if (!options || typeof options.out !== 'string' || options.out === '') throw invalidParameter('options.out', 'a folder path', options?.out);
  if (options.attempt !== undefined && (!Number.isSafeInteger(options.attempt) || options.attempt < 1)) throw invalidParameter('options.attempt', 'an integer of at least 1', options.attempt);
  if (options.artifact !== undefined && (typeof options.artifact !== 'string' || options.artifact === '')) throw invalidParameter('options.artifact', 'an artifact name', options.artifact);
  const apiUrl = (options.apiUrl ?? DEFAULT_API_URL).replace(/\/+$/, '');
  let parsed: URL | undefined;
  try {
    parsed = new URL(apiUrl);
  } catch {
    parsed = undefined;
  }
  if (!parsed || !/^https?:$/.test(parsed.protocol)) throw invalidParameter('options.apiUrl', 'an http(s) URL', options.apiUrl);
  const [owner, repo] = repository.split('/') as [string, string];
  return { owner, repo, apiUrl };
}

/** The web server of a run, from its html_url: everything before `/<owner>/<name>/`. */
function serverUrlOf(htmlUrl: string, fullName: string): string {
  const at = htmlUrl.toLowerCase().indexOf(`/${fullName.toLowerCase()}/`);
  if (at > 0) return htmlUrl.slice(0, at);
  try {
    return new URL(htmlUrl).origin;
  } catch {
    return htmlUrl;
  }
}

function withoutQuery(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return url.replace(/[?#].*$/, '');
  }
}

function runRecord(attempt: Run, latest: Run): ProvenanceRun {
  return {
    id: attempt.id,
    run_attempt: attempt.run_attempt ?? 1,
    latest_attempt: latest.run_attempt ?? 1,
    run_number: attempt.run_number ?? null,
    name: attempt.name ?? null,
    display_title: attempt.display_title ?? null,
    path: attempt.path ?? null,
    workflow_id: attempt.workflow_id ?? null,
    event: attempt.event ?? null,
    head_sha: attempt.head_sha,
    head_branch: attempt.head_branch ?? null,
    status: attempt.status ?? null,
    conclusion: attempt.conclusion ?? null,
    url: attempt.url,
    html_url: attempt.html_url,
    created_at: attempt.created_at ?? null,
    updated_at: attempt.updated_at ?? null,
    run_started_at: attempt.run_started_at ?? null,
  };
}

function artifactRecord(a: Artifact, digest: string): ProvenanceArtifact {
  const w = a.workflow_run;
  return {
    id: a.id,
    name: a.name,
    size_in_bytes: a.size_in_bytes,
    digest,
    url: a.url,
    archive_download_url: a.archive_download_url,
    created_at: a.created_at ?? null,
    updated_at: a.updated_at ?? null,
    expires_at: a.expires_at ?? null,
    expired: a.expired,
    workflow_run: w ? { id: w.id ?? null, head_sha: w.head_sha ?? null, head_branch: w.head_branch ?? null, repository_id: w.repository_id ?? null } : null,
  };
}

/** The artifact of this attempt: the one asked for by name, or the only one named `<prefix>-<run_id>-<attempt>`. */
function chooseArtifact(artifacts: Artifact[], runId: number, attempt: number, wanted: string | undefined): Artifact {
  const suffix = `-${runId}-${attempt}`;
  const names = artifacts.map((a) => a.name);
  const listed = names.length ? names.map((n) => JSON.stringify(n)).join(', ') : 'none';
  if (wanted !== undefined) {
    const found = artifacts.filter((a) => a.name === wanted);
    if (found.length === 0) throw new FidelityError('FETCH_ARTIFACT_MISSING', `run ${runId} has no artifact named ${JSON.stringify(wanted)} (it has: ${listed})`);
    if (found.length > 1) throw new FidelityError('FETCH_ARTIFACT_AMBIGUOUS', `run ${runId} has ${found.length} artifacts named ${JSON.stringify(wanted)}; nothing says which one is attempt ${attempt}`);
    if (!wanted.endsWith(suffix)) {
      throw new FidelityError(
        'FETCH_ATTEMPT_MISMATCH',
        `the artifact ${JSON.stringify(wanted)} does not end with ${JSON.stringify(suffix)}: run archives are named <prefix>-<run_id>-<run_attempt>, so it is not attempt ${attempt} of run ${runId}`,
      );
    }
    return found[0]!;
  }
  const found = artifacts.filter((a) => a.name.endsWith(suffix));
  if (found.length === 1) return found[0]!;
  if (found.length > 1) {
    throw new FidelityError('FETCH_ARTIFACT_AMBIGUOUS', `run ${runId} has ${found.length} artifacts ending with ${JSON.stringify(suffix)} (${found.map((a) => JSON.stringify(a.name)).join(', ')}); choose one with --artifact`);
  }
  const otherAttempts = artifacts.filter((a) => new RegExp(`-${runId}-\\d+$`).test(a.name));
  if (otherAttempts.length) {
    throw new FidelityError(
      'FETCH_ATTEMPT_MISMATCH',
      `run ${runId} has no artifact of attempt ${attempt}, only of other attempts (${otherAttempts.map((a) => JSON.stringify(a.name)).join(', ')}); ask for that attempt with --attempt`,
    );
  }
  throw new FidelityError('FETCH_ARTIFACT_MISSING', `run ${runId} has no artifact named <prefix>${suffix} (it has: ${listed})`);
}

async function exists(file: string): Promise<boolean> {
  try {
    await lstat(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/**
 * Downloads `<owner>/<repo>` run `runId`'s artifact into `options.out` and
 * writes the provider's record of it beside the zip. Refusals are
 * FidelityErrors with a FETCH_* code (docs/reason-codes.md); `out` then holds
 * nothing new.
 */
export async function fetchRun(repository: string, runId: number, options: FetchRunOptions): Promise<FetchRunResult> {
  const { owner, repo, apiUrl } = checkArguments(repository, runId, options);
  const env = process.env;
  const token = options.token ?? (env.GITHUB_TOKEN || env.GH_TOKEN || undefined);
  const client = createClient({
    apiUrl,
    token,
    maxRateLimitWaitS: options.maxRateLimitWaitS ?? 60,
    retries: options.retries ?? 3,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const requests: ProviderRequest[] = [];
  const note = (url: string, status: number, headers: Record<string, unknown>): void => {
    requests.push({ method: 'GET', url, status, date: typeof headers.date === 'string' ? headers.date : null });
  };
  const runLabel = `run ${runId} of ${repository}`;

  options.onProgress?.({ stage: 'run', detail: runLabel });
  let latest: Run;
  try {
    const r = await client.rest.actions.getWorkflowRun({ owner, repo, run_id: runId });
    note(r.url, r.status, r.headers);
    latest = r.data;
  } catch (error) {
    throw providerFailure(error, `reading ${runLabel}`, { code: 'FETCH_RUN_NOT_FOUND', message: `${apiUrl} has no ${runLabel} (or the token cannot see it)` });
  }
  const attemptNo = options.attempt ?? latest.run_attempt ?? 1;
  let attempt: Run;
  try {
    const r = await client.rest.actions.getWorkflowRunAttempt({ owner, repo, run_id: runId, attempt_number: attemptNo });
    note(r.url, r.status, r.headers);
    attempt = r.data;
  } catch (error) {
    throw providerFailure(error, `reading attempt ${attemptNo} of ${runLabel}`, {
      code: 'FETCH_ATTEMPT_NOT_FOUND',
      message: `${runLabel} has no attempt ${attemptNo} (its latest attempt is ${latest.run_attempt ?? 1})`,
    });
  }
  if (attempt.id !== runId || (attempt.run_attempt ?? 1) !== attemptNo) {
    throw new FidelityError('FETCH_PROVIDER_INCONSISTENT', `asked for attempt ${attemptNo} of run ${runId}, the API answered with attempt ${attempt.run_attempt} of run ${attempt.id}`);
  }
  if (attempt.status !== 'completed') {
    throw new FidelityError('FETCH_RUN_IN_PROGRESS', `attempt ${attemptNo} of ${runLabel} is ${JSON.stringify(attempt.status)}, not completed: its artifact may still change; fetch it when the run has finished`);
  }

  options.onProgress?.({ stage: 'artifacts', detail: runLabel });
  const artifacts: Artifact[] = [];
  try {
    for await (const page of client.paginate.iterator(client.rest.actions.listWorkflowRunArtifacts, { owner, repo, run_id: runId, per_page: 100 })) {
      note(page.url, page.status, page.headers);
      artifacts.push(...page.data);
    }
  } catch (error) {
    throw providerFailure(error, `listing the artifacts of ${runLabel}`, { code: 'FETCH_RUN_NOT_FOUND', message: `${apiUrl} has no ${runLabel} (or the token cannot see it)` });
  }
  const artifact = chooseArtifact(artifacts, runId, attemptNo, options.artifact);
  if (artifact.name !== path.basename(artifact.name) || artifact.name === '.' || artifact.name === '..' || artifact.name.includes('\\') || artifact.name.includes('\0')) {
    throw new FidelityError('FETCH_PROVIDER_INCONSISTENT', `the artifact name ${JSON.stringify(artifact.name)} cannot be a file name`);
  }
  if (artifact.expired) {
    throw new FidelityError('FETCH_ARTIFACT_EXPIRED', `the artifact ${JSON.stringify(artifact.name)} (id ${artifact.id}) expired${artifact.expires_at ? ` at ${artifact.expires_at}` : ''}: GitHub no longer holds its bytes`);
  }
  const digestMatch = DIGEST.exec(artifact.digest ?? '');
  if (!digestMatch) {
    throw new FidelityError(
      'FETCH_DIGEST_MISSING',
      `GitHub reports no SHA-256 digest for the artifact ${JSON.stringify(artifact.name)} (digest ${JSON.stringify(artifact.digest ?? null)}; only artifacts uploaded with upload-artifact v4 or newer have one), so its bytes cannot be attested`,
    );
  }
  const expected = digestMatch[1]!.toLowerCase();
  const w = artifact.workflow_run;
  if (w && ((w.id !== undefined && w.id !== runId) || (w.head_sha !== undefined && w.head_sha !== attempt.head_sha))) {
    throw new FidelityError('FETCH_PROVIDER_INCONSISTENT', `the artifact ${JSON.stringify(artifact.name)} says it belongs to run ${w.id} at ${w.head_sha}, not to run ${runId} at ${attempt.head_sha}`);
  }

  const out = options.out;
  await mkdir(out, { recursive: true });
  const zipName = `${artifact.name}.zip`;
  const targets = { zip: path.join(out, zipName), digest: path.join(out, `${zipName}.sha256`), provenance: provenancePath(path.join(out, zipName)) };
  const checkTargets = async (): Promise<void> => {
    if (options.force) return;
    for (const t of Object.values(targets)) {
      if (await exists(t)) throw new FidelityError('FETCH_OUT_EXISTS', `${t} already exists; remove it or pass --force to replace it`);
    }
  };
  await checkTargets();

  const tag = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const temp = { zip: path.join(out, `.${zipName}.${tag}.part`), digest: path.join(out, `.${zipName}.sha256.${tag}.part`), provenance: path.join(out, `.${zipName}.provenance.${tag}.part`) };
  try {
    const downloaded = await download(client, { owner, repo, artifact, file: temp.zip, note, ...(options.signal ? { signal: options.signal } : {}), ...(options.onProgress ? { onProgress: options.onProgress } : {}) });
    if (downloaded.sha256 !== expected) {
      throw new FidelityError(
        'FETCH_DIGEST_MISMATCH',
        `the downloaded artifact ${JSON.stringify(artifact.name)} (${downloaded.size} bytes) hashes to sha256:${downloaded.sha256}, GitHub's digest is sha256:${expected}; nothing was written`,
      );
    }
    const record = Provenance.parse({
      schema_version: 1,
      kind: 'fidelity-provenance',
      tool: { name: TOOL_NAME, version: TOOL_VERSION },
      fetched_at: new Date().toISOString(),
      provider: { name: 'github', api_url: apiUrl, server_url: serverUrlOf(attempt.html_url, attempt.repository?.full_name ?? repository) },
      repository: {
        full_name: attempt.repository?.full_name ?? repository,
        id: attempt.repository?.id ?? null,
        html_url: attempt.repository?.html_url ?? null,
      },
      run: runRecord(attempt, latest),
      artifact: artifactRecord(artifact, `sha256:${expected}`),
      download: { file: zipName, sha256: downloaded.sha256, size: downloaded.size, redirected_to: downloaded.redirectedTo },
      requests,
    } satisfies Provenance);
    await writeDurable(temp.digest, `sha256:${downloaded.sha256}  ${zipName}\n`);
    await writeDurable(temp.provenance, `${JSON.stringify(record, null, 2)}\n`);
    options.signal?.throwIfAborted();
    await checkTargets();
    // An old record must not stand, even for a moment, beside the new zip it does not describe.
    if (options.force) await rm(targets.provenance, { force: true });
    // The zip first and the provenance last: a provenance file is only ever beside a whole zip.
    await rename(temp.zip, targets.zip);
    await rename(temp.digest, targets.digest);
    await rename(temp.provenance, targets.provenance);
    return { ...targets, record };
  } catch (error) {
    await Promise.all(Object.values(temp).map((t) => rm(t, { force: true })));
    if (options.signal?.aborted && !(error instanceof FidelityError && error.code === 'ABORTED')) {
      throw new FidelityError('ABORTED', 'the fetch was cancelled; nothing was written', { cause: error });
    }
    throw error;
  }
}

async function writeDurable(file: string, text: string): Promise<void> {
  const handle = await open(file, 'wx');
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

interface DownloadArgs {
  owner: string;
  repo: string;
  artifact: Artifact;
  file: string;
  note: (url: string, status: number, headers: Record<string, unknown>) => void;
  signal?: AbortSignal;
  onProgress?: (event: FetchProgress) => void;
}

/**
 * GitHub answers the download endpoint with a 302 to short-lived storage URL.
 * The redirect is followed by hand so the token is never sent to the storage
 * host, and the body is streamed to disk while it is hashed.
 */
async function download(client: GitHubClient, args: DownloadArgs): Promise<{ sha256: string; size: number; redirectedTo: string | null }> {
  const { owner, repo, artifact } = args;
  const what = `downloading the artifact ${JSON.stringify(artifact.name)}`;
  let body: WebReadableStream<Uint8Array> | null;
  let redirectedTo: string | null = null;
  try {
    const r = await client.request('GET /repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}', {
      owner,
      repo,
      artifact_id: artifact.id,
      archive_format: 'zip',
      request: { redirect: 'manual', parseSuccessResponseBody: false },
    });
    const status = r.status as number;
    args.note(r.url, status, r.headers);
    if (status >= 300 && status < 400) {
      const location = r.headers.location;
      if (typeof location !== 'string' || location === '') throw new FidelityError('FETCH_PROVIDER_ERROR', `${what}: HTTP ${status} without a Location`);
      await (r.data as unknown as WebReadableStream | null)?.cancel().catch(() => undefined);
      const target = new URL(location, r.url).href;
      redirectedTo = withoutQuery(target);
      const blob = await fetch(target, { redirect: 'follow', ...(args.signal ? { signal: args.signal } : {}) });
      args.note(redirectedTo, blob.status, { date: blob.headers.get('date') });
      if (blob.status === 410) throw new FidelityError('FETCH_ARTIFACT_EXPIRED', `${what}: the storage answered 410 Gone (the artifact expired)`);
      if (!blob.ok) throw new FidelityError('FETCH_PROVIDER_ERROR', `${what}: the storage answered HTTP ${blob.status}`);
      body = blob.body as WebReadableStream<Uint8Array> | null;
    } else {
      body = r.data as unknown as WebReadableStream<Uint8Array> | null;
    }
  } catch (error) {
    throw providerFailure(error, what, { code: 'FETCH_ARTIFACT_MISSING', message: `${what}: the API has no such artifact (id ${artifact.id}) any more` });
  }
  if (!body) throw new FidelityError('FETCH_PROVIDER_ERROR', `${what}: the response has no body`);
  const handle = await open(args.file, 'wx');
  try {
    let bytes = 0;
    const hashed = await hashChunks(Readable.fromWeb(body), async (chunk) => {
      await handle.write(chunk);
      bytes += chunk.byteLength;
      args.onProgress?.({ stage: 'download', bytes, total: artifact.size_in_bytes });
    });
    await handle.sync();
    return { ...hashed, redirectedTo };
  } catch (error) {
    throw providerFailure(error, what, { code: 'FETCH_PROVIDER_ERROR', message: `${what} failed` });
  } finally {
    await handle.close();
  }
}
