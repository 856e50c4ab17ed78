/**
 * verify-bundle reads every page as a browser does. Each hostile page here is
 * a real rendered page with one change, resealed, so the seal is consistent
 * and only the page rules can catch it. The codes asserted are the whole
 * result: one cause, one problem.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PAGE_SCRIPT, PAGE_SCRIPT_HASH } from '../../src/pages/script.js';
import { verifyBundle } from '../../src/bundle-check/verify.js';
import { makeRealBundle, realPages, sealDir } from './make-bundle.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-verify-pages-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;

function bundle(edit?: (html: string) => string): string {
  const dir = path.join(tmp, `b${n++}`);
  makeRealBundle(dir, edit);
  return dir;
}
const codes = async (dir: string) => (await verifyBundle(dir)).errors.map((e) => e.code);

const CSP_META = /<meta http-equiv="Content-Security-Policy" content="[^"]*">\n?/i;
const inBody = (markup: string) => (html: string) => html.replace('</main>', `${markup}</main>`);
const inHead = (markup: string) => (html: string) => html.replace('</head>', `${markup}</head>`);
const withPolicy = (policy: string) => (html: string) => html.replace(CSP_META, `<meta http-equiv="Content-Security-Policy" content="${policy}">\n`);
const withoutCsp = (html: string) => html.replace(CSP_META, '');
const policyOf = (html: string) => CSP_META.exec(html)![0].replace(/^.*content="([^"]*)".*$/s, '$1').replaceAll('&#39;', "'");
const hashOf = (body: string) => `'sha256-${createHash('sha256').update(body, 'utf8').digest('base64')}'`;
const EVIL = 'http://evil.example';
/** The CSP cases judge the policy alone: without its policy the page's own script would be refused too (and rightly). */
const withoutPageScript = (html: string) => html.replace(`<script>${PAGE_SCRIPT}</script>`, '');

describe('the real pages', () => {
  it('carry the page script, listed by its hash, and nothing else executable', () => {
    for (const page of Object.values(realPages())) {
      expect(page).toContain(`<script>${PAGE_SCRIPT}</script>`);
      expect(policyOf(page)).toContain(`script-src ${PAGE_SCRIPT_HASH};`);
      expect(hashOf(PAGE_SCRIPT)).toBe(PAGE_SCRIPT_HASH);
    }
  });
  it('pass as written, with the policy as the first element of <head>', async () => {
    const dir = bundle();
    const result = await verifyBundle(dir);
    expect(result.errors).toEqual([]);
    for (const page of Object.values(realPages())) {
      expect(page).toMatch(/^<!doctype html>\n<html lang="[a-zA-Z-]+">\n<head>\n<meta http-equiv="Content-Security-Policy" content="[^"]+">\n<meta charset="utf-8">/);
    }
  });
});

describe('vectors a browser follows (each passed verify-bundle before)', () => {
  const vectors: [string, (html: string) => string, string[]][] = [
    ['a meta refresh to http', inHead(`<meta http-equiv="refresh" content="0;url=${EVIL}/">`), ['BUNDLE_PAGE_REFRESH']],
    ['a meta refresh in the body, odd case', inBody(`<meta HTTP-EQUIV=" Refresh " content="5">`), ['BUNDLE_PAGE_REFRESH']],
    ['an image after an abruptly closed comment', inBody(`<!--><img src=${EVIL}/a.png>`), ['BUNDLE_LINK_EXTERNAL']],
    ['an image inside an SVG <style> (not raw text in SVG)', inBody(`<svg><style><img src=${EVIL}/a.png></style></svg>`), ['BUNDLE_LINK_EXTERNAL']],
    ['an entity-encoded url() in an SVG <style>', inBody(`<svg><style>svg{background:url(&#104;ttp://evil.example/a.png)}</style></svg>`), ['BUNDLE_LINK_EXTERNAL']],
    ['an iframe srcdoc', inBody(`<iframe srcdoc="&lt;img src=${EVIL}/a.png&gt;"></iframe>`), ['BUNDLE_PAGE_SRCDOC']],
    ['image-set() in a style attribute', inBody(`<div style="background-image:image-set('${EVIL}/a.png' 1x)"></div>`), ['BUNDLE_LINK_EXTERNAL']],
    ['-webkit-image-set() in a <style> element', inHead(`<style>p{background:-webkit-image-set("${EVIL}/a.png" 1x)}</style>`), ['BUNDLE_LINK_EXTERNAL']],
    ['no CSP and a script that fetches', (h) => inBody(`<script>fetch('${EVIL}/')</script>`)(withoutCsp(withoutPageScript(h))), ['BUNDLE_PAGE_CSP', 'BUNDLE_PAGE_SCRIPT']],
  ];
  it.each(vectors)('%s', async (_name, edit, expected) => {
    expect(await codes(bundle(edit))).toEqual(expected);
  });
});

describe('the Content-Security-Policy meta', () => {
  const base = policyOf(realPages().en);
  const cases: [string, (html: string) => string][] = [
    ['missing', withoutCsp],
    ['second in <head>', (h) => h.replace(CSP_META, '').replace('<meta charset="utf-8">\n', (m) => `${m}${CSP_META.exec(h)![0]}`)],
    ['only in the body', (h) => inBody(CSP_META.exec(h)![0])(withoutCsp(h))],
    ['default-src *', withPolicy(base.replace("default-src 'none'", 'default-src *').replaceAll("'", '&#39;'))],
    ["script-src 'unsafe-inline'", withPolicy(base.replace(/script-src [^;]+/, "script-src 'unsafe-inline'").replaceAll("'", '&#39;'))],
    ['img-src allows a host', withPolicy(base.replace("img-src 'self' file:", "img-src 'self' file: https://evil.example").replaceAll("'", '&#39;'))],
    ['without base-uri', withPolicy(base.replace("; base-uri 'none'", '').replaceAll("'", '&#39;'))],
    ['an unknown directive', withPolicy(`${base}; require-trusted-types-for 'script'`.replaceAll("'", '&#39;'))],
    ['report-only, not enforced', (h) => h.replace('http-equiv="Content-Security-Policy"', 'http-equiv="Content-Security-Policy-Report-Only"')],
  ];
  it.each(cases)('is refused when %s', async (_name, edit) => {
    expect(await codes(bundle((h) => edit(withoutPageScript(h))))).toEqual(['BUNDLE_PAGE_CSP']);
  });
  it('refuses the page script too when the policy that lists it is gone', async () => {
    expect(await codes(bundle(withoutCsp))).toEqual(['BUNDLE_PAGE_CSP', 'BUNDLE_PAGE_SCRIPT']);
  });
});

describe('scripts', () => {
  const base = policyOf(realPages().en);
  const body = "document.title = 'ok';";
  const hashed = (script: string) => (h: string) =>
    inBody(script)(withPolicy(base.replace(/script-src [^;]+/, `script-src ${PAGE_SCRIPT_HASH} ${hashOf(body)}`).replaceAll("'", '&#39;'))(h));

  it('a self-contained inline script listed by its sha256 in script-src passes', async () => {
    expect(await codes(bundle(hashed(`<script>${body}</script>`)))).toEqual([]);
  });
  it('an application/json data block passes without a hash', async () => {
    expect(await codes(bundle(inBody(`<script type="application/json" id="data">{"a":"${EVIL}"}</script>`)))).toEqual([]);
  });

  const refused: [string, (html: string) => string][] = [
    ['a script whose body is not the hashed one', hashed(`<script>${body} fetch('x')</script>`)],
    ['a script with src, even a bundle file', hashed(`<script src="report.json"></script>`)],
    ['a hashed body of a type that is not JavaScript (speculation rules)', hashed(`<script type="speculationrules">${body}</script>`)],
    ['a data block whose type is not exactly application/json', inBody(`<script type="Application/JSON">{}</script>`)],
    ['an inline script the policy does not list', inBody(`<script>${body}</script>`)],
    ['the page script with one byte changed', (h) => h.replace(PAGE_SCRIPT, PAGE_SCRIPT.replace("'use strict';", "'use strict' ;"))],
    ['a second copy of the page script in a data block of another type', inBody(`<script type="text/x-template">${PAGE_SCRIPT}</script>`)],
    ['an event handler attribute', inBody(`<img src="report.json" onerror="fetch('x')">`)],
    ['an SVG script', inBody(`<svg><script>${body}</script></svg>`)],
  ];
  it.each(refused)('refuses %s', async (_name, edit) => {
    expect(await codes(bundle(edit))).toEqual(['BUNDLE_PAGE_SCRIPT']);
  });
});

describe('every attribute and all CSS', () => {
  const external: [string, string][] = [
    ['an https image on the runs\' own server (links may point there, nothing may load from it)', '<img src="https://github.com/x.png">'],
    ['a stylesheet link', `<link rel="stylesheet" href="${EVIL}/s.css">`],
    ['dns-prefetch', '<link rel="dns-prefetch" href="//evil.example">'],
    ['a ping on a bundle link', `<a href="report.json" ping="${EVIL}/p">x</a>`],
    ['an SVG image href', `<svg><image href="${EVIL}/a.png"/></svg>`],
    ['an SVG xlink:href', `<svg><use xlink:href="${EVIL}/s.svg#x"/></svg>`],
    ['an SVG presentation attribute url()', `<svg><rect fill="url(${EVIL}/p.svg#g)"/></svg>`],
    ['an SVG animation that sets an href', `<svg><a href="#x"><set attributeName="href" to="${EVIL}/"/></a></svg>`],
    ['a URL in an unknown attribute', `<div data-next="${EVIL}/next"></div>`],
    ['a CSS escape that spells url(', `<style>p{background:\\75 rl(${EVIL}/a.png)}</style>`],
    ['@import with a string', `<style>@import '${EVIL}/s.css';</style>`],
    ['a font-face src', `<style>@font-face{font-family:x;src:url("${EVIL}/f.woff")}</style>`],
    ['srcset', `<img srcset="media/x.png 1x, ${EVIL}/b.png 2x">`],
    ['a link to the runs\' server carrying credentials', '<a href="https://user:pass@github.com/example-org/bench">x</a>'],
    ['an xmlns that is not a namespace', `<svg xmlns="${EVIL}/ns"></svg>`],
  ];
  it.each(external)('refuses %s', async (_name, markup) => {
    expect(await codes(bundle(inBody(markup)))).toContain('BUNDLE_LINK_EXTERNAL');
    expect(new Set(await codes(bundle(inBody(markup))))).toEqual(new Set(['BUNDLE_LINK_EXTERNAL', ...(markup.includes('media/x.png') ? ['BUNDLE_LINK_BROKEN'] : [])]));
  });

  it('refuses <base> and <noscript>', async () => {
    expect(await codes(bundle(inHead('<base href="sources/">')))).toEqual(['BUNDLE_PAGE_ELEMENT']);
    expect(await codes(bundle(inBody(`<noscript><img src="${EVIL}/a.png"></noscript>`)))).toEqual(['BUNDLE_PAGE_ELEMENT']);
  });

  it('still resolves bundle links in CSS and allows inline images', async () => {
    expect(await codes(bundle(inBody('<div style="background:url(report.json)"></div><img src="data:image/png;base64,AAAA" alt="">')))).toEqual([]);
    expect(await codes(bundle(inBody('<div style="background:url(missing.png)"></div>')))).toEqual(['BUNDLE_LINK_BROKEN']);
  });
});

describe('how a browser decodes the page', () => {
  it('refuses a page that is not UTF-8 or does not declare it first', async () => {
    expect(await codes(bundle((h) => h.replace('<meta charset="utf-8">', '<meta charset="iso-2022-jp">')))).toEqual(['BUNDLE_PAGE_ENCODING']);
    expect(await codes(bundle((h) => h.replace('<meta charset="utf-8">\n', '')))).toEqual(['BUNDLE_PAGE_ENCODING']);
    const dir = bundle();
    writeFileSync(path.join(dir, 'index.html'), Buffer.concat([readFileSync(path.join(dir, 'index.html')), Buffer.from([0xff, 0xfe])]));
    sealDir(dir);
    expect(await codes(dir)).toEqual(['BUNDLE_PAGE_ENCODING']);
  });

  it('refuses files a browser would open as active XML documents', async () => {
    const dir = bundle();
    writeFileSync(path.join(dir, 'chart.svg'), '<svg xmlns="http://www.w3.org/2000/svg"><script>fetch("x")</script></svg>');
    writeFileSync(path.join(dir, 'feed.rss'), '<html xmlns="http://www.w3.org/1999/xhtml"><script>fetch("x")</script></html>');
    sealDir(dir);
    expect(await codes(dir)).toEqual(['BUNDLE_PAGE_TYPE', 'BUNDLE_PAGE_TYPE']);
  });
});

describe('the root cause first, and nothing that follows from it', () => {
  it('one appended byte in report.json is one problem', async () => {
    const dir = bundle();
    appendFileSync(path.join(dir, 'report.json'), 'x');
    const result = await verifyBundle(dir);
    expect(result.errors.map((e) => [e.code, e.where?.file])).toEqual([['BUNDLE_FILE_CHANGED', 'report.json']]);
  });

  it('a truncated page is reported changed, not scanned', async () => {
    const dir = bundle();
    const page = readFileSync(path.join(dir, 'index.html'), 'utf8');
    writeFileSync(path.join(dir, 'index.html'), page.slice(0, 300));
    expect(await codes(dir)).toEqual(['BUNDLE_FILE_CHANGED']);
  });

  it('a deleted media file is missing, and the links to it are not reported again', async () => {
    const dir = bundle();
    const media = readFileSync(path.join(dir, 'SHA256SUMS'), 'utf8').split('\n').find((l) => l.includes('media/'))!.slice(66);
    unlinkSync(path.join(dir, media));
    expect(await codes(dir)).toEqual(['BUNDLE_FILE_MISSING']);
  });
});
