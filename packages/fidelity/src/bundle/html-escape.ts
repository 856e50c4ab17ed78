/**
 * The one escape function of the report pages, and the two gates for links.
 * Everything from run data goes through `esc` (text and attribute values
 * alike: the five characters cover both contexts when attributes are quoted).
 */

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function esc(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (ch) => ENTITIES[ch]!);
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
