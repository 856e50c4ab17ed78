/**
 * The two gates for links in the pages. The renderer escapes an href like
 * any attribute, but escaping does not judge a URL: `javascript:` or
 * another host would still be a working link. Every href and src the pages
 * write from report data comes through one of these, or is not written.
 */

/**
 * An outside link, normalised, or null. Only
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
  return url.href;
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
  return segments.map((s) => encodeURIComponent(s)).join('/');
}
