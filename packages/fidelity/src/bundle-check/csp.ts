/**
 * The Content-Security-Policy a bundle page must carry, judged by what it
 * allows rather than by its exact text, so the policy can grow (an inline
 * script allowed by its hash) without loosening the rule:
 *
 * - `default-src 'none'`, `base-uri 'none'` and `form-action 'none'` are
 *   required;
 * - scripts (`script-src`, `script-src-elem`, `script-src-attr`) may only be
 *   `'none'` or a list of `'sha256-…'` hashes;
 * - styles may be `'self'`, `file:`, `'unsafe-inline'` or hashes; images,
 *   media and fonts `'self'`, `file:` or `data:`; the other fetch
 *   directives `'self'` or `file:`. Nothing may name a host, `https:`, `*`,
 *   a nonce, `'unsafe-eval'` or `'strict-dynamic'`;
 * - `'none'` stands alone (beside other sources a browser ignores it);
 * - any other directive, or one given twice, is refused: a browser obeys
 *   the first of two, and a directive this list does not know cannot be
 *   judged.
 */

/** The judgement of one policy, and the script hashes it allows when it passes. */
export interface PolicyVerdict {
  ok: boolean;
  /** Why not, when not ok. */
  why?: string;
  /** The `'sha256-…'` digests (base64) inline scripts may have. */
  scriptHashes: Set<string>;
}

const HASH = /^'sha256-([A-Za-z0-9+/_-]+={0,2})'$/;
const SCRIPT = new Set(['script-src', 'script-src-elem', 'script-src-attr']);
const STYLE = new Set(['style-src', 'style-src-elem', 'style-src-attr']);
const MEDIA = new Set(['img-src', 'media-src', 'font-src']);
const OTHER_FETCH = new Set(['connect-src', 'frame-src', 'child-src', 'worker-src', 'manifest-src', 'object-src', 'fenced-frame-src']);
const NONE_ONLY = new Set(['default-src', 'base-uri', 'form-action']);
const REQUIRED = ['default-src', 'base-uri', 'form-action'];

function allowed(directive: string, source: string): boolean {
  const s = source.toLowerCase();
  if (SCRIPT.has(directive)) return HASH.test(source);
  if (STYLE.has(directive)) return s === "'self'" || s === 'file:' || s === "'unsafe-inline'" || HASH.test(source);
  if (MEDIA.has(directive)) return s === "'self'" || s === 'file:' || s === 'data:';
  if (OTHER_FETCH.has(directive)) return s === "'self'" || s === 'file:';
  return false;
}

/** Parses and judges one policy (the `content` of the page's CSP meta). */
export function judgePolicy(policy: string): PolicyVerdict {
  const scriptHashes = new Set<string>();
  const seen = new Map<string, string[]>();
  for (const part of policy.split(';')) {
    const tokens = part.trim().split(/[\t\n\f\r ]+/).filter((t) => t.length > 0);
    if (tokens.length === 0) continue;
    const name = tokens[0]!.toLowerCase();
    const sources = tokens.slice(1);
    if (seen.has(name)) return { ok: false, why: `${name} is given twice (a browser obeys only the first)`, scriptHashes };
    const known = SCRIPT.has(name) || STYLE.has(name) || MEDIA.has(name) || OTHER_FETCH.has(name) || NONE_ONLY.has(name);
    if (!known) return { ok: false, why: `directive ${name} is not one a bundle page may use`, scriptHashes };
    seen.set(name, sources);
    const none = sources.some((s) => s.toLowerCase() === "'none'");
    if (none) {
      if (sources.length !== 1) return { ok: false, why: `${name} mixes 'none' with other sources (a browser then ignores 'none')`, scriptHashes };
      continue;
    }
    if (NONE_ONLY.has(name)) return { ok: false, why: `${name} must be 'none'`, scriptHashes };
    if (sources.length === 0) return { ok: false, why: `${name} has no sources (write 'none')`, scriptHashes };
    const bad = sources.find((s) => !allowed(name, s));
    if (bad !== undefined) return { ok: false, why: `${name} allows ${bad}`, scriptHashes };
  }
  const missing = REQUIRED.filter((d) => !seen.has(d));
  if (missing.length > 0) return { ok: false, why: `the policy lacks ${missing.map((d) => `${d} 'none'`).join(', ')}`, scriptHashes };
  // An element script is judged by script-src-elem when the policy has it, else by script-src (else default-src 'none').
  for (const s of seen.get('script-src-elem') ?? seen.get('script-src') ?? []) {
    const m = HASH.exec(s);
    if (m) scriptHashes.add(m[1]!.replace(/-/g, '+').replace(/_/g, '/'));
  }
  return { ok: true, scriptHashes };
}
