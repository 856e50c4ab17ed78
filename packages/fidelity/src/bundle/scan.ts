/**
 * Finds every link a page could follow or load, without a DOM: a small
 * tag/attribute tokenizer that knows comments, raw-text elements (script,
 * style, textarea, title) and entity escapes. It errs on the side of seeing
 * too much: a value it reports that is not really a link can only make
 * verify-bundle stricter.
 *
 * Scanned: href, src, poster, srcset, data (object), action, formaction,
 * background, cite, longdesc, manifest, icon, xlink:href; `data-*` attributes
 * whose name ends in -src, -href, -url, -file, -media or -poster (the
 * convention for lazy-loaded bundle files); CSS url(...) and @import in style
 * attributes, <style> elements and .css files.
 */

export interface FoundLink {
  /** The attribute (or `css`) the value came from. */
  attr: string;
  value: string;
  line: number;
}

const LINK_ATTRS = new Set(['href', 'src', 'poster', 'srcset', 'imagesrcset', 'data', 'action', 'formaction', 'background', 'cite', 'longdesc', 'manifest', 'icon', 'xlink:href']);
const DATA_LINK = /^data-[a-z0-9_.-]*-?(src|href|url|file|media|poster)$/;
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title']);

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0', colon: ':', sol: '/', tab: '\t', newline: '\n', period: '.', num: '#', quest: '?', equals: '=' };

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);?/gi, (whole, body: string) => {
    if (body[0] === '#') {
      const code = body[1] === 'x' || body[1] === 'X' ? Number.parseInt(body.slice(2), 16) : Number.parseInt(body.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[body.toLowerCase()] ?? whole;
  });
}

/** 1-based line of each offset, by binary search over the line starts (pages can be megabytes). */
function lineCounter(text: string): (index: number) => number {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (index) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= index) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

const TAG_NAME = /<([a-zA-Z][a-zA-Z0-9:-]*)/y;
const ATTRIBUTE = /[\s/]*([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/y;

/** url(...) and @import "..." references in a piece of CSS. */
export function cssLinks(css: string): string[] {
  const out: string[] = [];
  const clean = css.replace(/\/\*[\s\S]*?\*\//g, '');
  for (const m of clean.matchAll(/url\(\s*(?:"([^"]*)"|'([^']*)'|([^)\s]*))\s*\)/gi)) out.push(m[1] ?? m[2] ?? m[3] ?? '');
  for (const m of clean.matchAll(/@import\s+(?:"([^"]*)"|'([^']*)')/gi)) out.push(m[1] ?? m[2] ?? '');
  return out;
}

/** The URLs of a srcset: comma-separated candidates, each a URL then an optional descriptor. */
export function srcsetUrls(value: string): string[] {
  return value
    .split(',')
    .map((part) => part.trim().split(/\s+/)[0] ?? '')
    .filter((u) => u.length > 0);
}

function isLinkAttr(name: string): boolean {
  return LINK_ATTRS.has(name) || DATA_LINK.test(name);
}

export function scanHtml(html: string): FoundLink[] {
  const found: FoundLink[] = [];
  const lineAt = lineCounter(html);
  const push = (attr: string, value: string, index: number): void => {
    found.push({ attr, value, line: lineAt(index) });
  };
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt < 0) break;
    if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4);
      i = end < 0 ? html.length : end + 3;
      continue;
    }
    if (html.startsWith('<!', lt) || html.startsWith('<?', lt)) {
      const end = html.indexOf('>', lt + 2);
      i = end < 0 ? html.length : end + 1;
      continue;
    }
    TAG_NAME.lastIndex = lt;
    const nameMatch = TAG_NAME.exec(html);
    if (!nameMatch) {
      i = lt + 1;
      continue;
    }
    const tag = nameMatch[1]!.toLowerCase();
    let j = lt + nameMatch[0].length;
    // Attributes until the closing '>' (quoted values may contain '>').
    while (j < html.length && html[j] !== '>') {
      ATTRIBUTE.lastIndex = j;
      const attr = ATTRIBUTE.exec(html);
      if (!attr || attr[0].length === 0) {
        j++;
        continue;
      }
      const name = attr[1]!.toLowerCase();
      const raw = attr[2] ?? attr[3] ?? attr[4];
      if (raw !== undefined) {
        const value = decodeEntities(raw);
        if (name === 'srcset' || name === 'imagesrcset') for (const u of srcsetUrls(value)) push(name, u, j);
        else if (name === 'style') for (const u of cssLinks(value)) push('css', u, j);
        else if (isLinkAttr(name)) push(name, value.trim(), j);
      }
      j += attr[0].length;
    }
    i = j + 1;
    if (RAW_TEXT.has(tag)) {
      const closer = new RegExp(`</${tag}`, 'gi');
      closer.lastIndex = i;
      const close = closer.exec(html)?.index ?? -1;
      const body = html.slice(i, close < 0 ? html.length : close);
      if (tag === 'style') for (const u of cssLinks(body)) push('css', u, i);
      i = close < 0 ? html.length : close;
    }
  }
  return found;
}

export function scanCss(css: string): FoundLink[] {
  return cssLinks(css).map((value) => ({ attr: 'css', value, line: 0 }));
}
