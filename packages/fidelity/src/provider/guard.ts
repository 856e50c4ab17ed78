/**
 * Every HTTP request fetch makes goes through one guard, because the
 * provider's answers are hostile input until checked:
 * - the token (an `authorization` header) is only ever sent to the API's own
 *   origin; any other origin gets the request without it;
 * - three time limits: `connectMs` until a response's headers arrive, `idleMs`
 *   between two pieces of a body, `totalMs` for the whole fetch (an API that
 *   never answers, one that trickles a byte now and then, a transfer that
 *   stalls). The first limit hit stops the whole fetch, not one request, so
 *   an answer octokit reads half of is never taken as whole;
 * - the caller's signal stops every pending request at once.
 * failure() then says what stopped it: ABORTED or FETCH_TIMEOUT.
 */
import { FidelityError } from '../errors.js';

/** Time limits and the bound on listing pages (FetchRunOptions.limits). */
export interface FetchLimits {
  /** Until a response's headers have arrived, per request (default 30 s). */
  connectMs?: number;
  /** Between two pieces of a response body (default 60 s). */
  idleMs?: number;
  /** The whole fetch, every request and the download together (default 1 h). */
  totalMs?: number;
  /** Pages of the artifact list followed at most (default 100: 10 000 artifacts). */
  maxPages?: number;
}

/** The limits when none are given. */
export const DEFAULT_FETCH_LIMITS: Readonly<Required<FetchLimits>> = Object.freeze({ connectMs: 30_000, idleMs: 60_000, totalMs: 3_600_000, maxPages: 100 });

export interface RequestGuard {
  /** A fetch with the limits, the token rule and the signal applied: give it to octokit, and use it for the download. */
  fetch: typeof fetch;
  /** Aborted when the caller's signal aborts or a limit is hit. */
  signal: AbortSignal;
  /** The refusal that stopped the fetch (ABORTED, FETCH_TIMEOUT), or null when nothing did. */
  failure(): FidelityError | null;
  /** Stops the total timer. */
  close(): void;
}

function urlOf(input: Parameters<typeof fetch>[0]): URL {
  return new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
}

export function createGuard(apiOrigin: string, limits: Required<FetchLimits>, outer?: AbortSignal): RequestGuard {
  const operation = new AbortController();
  let hit: { limit: 'connect' | 'idle' | 'total'; ms: number; url: string } | null = null;
  const stop = (limit: 'connect' | 'idle' | 'total', ms: number, url: string): void => {
    if (operation.signal.aborted) return;
    hit = { limit, ms, url };
    operation.abort(new Error(`no ${limit === 'connect' ? 'answer' : limit === 'idle' ? 'data' : 'end'} within ${ms} ms`));
  };
  const onOuter = (): void => operation.abort(outer?.reason);
  if (outer?.aborted) onOuter();
  else outer?.addEventListener('abort', onOuter, { once: true });
  const total = setTimeout(() => stop('total', limits.totalMs, ''), limits.totalMs);

  const guarded: typeof fetch = async (input, init) => {
    const url = urlOf(input);
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    // The token is the API's: a URL on any other origin (a storage host, a hostile Link) never sees it.
    if (url.origin !== apiOrigin) headers.delete('authorization');
    // An AbortError (no other reason): octokit passes it on as it is, where it would retry any other failure.
    if (operation.signal.aborted) throw new DOMException('the fetch was stopped', 'AbortError');
    const request = new AbortController();
    const forward = (): void => request.abort();
    operation.signal.addEventListener('abort', forward, { once: true });
    const connect = setTimeout(() => stop('connect', limits.connectMs, url.href), limits.connectMs);
    let response: Response;
    try {
      response = await fetch(url, { ...init, headers, signal: request.signal });
    } catch (error) {
      operation.signal.removeEventListener('abort', forward);
      throw error;
    } finally {
      clearTimeout(connect);
    }
    // Statuses that have no body cannot be rebuilt with one.
    if (!response.body || [101, 204, 205, 304].includes(response.status)) {
      operation.signal.removeEventListener('abort', forward);
      return response;
    }
    // The body again, with the idle limit between pieces; it ends with the operation.
    const reader = response.body.getReader();
    let idle: NodeJS.Timeout | undefined;
    const arm = (): void => {
      clearTimeout(idle);
      idle = setTimeout(() => stop('idle', limits.idleMs, url.href), limits.idleMs);
    };
    const done = (): void => {
      clearTimeout(idle);
      operation.signal.removeEventListener('abort', forward);
    };
    arm();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done: finished, value } = await reader.read();
          if (finished) {
            done();
            controller.close();
            return;
          }
          arm();
          controller.enqueue(value);
        } catch (error) {
          done();
          controller.error(error);
        }
      },
      async cancel(reason) {
        done();
        await reader.cancel(reason).catch(() => undefined);
      },
    });
    const wrapped = new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    // octokit reads the URL a response came from.
    Object.defineProperty(wrapped, 'url', { value: response.url });
    return wrapped;
  };

  return {
    fetch: guarded,
    signal: operation.signal,
    failure() {
      if (outer?.aborted) return new FidelityError('ABORTED', 'the fetch was cancelled; nothing was written');
      if (hit) {
        const what = hit.limit === 'connect' ? `no answer came within ${hit.ms} ms` : hit.limit === 'idle' ? `the answer stalled for ${hit.ms} ms (idle limit)` : `the fetch took longer than its ${hit.ms} ms total limit`;
        return new FidelityError('FETCH_TIMEOUT', `${what}${hit.url ? ` (${hit.url.replace(/\?.*$/, '')})` : ''}; nothing was written`);
      }
      return null;
    },
    close() {
      clearTimeout(total);
      outer?.removeEventListener('abort', onOuter);
    },
  };
}

/** Checks and completes the limits a caller gave. */
export function resolveFetchLimits(given: FetchLimits | undefined): Required<FetchLimits> {
  const limits = { ...DEFAULT_FETCH_LIMITS };
  for (const key of Object.keys(DEFAULT_FETCH_LIMITS) as (keyof FetchLimits)[]) {
    const v = given?.[key];
    if (v === undefined) continue;
    if (!Number.isSafeInteger(v) || v < 1 || (key !== 'maxPages' && v > 2_147_483_647)) {
      throw new FidelityError('INVALID_ARGUMENT', `Expected a positive whole number for limits.${key} but received ${String(v)}`);
    }
    limits[key] = v;
  }
  return limits;
}
