/**
 * Judges one link found in a bundle page: a bundle file must be sealed, an
 * outside link must be https to a server the runs declare. A bundle opens
 * from file:// with no network, so anything else (http:, javascript:, other
 * hosts, root-absolute or protocol-relative paths) is refused. Inline
 * `data:image/{png,jpeg,gif,webp}` is allowed: it loads nothing.
 */
import path from 'node:path';
import { isDotSegment, serverUrlProblem } from '../schemas/server-url.js';

export type LinkVerdict =
  | { kind: 'fragment' }
  | { kind: 'file'; path: string }
  | { kind: 'external'; url: string }
  | { kind: 'inline' }
  | { kind: 'broken'; why: string }
  | { kind: 'refused'; why: string };

const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):/;
const INLINE_IMAGE = /^data:image\/(png|jpeg|gif|webp)[;,]/i;

/**
 * Origins (`https://host[:port]`) the pages may point at, from the runs' server_url; a server_url
 * verify would refuse (port 0, a dot segment: schemas/server-url.ts) allows nothing.
 */
export function allowedOrigins(serverUrls: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const u of serverUrls) {
    if (serverUrlProblem(u) !== null) continue;
    try {
      const url = new URL(u);
      if (url.protocol === 'https:') out.add(url.origin);
    } catch {
      // An unparsable server_url allows nothing.
    }
  }
  return out;
}

/**
 * Where the runs' servers live (`https://host[:port]/base/`, always ending in `/`): a server_url
 * with a path (a GitLab under `/gitlab`) allows links below that path only.
 */
export function allowedBases(serverUrls: readonly string[]): string[] {
  const out = new Set<string>();
  for (const u of serverUrls) {
    if (serverUrlProblem(u) !== null) continue;
    const url = new URL(u);
    out.add(`${url.origin}${url.pathname.replace(/\/+$/, '')}/`);
  }
  return [...out].sort();
}

/** An https link: to a declared origin, with no credentials and no dot segment, and below a declared base when `bases` are given. */
export function judgeExternal(value: string, origins: ReadonlySet<string>, bases?: readonly string[]): LinkVerdict {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { kind: 'broken', why: 'not a valid URL' };
  }
  if (url.protocol !== 'https:') return { kind: 'refused', why: `${url.protocol} link (only https to the runs' server is allowed)` };
  if (url.username !== '' || url.password !== '') return { kind: 'refused', why: 'the link carries credentials (user:password@)' };
  if (!origins.has(url.origin)) return { kind: 'refused', why: `host ${url.host} is not a server declared by the runs (${[...origins].join(', ') || 'none'})` };
  // The parser resolves "." and ".." away: judged on the link as written, so a link cannot climb out of the repository or the server's base path.
  const written = value.trim().replace(/^https:\/\/[^/?#]*/i, '').replace(/[?#].*$/s, '');
  if (written.split('/').some(isDotSegment)) return { kind: 'refused', why: 'the link has a "." or ".." path segment, which leaves the path it was built on' };
  if (bases && !bases.some((b) => url.href === b.slice(0, -1) || url.href.startsWith(b))) {
    return { kind: 'refused', why: `the link is outside the base path of every server declared by the runs (${bases.join(', ')})` };
  }
  return { kind: 'external', url: url.href };
}

/**
 * `fromFile` is the bundle-relative path of the page holding the link.
 * Returns the bundle-relative target for relative links.
 */
export function judgeLink(value: string, fromFile: string, origins: ReadonlySet<string>, bases?: readonly string[]): LinkVerdict {
  const v = value.trim();
  if (v === '' || v.startsWith('#')) return { kind: 'fragment' };
  if (v.startsWith('//') || v.startsWith('\\\\')) return { kind: 'refused', why: 'protocol-relative link leaves the bundle' };
  const scheme = SCHEME.exec(v)?.[1]?.toLowerCase();
  if (scheme) {
    if (scheme === 'data') return INLINE_IMAGE.test(v) ? { kind: 'inline' } : { kind: 'refused', why: 'data: URL other than an inline image' };
    if (scheme === 'https') return judgeExternal(v, origins, bases);
    return { kind: 'refused', why: `${scheme}: link` };
  }
  const bare = v.replace(/[?#].*$/s, '');
  if (bare === '') return { kind: 'fragment' };
  let decoded: string;
  try {
    decoded = decodeURIComponent(bare);
  } catch {
    return { kind: 'broken', why: 'malformed percent-encoding' };
  }
  if (decoded.startsWith('/') || decoded.includes('\\')) return { kind: 'broken', why: 'root-absolute or backslash path does not resolve inside the bundle from file://' };
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(fromFile), decoded));
  if (target === '..' || target.startsWith('../') || target === '.' || path.posix.isAbsolute(target)) {
    return { kind: 'broken', why: 'resolves outside the bundle' };
  }
  return { kind: 'file', path: target };
}
