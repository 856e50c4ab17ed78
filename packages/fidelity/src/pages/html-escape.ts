/**
 * The one escape function of the report pages, and the two gates for links.
 * Everything from run data goes through `esc` (text and attribute values
 * alike: the five characters cover both contexts when attributes are quoted),
 * which also isolates text whose direction could spill onto its neighbours.
 */

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function esc(value: string | number): string {
  const text = String(value);
  const escaped = text.replace(/[&<>"']/g, (ch) => ENTITIES[ch]!);
  return BIDI_SENSITIVE.test(text) ? isolate(escaped) : escaped;
}

/**
 * Right-to-left letters, bidi controls (embeddings, overrides, isolates,
 * marks) and zero-width characters. A value from a run holding one is shown
 * as an isolate, so an RLO in a gpu_model cannot reverse the rest of its
 * line, and Hebrew in a job name cannot pull the run id beside it over.
 */
const BIDI_SENSITIVE = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefe\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]|[\u{10800}-\u{10fff}\u{1e800}-\u{1efff}]/u;

/**
 * FSI ... PDI: the Unicode isolate, what <bdi> means, usable in text and in
 * attribute values alike. Everything opened inside (embeddings, overrides,
 * isolates) ends at the closing PDI; a PDI of the value with nothing of its
 * own to close would end the isolate early, so it is dropped (alone, it has
 * no effect on the value's own display).
 */
function isolate(text: string): string {
  let open = 0;
  let out = '';
  for (const ch of text) {
    if (ch === '\u2066' || ch === '\u2067' || ch === '\u2068') open += 1;
    else if (ch === '\u2069') {
      if (open === 0) continue;
      open -= 1;
    }
    out += ch;
  }
  return `\u2068${out}\u2069`;
}

/**
 * An outside link, normalised and escaped for an attribute, or null. Only
 * https to the run's own declared server passes (verify-bundle's rule):
 * javascript:, data:, plain http, other hosts and relative values do not.
 */
export function serverHref(value: string, serverUrl: string): string | null {
  let url: URL;
  let server: URL;
  try {
    url = new URL(value);
    server = new URL(serverUrl);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' || server.protocol !== 'https:' || url.origin !== server.origin) return null;
  return esc(url.href);
}

/**
 * A bundle-relative path as an href: forward slashes, no scheme, no absolute
 * path, no '.' or '..' segment; each segment percent-encoded. Null when the
 * path would leave the bundle or is not a plain relative path.
 */
export function bundleHref(value: string): string | null {
  if (value.length === 0 || value.startsWith('/') || value.includes('\\') || /^[a-z][a-z0-9+.-]*:/i.test(value)) return null;
  const segments = value.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..')) return null;
  return esc(segments.map((s) => encodeURIComponent(s)).join('/'));
}
