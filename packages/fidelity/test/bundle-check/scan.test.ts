import { describe, expect, it } from 'vitest';
import { cssLinks } from '../../src/bundle-check/css.js';
import { judgePolicy } from '../../src/bundle-check/csp.js';
import { scanPage, srcsetUrls } from '../../src/bundle-check/scan.js';
import { HEAD } from './make-bundle.js';

const page = (body: string) => Buffer.from(`${HEAD}</head><body>${body}</body></html>`);
const values = (body: string) => scanPage(page(body), 'p.html').links.map((l) => `${l.attr}=${l.value}`);
const codes = (body: string) => scanPage(page(body), 'p.html').problems.map((p) => p.code);

describe('scanPage', () => {
  it('reads attributes as a browser does: any quoting, any case, entities decoded', () => {
    expect(values(`<A HREF="a.html">x</A><img src='b.png'><video poster=c.png src="media/x.mp4?a=1&amp;b=2"></video>`)).toEqual([
      'href=a.html',
      'src=b.png',
      'poster=c.png',
      'src=media/x.mp4?a=1&b=2',
    ]);
    expect(values('<a href="&#x2F;&#47;evil.example">x</a>')).toEqual(['href=//evil.example']);
  });

  it('sees what comments and raw text really hide, and nothing else', () => {
    expect(values(`<!-- <a href="hidden.html"> --><textarea><a href="text.html"></textarea><a title="a > b" href="seen.html" class="x">`)).toEqual(['href=seen.html']);
    // `<!-->` closes the comment at once; `--!>` closes it too.
    expect(values('<!--><img src="after-abrupt.png">')).toEqual(['src=after-abrupt.png']);
    expect(values('<!-- x --!><img src="after-bang.png">')).toEqual(['src=after-bang.png']);
    // In SVG, <style> is not raw text: markup inside it is markup.
    expect(values('<svg><style><img src="out.png"></style></svg>')).toEqual(['src=out.png']);
  });

  it('tells a link to click from a URL that loads', () => {
    const links = scanPage(page('<a href="https://h/x">a</a><img src="https://h/i.png"><svg><a href="y.html"><text>t</text></a></svg>'), 'p.html').links;
    expect(links.map((l) => [l.attr, l.use])).toEqual([
      ['href', 'navigate'],
      ['src', 'load'],
      ['href', 'navigate'],
    ]);
  });

  it('reads srcset, ping, object data, lazy data-* links, CSS and addresses in any attribute', () => {
    const body = `<img srcset="a.png 1x, b.png 2x"><a href="#t" ping="p1 p2">t</a><object data="d.svg"></object><div data-src="lazy.png" data-count="3"></div>
<div style="background: url('bg.png')"></div><style>@import "s.css"; .x { background: url(y.png) } /* url(no.png) */</style><p title="see http://h/x">x</p>`;
    expect(values(body)).toEqual([
      'srcset=a.png',
      'srcset=b.png',
      'href=#t',
      'ping=p1',
      'ping=p2',
      'data=d.svg',
      'data-src=lazy.png',
      'style url()=bg.png',
      '<style> @import=s.css',
      '<style> url()=y.png',
      'title=http://h/x',
    ]);
  });

  it('reports the line of each link and problem', () => {
    const scan = scanPage(page('<p>\n\n<a href="x">\n<meta http-equiv=refresh content=1>'), 'p.html');
    expect(scan.links.map((l) => l.line)).toEqual([3]);
    expect(scan.problems.map((p) => [p.code, p.where?.line])).toEqual([['BUNDLE_PAGE_REFRESH', 4]]);
  });

  it('walks into <template> content', () => {
    expect(values('<template><img src="t.png"></template>')).toEqual(['src=t.png']);
  });

  it('has a code for each thing a page must not do', () => {
    expect(codes('<iframe srcdoc="x"></iframe>')).toEqual(['BUNDLE_PAGE_SRCDOC']);
    expect(codes('<body onload="x()">')).toEqual(['BUNDLE_PAGE_SCRIPT']);
    expect(codes('<svg><script href="s.js"/></svg>')).toEqual(['BUNDLE_PAGE_SCRIPT']);
    expect(codes('<script type="application/json">{"a":1}</script>')).toEqual([]);
    expect(codes('<script type="application/ld+json">{}</script>')).toEqual(['BUNDLE_PAGE_SCRIPT']);
    expect(codes('<script type="importmap">{}</script>')).toEqual(['BUNDLE_PAGE_SCRIPT']);
    expect(scanPage(Buffer.from('<p>no head at all</p>'), 'p.html').problems.map((p) => p.code)).toEqual(['BUNDLE_PAGE_CSP']);
  });
});

describe('cssLinks', () => {
  const urls = (css: string) => cssLinks(css).map((l) => l.value);
  it('reads url() in both forms, escapes, @import and image functions', () => {
    expect(urls('a{b:url( "q.png" )}')).toEqual(['q.png']);
    expect(urls('a{b:URL(q.png)}')).toEqual(['q.png']);
    expect(urls('a{b:\\75 rl(e.png)}')).toEqual(['e.png']);
    expect(urls('a{b:u\\rl(f.png)}')).toEqual(['f.png']);
    expect(urls('a{b:url(\\68 ttp://h/x)}')).toEqual(['http://h/x']);
    expect(urls("@import 'i.css'; @IMPORT url(j.css);")).toEqual(['i.css', 'j.css']);
    expect(urls('a{b:image-set("1.png" 1x, url(2.png) 2x)}')).toEqual(['1.png', '2.png']);
    expect(urls('a{b:-webkit-image-set("1.png" 1x)} c{d:cross-fade("c.png", "d.png")}')).toEqual(['1.png', 'c.png', 'd.png']);
    expect(urls('@font-face{src:url(f.woff) format("woff")}')).toEqual(['f.woff']);
  });

  it('skips comments and ordinary strings, but not an address in any string', () => {
    expect(urls('/* url(no.png) */ a{font-family:"Noto Sans";content:"a/b"}')).toEqual([]);
    expect(urls('a{content:"//h/x"} b{--v:"https://h/y"}')).toEqual(['//h/x', 'https://h/y']);
  });

  it('splits srcset', () => {
    expect(srcsetUrls(' a.png 1x ,b.png')).toEqual(['a.png', 'b.png']);
    expect(srcsetUrls('data:image/png;base64,AAAA 1x, b.png 2x,c.png,, d.png,e.png')).toEqual(['data:image/png;base64,AAAA', 'b.png', 'c.png', 'd.png,e.png']);
    expect(srcsetUrls('a.png (1x, 2x), b.png')).toEqual(['a.png', 'b.png']);
  });
});

describe('judgePolicy', () => {
  const ok = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' file:; media-src 'self' file:; script-src 'none'; base-uri 'none'; form-action 'none'";
  it('accepts the pages\' policy and one that lists script hashes', () => {
    expect(judgePolicy(ok).ok).toBe(true);
    const hashed = judgePolicy(ok.replace("script-src 'none'", "script-src 'sha256-AAAA' 'sha256-BB_-'"));
    expect(hashed.ok).toBe(true);
    expect([...hashed.scriptHashes]).toEqual(['AAAA', 'BB/+']);
  });
  it.each([
    ["script-src 'self'", "script-src 'none'"],
    ["script-src 'sha256-AAAA' 'strict-dynamic'", "script-src 'none'"],
    ["script-src 'nonce-abc'", "script-src 'none'"],
    ["img-src 'none' https:", "img-src 'self' file:"],
    ['media-src *', "media-src 'self' file:"],
    ["base-uri 'self'", "base-uri 'none'"],
    ["form-action 'none'; form-action *", "form-action 'none'"],
    ["upgrade-insecure-requests; default-src 'none'", "default-src 'none'"],
  ])('refuses %s', (bad, replaced) => {
    expect(judgePolicy(ok.replace(replaced, bad)).ok).toBe(false);
  });
});
