/**
 * The GitHub REST client fetch uses: @octokit/rest with octokit's own retry
 * (5xx and network failures, with its backoff) and throttling (primary and
 * secondary rate limits, waiting until the reset the response names) plugins,
 * and the mapping of what can go wrong to reason codes.
 */
import type { Octokit } from '@octokit/rest';
import { FidelityError } from '../errors.js';
import { TOOL_NAME, TOOL_VERSION } from '../version.js';

/** The plugins add behaviour, not methods fetch calls, so the client is typed as @octokit/rest's. */
export type GitHubClient = Octokit;

let loading: Promise<typeof Octokit> | undefined;

/**
 * @octokit/rest with its plugins, imported on the first fetch: the library's other entry points never
 * reach the network, so importing the library does not load octokit (docs/performance.md, "Start-up").
 */
function loadClient(): Promise<typeof Octokit> {
  loading ??= Promise.all([import('@octokit/rest'), import('@octokit/plugin-retry'), import('@octokit/plugin-throttling')]).then(
    ([{ Octokit: Rest }, { retry }, { throttling }]) => Rest.plugin(retry, throttling),
  );
  return loading;
}

export interface ClientOptions {
  apiUrl: string;
  token: string | undefined;
  /** Longest wait for a rate limit to reset before giving up with FETCH_RATE_LIMITED, in seconds. */
  maxRateLimitWaitS: number;
  /** Retries of a 5xx or network failure (octokit's retry plugin). */
  retries: number;
  /** Stops waiting for a rate limit once aborted. */
  signal?: AbortSignal;
  /** The fetch every request goes through (guard.ts: limits, token rule, signal). */
  fetch: typeof fetch;
}

// Octokit logs to the console by default; a library must not print, and every failure reaches the caller as an error.
const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

export async function createClient(options: ClientOptions): Promise<GitHubClient> {
  const Client = await loadClient();
  // Waiting for a rate limit is worth it only when the reset is near and we have not already waited twice.
  const waitFor = (retryAfter: number, _options: unknown, _octokit: unknown, retryCount: number): boolean =>
    !options.signal?.aborted && retryCount < 2 && retryAfter <= options.maxRateLimitWaitS;
  return new Client({
    ...(options.token ? { auth: options.token } : {}),
    baseUrl: options.apiUrl,
    userAgent: `${TOOL_NAME}/${TOOL_VERSION}`,
    log: quiet,
    request: { fetch: options.fetch },
    retry: { retries: options.retries },
    throttle: { onRateLimit: waitFor, onSecondaryRateLimit: waitFor },
  });
}

interface RequestErrorLike {
  status: number;
  message: string;
  response?: { headers?: Record<string, string | number | undefined> };
}

function isRequestError(error: unknown): error is RequestErrorLike {
  return typeof error === 'object' && error !== null && typeof (error as { status?: unknown }).status === 'number';
}

/** The response headers of a failed request, lower-cased as octokit gives them. */
function headers(error: RequestErrorLike): Record<string, string | number | undefined> {
  return error.response?.headers ?? {};
}

export function isRateLimited(error: unknown): boolean {
  if (!isRequestError(error)) return false;
  const h = headers(error);
  return error.status === 429 || ((error.status === 403 || error.status === 429) && (String(h['x-ratelimit-remaining']) === '0' || h['retry-after'] !== undefined || /rate limit/i.test(error.message)));
}

/**
 * Turns a failed API request into a refusal with a reason code. `notFound`
 * names what a 404 means for this request (a run, an attempt, an artifact).
 */
export function providerFailure(error: unknown, what: string, notFound: { code: string; message: string }): FidelityError {
  if (error instanceof FidelityError) return error;
  if (isRequestError(error)) {
    const h = headers(error);
    if (isRateLimited(error)) {
      const reset = Number(h['x-ratelimit-reset']);
      const when = Number.isFinite(reset) && reset > 0 ? ` until ${new Date(reset * 1000).toISOString()}` : h['retry-after'] !== undefined ? ` for ${h['retry-after']} s` : '';
      return new FidelityError('FETCH_RATE_LIMITED', `the GitHub API refused ${what}: rate limit exceeded${when} (HTTP ${error.status}); try again later or with a token (GITHUB_TOKEN)`, { cause: error });
    }
    if (error.status === 404) return new FidelityError(notFound.code, notFound.message, { cause: error });
    if (error.status === 401 || error.status === 403) {
      return new FidelityError('FETCH_ACCESS_DENIED', `the GitHub API refused ${what} (HTTP ${error.status}: ${error.message}); set GITHUB_TOKEN or GH_TOKEN to a token that can read the repository's Actions`, { cause: error });
    }
    if (error.status === 410) return new FidelityError('FETCH_ARTIFACT_EXPIRED', `${what}: the provider answered 410 Gone (the artifact expired or was deleted)`, { cause: error });
    return new FidelityError('FETCH_PROVIDER_ERROR', `${what} failed: HTTP ${error.status}: ${error.message}`, { cause: error });
  }
  if ((error as Error)?.name === 'AbortError') return new FidelityError('ABORTED', 'the fetch was cancelled; nothing was written', { cause: error });
  return new FidelityError('FETCH_PROVIDER_ERROR', `${what} failed: ${(error as Error)?.message ?? String(error)}`, { cause: error });
}
