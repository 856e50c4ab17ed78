/**
 * ci.json `server_url`: the CI server every run link is built on, and the
 * only origin the report pages may link to. It must be exactly
 * `https://host[:port][/path]`:
 * - https, because verify-bundle accepts no other outside link (an http
 *   server would verify here and fail there);
 * - no `user:password@`, which would be copied into every page;
 * - no `?query` or `#fragment`, which would end up in the middle of every
 *   run link (`{server_url}/{repository}/actions/runs/…`) and break it;
 * - no backslash, whitespace or control character, which URL parsers
 *   silently rewrite;
 * - no port 0 and no `:` without a port, no `.` or `..` path segment
 *   (plain or percent-encoded), which the parser resolves away.
 */
import { z } from 'zod';

/** `.` or `..`, plain or percent-encoded (`%2e`, `.%2E`): a segment a URL parser resolves away. */
export function isDotSegment(segment: string): boolean {
  const plain = segment.replace(/%2e/gi, '.');
  return plain === '.' || plain === '..';
}

/** Why `value` is not an acceptable server_url, or null when it is. */
export function serverUrlProblem(value: string): string | null {
  if (!/^https:\/\//i.test(value)) return 'expected https://host[:port][/path] (only https is accepted)';
  if (/[\u0000-\u0020\u007f\\]/.test(value)) return 'contains whitespace, a control character or a backslash';
  if (value.includes('?') || value.includes('#')) return 'has a query or fragment (run links are built by appending a path to it)';
  const authority = value.slice('https://'.length).split('/')[0]!;
  if (authority === '') return 'has no host';
  if (authority.includes('@')) return 'carries credentials (user:password@), which would be copied into every page';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not a valid URL';
  }
  if (url.hostname === '') return 'has no host';
  // Port 0 is no port a server listens on; "host:" with no digits is a typo the parser hides.
  if (url.port === '0' || /:0+$/.test(authority)) return 'names port 0, which no server listens on';
  if (authority.endsWith(':')) return 'has a ":" but no port';
  // A dot segment is resolved away by the parser: the link would not be the path written.
  if (value.slice('https://'.length + authority.length).split('/').some(isDotSegment)) {
    return 'has a "." or ".." path segment, which a URL resolves away';
  }
  return null;
}

/** The zod type of ci.json `server_url`. */
export const ServerUrl = z.string().superRefine((value, ctx) => {
  const why = serverUrlProblem(value);
  if (why !== null) ctx.addIssue({ code: 'custom', message: `server_url ${why}` });
});
