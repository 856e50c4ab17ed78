/**
 * fetchRun: downloads one run's artifact from GitHub Actions and keeps the
 * provider's record of it beside the zip (docs/provenance.md).
 *
 *   run (latest attempt) -> the attempt asked for (completed?) -> artifacts
 *   of the run (every page) -> the sealed archive `<prefix>-<run_id>-<attempt>-archive`
 *   of the documented two-upload workflow, or the one named
 *   <prefix>-<run_id>-<attempt> -> download (the API redirects to storage;
 *   streamed to disk while hashed, never past the size the provider listed)
 *   -> SHA-256 against GitHub's digest -> <name>.zip, <name>.zip.sha256,
 *   <name>.zip.provenance.json
 *
 * The provider's answers are hostile input until checked (guard.ts): the
 * token goes to the API origin only, every request has time limits, the
 * artifact list a bounded number of pages on the API's own origin, the
 * answers their expected shape, an artifact name must be a file name.
 *
 * Every refusal happens before anything is put in place: the three files are
 * written under temporary names in `out` and renamed only when the digest
 * matched, the provenance file last, so its presence means the rest is whole.
 */
import { randomBytes } from 'node:crypto';
import { lstat, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { z } from 'zod';
import { hashChunks } from '../archive/hash.js';
import { writeDurable } from '../output/files.js';
import { makeFolders, outputError } from '../output/out-guard.js';
import { FidelityError, invalidParameter } from '../errors.js';
import { TOOL_NAME, TOOL_VERSION } from '../version.js';
import { createClient, providerFailure, type GitHubClient } from './client.js';
import { createGuard, resolveFetchLimits, type FetchLimits, type RequestGuard } from './guard.js';
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
  /** Time limits (connect, idle, total) and the bound on listing pages (DEFAULT_FETCH_LIMITS). */
  limits?: FetchLimits;
  /** Cancels: nothing is written and the promise rejects with a FidelityError `ABORTED`. */
  signal?: AbortSignal;
  /** Told each step as it happens: the run looked up, its artifacts listed, bytes downloaded. */
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

/** The suffix of the sealed archive's artifact in the documented two-upload workflow (docs/run-archive.md). */
export const ARCHIVE_SUFFIX = '-archive';

const REPOSITORY = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;
const DIGEST = /^sha256:([0-9a-fA-F]{64})$/;

type Run = Awaited<ReturnType<GitHubClient['rest']['actions']['getWorkflowRun']>>['data'];
type Artifact = Awaited<ReturnType<GitHubClient['rest']['actions']['listWorkflowRunArtifacts']>>['data']['artifacts'][number];

/** The fields of GitHub's answers fetch relies on: an answer without them (or cut short) is refused, not half-read. */
const RunAnswer = z.object({ id: z.number().int(), run_attempt: z.number().int().optional(), head_sha: z.string(), html_url: z.string(), url: z.string() });
const ArtifactAnswer = z.object({ id: z.number().int().positive(), name: z.string(), size_in_bytes: z.number().int().nonnegative(), expired: z.boolean() });
const ArtifactListAnswer = z.object({ artifacts: z.array(ArtifactAnswer) });

function checkAnswer<T>(schema: z.ZodType, data: T, what: string): T {
  const parsed = schema.safeParse(data);
  if (!parsed.success) throw new FidelityError('FETCH_PROVIDER_INCONSISTENT', `the API's answer to ${what} is not what GitHub documents (${parsed.error.issues[0]?.path.join('.') || 'the whole answer'}: ${parsed.error.issues[0]?.message ?? 'invalid'})`);
  return data;
}

/** Hosts a plain http:// URL may name: this machine only (a test server, an SSH tunnel). Anything else must be https. */
function isLoopback(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Characters GitHub refuses in an artifact name, and control characters: such a name cannot name the files fetch writes. */
const BAD_NAME = /[\u0000-\u001f\u007f"<>|*?:\\/]/;
/** Bytes of an artifact name: `.<name>.zip.provenance.<tag>.part` must stay within a file name's 255 bytes. */
const MAX_NAME_BYTES = 200;

function checkArtifactName(name: string): void {
  const why = name === '.' || name === '..' || name === '' ? 'is not a file name' : Buffer.byteLength(name) > MAX_NAME_BYTES ? `is longer than ${MAX_NAME_BYTES} bytes` : BAD_NAME.test(name) ? 'holds a control character or one of " < > | * ? : \\ /' : null;
  if (why) throw new FidelityError('FETCH_PROVIDER_INCONSISTENT', `the artifact name ${JSON.stringify(name.length > 80 ? `${name.slice(0, 77)}...` : name)} ${why}, so it cannot name the files fetch writes`);
}

/** The `rel="next"` URL of a Link header, or null. */
function nextLink(header: unknown): string | null {
  if (typeof header !== 'string') return null;
  for (const part of header.split(',')) {
    const m = /^\s*<([^>]*)>\s*;(.*)$/.exec(part);
    if (m && /\brel="?next"?/.test(m[2]!)) return m[1]!;
  }
  return null;
}

function checkArguments(repository: string, runId: number, options: FetchRunOptions): { owner: string; repo: string; apiUrl: string; origin: string } {
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
  // The token travels in the clear over http: only to this machine.
  if (parsed.protocol === 'http:' && !isLoopback(parsed)) throw invalidParameter('options.apiUrl', 'an https URL (plain http only on loopback: 127.0.0.1, ::1, localhost)', options.apiUrl);
  const [owner, repo] = repository.split('/') as [string, string];
  return { owner, repo, apiUrl, origin: parsed.origin };
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

/** What fetch downloads, and the artifact ci.json names when that is another one (the two-upload workflow). */
interface Chosen {
  artifact: Artifact;
  named: Artifact | null;
}

/**
 * The artifact of this attempt: the one asked for by name, or the sealed
 * archive `<prefix>-<run_id>-<attempt>-archive` of the two-upload workflow
 * (docs/run-archive.md), or else the only one named `<prefix>-<run_id>-<attempt>`.
 * An archive comes with the artifact ci.json names: the same name without
 * `-archive`, which must exist.
 */
function chooseArtifact(artifacts: Artifact[], runId: number, attempt: number, wanted: string | undefined): Chosen {
  const suffix = `-${runId}-${attempt}`;
  const names = artifacts.map((a) => a.name);
  const listed = names.length ? names.map((n) => JSON.stringify(n)).join(', ') : 'none';
  const withNamed = (artifact: Artifact): Chosen => {
    if (!artifact.name.endsWith(`${suffix}${ARCHIVE_SUFFIX}`)) return { artifact, named: null };
    const base = artifact.name.slice(0, -ARCHIVE_SUFFIX.length);
    const named = artifacts.filter((a) => a.name === base);
    if (named.length === 0) {
      throw new FidelityError('FETCH_ARTIFACT_MISSING', `run ${runId} has the sealed archive ${JSON.stringify(artifact.name)} but not the artifact ${JSON.stringify(base)} its ci.json names (docs/run-archive.md uploads both); it has: ${listed}`);
    }
    if (named.length > 1) throw new FidelityError('FETCH_ARTIFACT_AMBIGUOUS', `run ${runId} has ${named.length} artifacts named ${JSON.stringify(base)}`);
    return { artifact, named: named[0]! };
  };
  if (wanted !== undefined) {
    const found = artifacts.filter((a) => a.name === wanted);
    if (found.length === 0) throw new FidelityError('FETCH_ARTIFACT_MISSING', `run ${runId} has no artifact named ${JSON.stringify(wanted)} (it has: ${listed})`);
    if (found.length > 1) throw new FidelityError('FETCH_ARTIFACT_AMBIGUOUS', `run ${runId} has ${found.length} artifacts named ${JSON.stringify(wanted)}; nothing says which one is attempt ${attempt}`);
    if (!wanted.endsWith(suffix) && !wanted.endsWith(`${suffix}${ARCHIVE_SUFFIX}`)) {
      throw new FidelityError(
        'FETCH_ATTEMPT_MISMATCH',
        `the artifact ${JSON.stringify(wanted)} does not end with ${JSON.stringify(suffix)} (or ${JSON.stringify(`${suffix}${ARCHIVE_SUFFIX}`)}): run archives are named <prefix>-<run_id>-<run_attempt>, so it is not attempt ${attempt} of run ${runId}`,
      );
    }
    return withNamed(found[0]!);
  }
  const archives = artifacts.filter((a) => a.name.endsWith(`${suffix}${ARCHIVE_SUFFIX}`));
  if (archives.length === 1) return withNamed(archives[0]!);
  if (archives.length > 1) {
    throw new FidelityError('FETCH_ARTIFACT_AMBIGUOUS', `run ${runId} has ${archives.length} sealed archives ending with ${JSON.stringify(`${suffix}${ARCHIVE_SUFFIX}`)} (${archives.map((a) => JSON.stringify(a.name)).join(', ')}); choose one with --artifact`);
  }
  const found = artifacts.filter((a) => a.name.endsWith(suffix));
  if (found.length === 1) return { artifact: found[0]!, named: null };
  if (found.length > 1) {
    throw new FidelityError('FETCH_ARTIFACT_AMBIGUOUS', `run ${runId} has ${found.length} artifacts ending with ${JSON.stringify(suffix)} (${found.map((a) => JSON.stringify(a.name)).join(', ')}); choose one with --artifact`);
  }
  const otherAttempts = artifacts.filter((a) => new RegExp(`-${runId}-\\d+(${ARCHIVE_SUFFIX})?$`).test(a.name));
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
  const { owner, repo, apiUrl, origin } = checkArguments(repository, runId, options);
  const limits = resolveFetchLimits(options.limits);
  const guard = createGuard(origin, limits, options.signal);
  try {
    return await fetchGuarded({ repository, runId, owner, repo, apiUrl, origin, maxPages: limits.maxPages }, options, guard);
  } catch (error) {
    // What stopped the fetch (the caller, a time limit) is the reason, whatever it broke on the way.
    throw guard.failure() ?? error;
  } finally {
    guard.close();
  }
}

interface Target {
  repository: string;
  runId: number;
  owner: string;
  repo: string;
  apiUrl: string;
  origin: string;
  maxPages: number;
}

/**
 * Every page of the run's artifact list, following `Link: rel="next"` only on
 * the API's own origin and path (the token goes nowhere else), never the same
 * page twice, at most `maxPages` pages.
 */
async function listArtifacts(client: GitHubClient, t: Target, note: (url: string, status: number, headers: Record<string, unknown>) => void): Promise<Artifact[]> {
  const what = `the artifacts of run ${t.runId} of ${t.repository}`;
  const artifacts: Artifact[] = [];
  let page = await client.request('GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts', { owner: t.owner, repo: t.repo, run_id: t.runId, per_page: 100 });
  const first = new URL(page.url);
  const seen = new Set<string>();
  for (let pages = 1; ; pages++) {
    note(page.url, page.status, page.headers);
    seen.add(page.url);
    artifacts.push(...checkAnswer(ArtifactListAnswer, page.data, what).artifacts);
    const link = nextLink(page.headers.link);
    if (link === null) return artifacts;
    const next = new URL(link, page.url);
    if (next.origin !== t.origin || next.pathname !== first.pathname) {
      throw new FidelityError('FETCH_PROVIDER_INCONSISTENT', `the next page of ${what} is said to be at ${next.origin}${next.pathname}, not on the API (${t.origin}${first.pathname}); fetch sends the token nowhere else and stops`);
    }
    if (seen.has(next.href)) throw new FidelityError('FETCH_PROVIDER_INCONSISTENT', `the pages of ${what} link back to ${next.href}: a loop`);
    if (pages >= t.maxPages) throw new FidelityError('FETCH_PROVIDER_INCONSISTENT', `${what} go on past ${t.maxPages} pages; stopped`);
    page = (await client.request({ method: 'GET', url: next.href } as never)) as typeof page;
  }
}

async function fetchGuarded(t: Target, options: FetchRunOptions, guard: RequestGuard): Promise<FetchRunResult> {
  const { repository, runId, owner, repo, apiUrl } = t;
  const env = process.env;
  const token = options.token ?? (env.GITHUB_TOKEN || env.GH_TOKEN || undefined);
  const client = await createClient({
    apiUrl,
    token,
    maxRateLimitWaitS: options.maxRateLimitWaitS ?? 60,
    retries: options.retries ?? 3,
    signal: guard.signal,
    fetch: guard.fetch,
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
    latest = checkAnswer(RunAnswer, r.data, `reading ${runLabel}`);
  } catch (error) {
    throw providerFailure(error, `reading ${runLabel}`, { code: 'FETCH_RUN_NOT_FOUND', message: `${apiUrl} has no ${runLabel} (or the token cannot see it)` });
  }
  const attemptNo = options.attempt ?? latest.run_attempt ?? 1;
  let attempt: Run;
  try {
    const r = await client.rest.actions.getWorkflowRunAttempt({ owner, repo, run_id: runId, attempt_number: attemptNo });
    note(r.url, r.status, r.headers);
    attempt = checkAnswer(RunAnswer, r.data, `reading attempt ${attemptNo} of ${runLabel}`);
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
  let artifacts: Artifact[];
  try {
    artifacts = await listArtifacts(client, t, note);
  } catch (error) {
    throw providerFailure(error, `listing the artifacts of ${runLabel}`, { code: 'FETCH_RUN_NOT_FOUND', message: `${apiUrl} has no ${runLabel} (or the token cannot see it)` });
  }
  const { artifact, named } = chooseArtifact(artifacts, runId, attemptNo, options.artifact);
  for (const a of named ? [artifact, named] : [artifact]) checkArtifactName(a.name);
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
  for (const a of named ? [artifact, named] : [artifact]) {
    const w = a.workflow_run;
    if (w && ((w.id !== undefined && w.id !== runId) || (w.head_sha !== undefined && w.head_sha !== attempt.head_sha))) {
      throw new FidelityError('FETCH_PROVIDER_INCONSISTENT', `the artifact ${JSON.stringify(a.name)} says it belongs to run ${w.id} at ${w.head_sha}, not to run ${runId} at ${attempt.head_sha}`);
    }
  }

  const out = options.out;
  const zipName = `${artifact.name}.zip`;
  const targets = { zip: path.join(out, zipName), digest: path.join(out, `${zipName}.sha256`), provenance: provenancePath(path.join(out, zipName)) };
  // The output's own paths: the folder, the three files and their temp names.
  const ours = (p: string): boolean => p === path.resolve(out) || path.dirname(p) === path.resolve(out) || path.resolve(out).startsWith(`${p}${path.sep}`);
  try {
    // Not mkdir's recursive form: under /proc it loops forever.
    await makeFolders(out);
  } catch (error) {
    throw outputError(error, `--out ${out}`, ours) ?? error;
  }
  const checkTargets = async (): Promise<void> => {
    if (options.force) return;
    for (const target of Object.values(targets)) {
      if (await exists(target)) throw new FidelityError('FETCH_OUT_EXISTS', `${target} already exists; remove it or pass --force to replace it`);
    }
  };
  await checkTargets();

  const tag = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const temp = { zip: path.join(out, `.${zipName}.${tag}.part`), digest: path.join(out, `.${zipName}.sha256.${tag}.part`), provenance: path.join(out, `.${zipName}.provenance.${tag}.part`) };
  try {
    const downloaded = await download(client, guard, { owner, repo, artifact, file: temp.zip, note, ...(options.onProgress ? { onProgress: options.onProgress } : {}) });
    if (downloaded.sha256 !== expected) {
      throw new FidelityError(
        'FETCH_DIGEST_MISMATCH',
        `the downloaded artifact ${JSON.stringify(artifact.name)} (${downloaded.size} bytes) hashes to sha256:${downloaded.sha256}, GitHub's digest is sha256:${expected}; nothing was written`,
      );
    }
    const namedDigest = named ? DIGEST.exec(named.digest ?? '') : null;
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
      // The files artifact ci.json names has a digest of its own; one without is recorded without it (nothing of it is downloaded).
      ...(named ? { named_artifact: artifactRecord(named, namedDigest ? `sha256:${namedDigest[1]!.toLowerCase()}` : `sha256:${'0'.repeat(64)}`) } : {}),
      download: { file: zipName, sha256: downloaded.sha256, size: downloaded.size, redirected_to: downloaded.redirectedTo },
      requests,
    } satisfies Provenance);
    await writeDurable(temp.digest, `sha256:${downloaded.sha256}  ${zipName}\n`);
    await writeDurable(temp.provenance, `${JSON.stringify(record, null, 2)}\n`);
    guard.signal.throwIfAborted();
    await checkTargets();
    // An old record must not stand, even for a moment, beside the new zip it does not describe.
    if (options.force) await rm(targets.provenance, { force: true });
    // The zip first and the provenance last: a provenance file is only ever beside a whole zip.
    await rename(temp.zip, targets.zip);
    await rename(temp.digest, targets.digest);
    await rename(temp.provenance, targets.provenance);
    return { ...targets, record };
  } catch (error) {
    await Promise.all(Object.values(temp).map((f) => rm(f, { force: true })));
    const stopped = guard.failure();
    if (stopped) throw stopped;
    throw outputError(error, `--out ${out}`, ours) ?? error;
  }
}

interface DownloadArgs {
  owner: string;
  repo: string;
  artifact: Artifact;
  file: string;
  note: (url: string, status: number, headers: Record<string, unknown>) => void;
  onProgress?: (event: FetchProgress) => void;
}

/**
 * GitHub answers the download endpoint with a 302 to short-lived storage URL.
 * The redirect is followed by hand so the token is never sent to the storage
 * host (and only over https, or http on loopback), and the body is streamed
 * to disk while it is hashed, never past the size the provider listed.
 */
async function download(client: GitHubClient, guard: RequestGuard, args: DownloadArgs): Promise<{ sha256: string; size: number; redirectedTo: string | null }> {
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
      const target = new URL(location, r.url);
      if (target.protocol !== 'https:' && !(target.protocol === 'http:' && isLoopback(target))) {
        throw new FidelityError('FETCH_PROVIDER_INCONSISTENT', `${what}: the API redirects to ${target.protocol}//${target.host}, not to an https storage URL`);
      }
      redirectedTo = withoutQuery(target.href);
      const blob = await guard.fetch(target.href, { redirect: 'follow' });
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
      bytes += chunk.byteLength;
      // Never more than the provider said the artifact holds: an endless body would fill the disk.
      if (bytes > artifact.size_in_bytes) {
        throw new FidelityError('FETCH_PROVIDER_INCONSISTENT', `${what}: the download runs past the ${artifact.size_in_bytes} bytes the provider lists for the artifact; stopped`);
      }
      await handle.write(chunk);
      args.onProgress?.({ stage: 'download', bytes, total: artifact.size_in_bytes });
    });
    await handle.sync();
    return { ...hashed, redirectedTo };
  } catch (error) {
    if (error instanceof FidelityError) throw error;
    const written = outputError(error, args.file, (p) => p === path.resolve(args.file));
    throw written ?? providerFailure(error, what, { code: 'FETCH_PROVIDER_ERROR', message: `${what} failed` });
  } finally {
    await handle.close();
  }
}
