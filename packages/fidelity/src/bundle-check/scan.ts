/**
 * Reads a bundle page as a browser does, with parse5 (an implementation of
 * the WHATWG parsing rules browsers follow), and reports what the page would
 * run, load or navigate to. A hand-written scanner is always one trick behind
 * a browser's tokenizer (`<!-->`, `<svg><style>`, entities in SVG text); the
 * tree a real parser builds is what the reader gets.
 *
 * The rules (docs/report-pages.md, "What verify-bundle checks"):
 * - the page is UTF-8 and begins `<!doctype html><html lang=…><head>`, then
 *   the Content-Security-Policy meta as the first element of `<head>`, then
 *   `<meta charset="utf-8">`, all in its first 1024 bytes, so every browser
 *   decodes it the same way and meets the policy before anything else;
 * - the policy is as strict as `judgePolicy` demands;
 * - every `<script>` is either a data block (`type` exactly
 *   `application/json`, no `src`) or an inline script whose SHA-256 the
 *   policy lists; no event-handler (`on…`) attribute;
 * - no `<meta http-equiv=refresh>`, no `srcdoc`, no `<base>`, no `<noscript>`;
 * - every URL in an attribute or in CSS is returned as a link for the caller
 *   to resolve; an https link to the runs' server is only acceptable where a
 *   reader clicks it (`<a href>`, `<area href>`), never where it loads.
 */
import { createHash } from 'node:crypto';
import { parse } from 'parse5';
import type { DefaultTreeAdapterTypes } from 'parse5';
import type { Problem } from '../errors.js';
import { cssLinks } from './css.js';
import { judgePolicy } from './csp.js';

type Node = DefaultTreeAdapterTypes.Node;
type Element = DefaultTreeAdapterTypes.Element;

/** How a browser would use a URL found in a page. */
export type LinkUse = 'navigate' | 'load' | 'text';

export interface FoundLink {
  /** The attribute (`href`, `style`, `css` for a style element …) the value came from. */
  attr: string;
  value: string;
  line: number;
  /**
   * `navigate`: a link the reader clicks; `load`: fetched by the page (or
   * by a click, like `ping`) without the reader choosing the destination;
   * `text`: an address written in an attribute that is not a URL attribute,
   * which a script or an animation could still turn into one.
   */
  use: LinkUse;
}

/** What one page breaks (its rule problems) and the URLs it holds, for the caller to resolve. */
export interface PageScan {
  problems: Problem[];
  links: FoundLink[];
}

const HTML_NS = 'http://www.w3.org/1999/xhtml';
const SVG_NS = 'http://www.w3.org/2000/svg';
const MATHML_NS = 'http://www.w3.org/1998/Math/MathML';
const NAMESPACES = new Set([HTML_NS, SVG_NS, MATHML_NS, 'http://www.w3.org/1999/xlink', 'http://www.w3.org/XML/1998/namespace', 'http://www.w3.org/2000/xmlns/']);

/** Attributes whose whole value is one URL. */
const URL_ATTRS = new Set([
  'href', 'xlink:href', 'src', 'poster', 'data', 'action', 'formaction', 'background', 'cite', 'longdesc', 'manifest', 'icon',
  'codebase', 'classid', 'profile', 'lowsrc', 'dynsrc', 'usemap', 'itemtype', 'attributionsrc',
]);
/** Attributes holding several URLs. */
const SRCSET_ATTRS = new Set(['srcset', 'imagesrcset']);
const SPACED_ATTRS = new Set(['ping', 'archive']);
/** `data-*` attributes named like a lazy-loaded bundle file. */
const DATA_LINK = /^data-[a-z0-9_.-]*-?(src|href|url|file|media|poster)$/;
/**
 * An address's core anywhere in an attribute that is not a URL attribute: `//…`, or a `javascript:` /
 * `vbscript:` one. The scheme before `//` is found by {@link addressesIn} walking back, not by the
 * pattern: a pattern that starts with the scheme retries it at every letter of a long word (a 100 kB
 * id), which is quadratic.
 */
const ADDRESS_CORE = /\/\/[^\s"'<>`]*|\b(?:javascript|vbscript):[^\s"'<>`]*/g;
const SCHEME_CHAR = /[a-zA-Z0-9+.-]/;
const LETTER = /[a-zA-Z]/;

/**
 * Every address in `text`, left to right, as `(?:[a-zA-Z][a-zA-Z0-9+.-]*:)?//[^\s"'<>\`]*` or
 * `\bjavascript:…` / `\bvbscript:…` would match them, in linear time: a `//` right after a colon
 * takes the scheme before it (the leftmost letter of the run of scheme characters before the colon).
 */
export function addressesIn(text: string): string[] {
  const out: string[] = [];
  let end = 0;
  for (const m of text.matchAll(ADDRESS_CORE)) {
    let start = m.index;
    if (start < end) continue;
    if (m[0].startsWith('//') && start > 0 && text[start - 1] === ':') {
      let q = start - 1;
      while (q > end && SCHEME_CHAR.test(text[q - 1]!)) q--;
      while (q < start - 1 && !LETTER.test(text[q]!)) q++;
      if (q < start - 1) start = q;
    }
    out.push(text.slice(start, m.index + m[0].length));
    end = m.index + m[0].length;
  }
  return out;
}
/** What the first 1024 bytes must be (see the file comment). */
const PROLOGUE =
  /^\uFEFF?[\t\n\f\r ]*<!doctype html>[\t\n\f\r ]*<html(?:[\t\n\f\r ]+lang="[A-Za-z0-9-]*")?>[\t\n\f\r ]*<head>[\t\n\f\r ]*<meta[\t\n\f\r ]+http-equiv="Content-Security-Policy"[\t\n\f\r ]+content="[^"<>]*">[\t\n\f\r ]*<meta[\t\n\f\r ]+charset="utf-8">/i;
const PROLOGUE_BYTES = 1024;
/**
 * Extensions a browser opens from file:// as a document that can run script,
 * other than .html/.htm (parsed here). Chromium maps them by extension; the
 * XML ones run an XHTML <script> (.xml, .xsd, .rss, .atom, .xbl were seen to).
 */
export const ACTIVE_DOCUMENT = /\.(svg|svgz|xhtml|xht|xml|xsd|xsl|xslt|xbl|xul|rss|atom|rdf|mht|mhtml|shtml|shtm)$/i;

function attrName(a: { name: string; prefix?: string }): string {
  return a.prefix ? `${a.prefix}:${a.name}` : a.name;
}
function attr(el: Element, name: string): string | undefined {
  return el.attrs.find((a) => attrName(a) === name)?.value;
}
function isElement(node: Node): node is Element {
  return 'tagName' in node;
}
function textOf(el: Element): string {
  return el.childNodes.map((c) => (c.nodeName === '#text' ? (c as DefaultTreeAdapterTypes.TextNode).value : '')).join('');
}
/**
 * The URLs of a srcset, split as the HTML standard's srcset parser splits
 * them: a URL is a run of non-whitespace (so `data:` URLs keep their
 * commas), trailing commas end it, and its descriptors run to the next comma
 * outside parentheses.
 */
export function srcsetUrls(value: string): string[] {
  const out: string[] = [];
  const ws = /[\t\n\f\r ]/;
  let i = 0;
  for (;;) {
    while (i < value.length && (ws.test(value[i]!) || value[i] === ',')) i++;
    if (i >= value.length) return out;
    const start = i;
    while (i < value.length && !ws.test(value[i]!)) i++;
    let url = value.slice(start, i);
    if (url.endsWith(',')) url = url.replace(/,+$/, '');
    else {
      let inParens = false;
      for (; i < value.length; i++) {
        const c = value[i];
        if (c === '(') inParens = true;
        else if (c === ')') inParens = false;
        else if (c === ',' && !inParens) {
          i++;
          break;
        }
      }
    }
    if (url.length > 0) out.push(url);
  }
}

function headOf(doc: DefaultTreeAdapterTypes.Document): Element | undefined {
  const html = doc.childNodes.find((n): n is Element => isElement(n) && n.tagName === 'html');
  return html?.childNodes.find((n): n is Element => isElement(n) && n.tagName === 'head');
}

/** Checks one page's bytes against the page rules; `page` is its bundle-relative path, used in messages. */
export function scanPage(bytes: Buffer, page: string): PageScan {
  const problems: Problem[] = [];
  const links: FoundLink[] = [];
  const problem = (code: string, message: string, line?: number): void => {
    problems.push({ code, message: `${page}: ${message}`, where: line === undefined ? { file: page } : { file: page, line } });
  };

  let html: string;
  try {
    html = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    problem('BUNDLE_PAGE_ENCODING', 'is not valid UTF-8, so a browser would read other characters than this check does');
    return { problems, links };
  }
  const doc = parse(html, { sourceCodeLocationInfo: true, scriptingEnabled: true });

  // The policy: the first element of <head>, strict enough.
  let scriptHashes = new Set<string>();
  const head = headOf(doc);
  const first = head?.childNodes.find(isElement);
  const cspLine = first?.sourceCodeLocation?.startLine;
  if (!first || first.tagName !== 'meta' || attr(first, 'http-equiv')?.trim().toLowerCase() !== 'content-security-policy' || attr(first, 'content') === undefined) {
    problem('BUNDLE_PAGE_CSP', 'the first element of <head> is not <meta http-equiv="Content-Security-Policy" content="…">', cspLine);
  } else {
    const verdict = judgePolicy(attr(first, 'content')!);
    if (!verdict.ok) problem('BUNDLE_PAGE_CSP', `its Content-Security-Policy is too weak: ${verdict.why}`, cspLine);
    else {
      scriptHashes = verdict.scriptHashes;
      const prologue = PROLOGUE.exec(html);
      if (!prologue || Buffer.byteLength(prologue[0]) > PROLOGUE_BYTES) {
        problem(
          'BUNDLE_PAGE_ENCODING',
          `does not begin <!doctype html><html lang="…"><head><meta http-equiv="Content-Security-Policy" …><meta charset="utf-8"> within its first ${PROLOGUE_BYTES} bytes, so a browser may decode it otherwise`,
        );
      }
    }
  }

  const visit = (node: Node): void => {
    if (isElement(node)) element(node);
    const children = node.nodeName === 'template' ? (node as DefaultTreeAdapterTypes.Template).content.childNodes : 'childNodes' in node ? node.childNodes : [];
    for (const child of children) visit(child);
  };

  const element = (el: Element): void => {
    const loc = el.sourceCodeLocation;
    const line = loc?.startLine ?? 0;
    const lineOf = (name: string): number => loc?.attrs?.[name]?.startLine ?? line;
    const tag = el.tagName;
    const ns = el.namespaceURI as string;

    if (tag === 'base' && ns === HTML_NS) {
      problem('BUNDLE_PAGE_ELEMENT', '<base> changes where every relative link points', line);
      return;
    }
    if (tag === 'noscript') {
      problem('BUNDLE_PAGE_ELEMENT', '<noscript> is read as markup when scripting is off and as text when it is on', line);
      return;
    }
    if (tag === 'meta' && attr(el, 'http-equiv')?.trim().toLowerCase() === 'refresh') {
      problem('BUNDLE_PAGE_REFRESH', '<meta http-equiv="refresh"> navigates without the reader', line);
      return;
    }
    if (tag === 'script') script(el, line);
    if (tag === 'style') for (const c of cssLinks(textOf(el))) links.push({ attr: `<style> ${c.via}`, value: c.value, line, use: 'load' });

    // A policy is judged by judgePolicy (the first) or can only narrow what the first allows (any later one).
    const policy = tag === 'meta' && attr(el, 'http-equiv')?.trim().toLowerCase() === 'content-security-policy';
    const clickable = (tag === 'a' && (ns === HTML_NS || ns === SVG_NS)) || (tag === 'area' && ns === HTML_NS);
    for (const a of el.attrs) {
      const name = attrName(a).toLowerCase();
      const at = lineOf(name);
      const value = a.value;
      if (name.startsWith('on')) {
        problem('BUNDLE_PAGE_SCRIPT', `<${tag} ${name}=…> is an inline event handler (a script no hash can allow)`, at);
        continue;
      }
      if (name === 'srcdoc') {
        problem('BUNDLE_PAGE_SRCDOC', `<${tag} srcdoc> holds a whole page this check does not vouch for`, at);
        continue;
      }
      if (name === 'xmlns' || name.startsWith('xmlns:')) {
        if (!NAMESPACES.has(value)) links.push({ attr: name, value, line: at, use: 'load' });
        continue;
      }
      if (policy && name === 'content') continue;
      if (tag === 'script' && (name === 'src' || name === 'href' || name === 'xlink:href')) continue;
      if (URL_ATTRS.has(name) || DATA_LINK.test(name)) {
        links.push({ attr: name, value: value.trim(), line: at, use: clickable && (name === 'href' || name === 'xlink:href') ? 'navigate' : 'load' });
      } else if (SRCSET_ATTRS.has(name)) {
        for (const u of srcsetUrls(value)) links.push({ attr: name, value: u, line: at, use: 'load' });
      } else if (SPACED_ATTRS.has(name)) {
        for (const u of value.split(/[\s,]+/).filter((x) => x.length > 0)) links.push({ attr: name, value: u, line: at, use: 'load' });
      } else if (name === 'style') {
        for (const c of cssLinks(value)) links.push({ attr: `style ${c.via}`, value: c.value, line: at, use: 'load' });
      } else {
        // SVG presentation attributes (fill, filter, mask …) take url(); animations can set any attribute.
        if (value.includes('(') || value.includes('\\')) for (const c of cssLinks(value)) links.push({ attr: `${name} ${c.via}`, value: c.value, line: at, use: 'load' });
        for (const address of addressesIn(value)) links.push({ attr: name, value: address, line: at, use: 'text' });
      }
    }
  };

  const script = (el: Element, line: number): void => {
    const src = attr(el, 'src') ?? attr(el, 'href') ?? attr(el, 'xlink:href');
    if (src !== undefined) {
      problem('BUNDLE_PAGE_SCRIPT', `<script> loads ${JSON.stringify(src.slice(0, 120))}: only inline scripts listed by hash are allowed`, line);
      return;
    }
    const type = attr(el, 'type');
    if (type === 'application/json') return;
    const body = textOf(el);
    const javascript = type === undefined || type === '' || type.trim().toLowerCase() === 'text/javascript' || type.trim().toLowerCase() === 'module';
    if (!javascript) {
      problem('BUNDLE_PAGE_SCRIPT', `<script type="${type}"> is neither JavaScript listed by hash nor a data block (type exactly application/json)`, line);
      return;
    }
    const digest = createHash('sha256').update(body, 'utf8').digest('base64');
    if (!scriptHashes.has(digest)) {
      problem('BUNDLE_PAGE_SCRIPT', `an inline <script> (sha256-${digest}) is not listed in the policy's script-src`, line);
    }
  };

  visit(doc);
  return { problems, links };
}

/** The URLs a stylesheet file loads. */
export function scanCss(css: string): FoundLink[] {
  return cssLinks(css).map((c) => ({ attr: `css ${c.via}`, value: c.value, line: 0, use: 'load' as const }));
}
