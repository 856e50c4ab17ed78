import { describe, expect, it } from 'vitest';
import { cssLinks, decodeEntities, scanHtml, srcsetUrls } from '../../src/bundle/scan.js';

const values = (html: string) => scanHtml(html).map((l) => `${l.attr}=${l.value}`);

describe('scanHtml', () => {
  it('reads double-, single- and un-quoted attributes, any case, and decodes entities', () => {
    expect(values(`<A HREF="a.html">x</A><img src='b.png'><video poster=c.png src="media/x.mp4?a=1&amp;b=2">`)).toEqual([
      'href=a.html',
      'src=b.png',
      'poster=c.png',
      'src=media/x.mp4?a=1&b=2',
    ]);
    expect(decodeEntities('&#x2F;&#47;&lt;&unknown;')).toBe('//<&unknown;');
  });

  it('ignores comments, script bodies and non-link attributes, but sees > inside quotes', () => {
    const html = `<!-- <a href="hidden.html"> --><script>var s = '<a href="js.html">';</script><a title="a > b" href="seen.html" class="x">`;
    expect(values(html)).toEqual(['href=seen.html']);
  });

  it('reads srcset candidates, object data, lazy data-* links and CSS url()/@import', () => {
    const html = `<img srcset="a.png 1x, b.png 2x"><object data="d.svg"></object><div data-src="lazy.png" data-count="3"></div>
<div style="background: url('bg.png')"></div><style>@import "s.css"; .x { background: url(y.png) } /* url(no.png) */</style>`;
    expect(values(html)).toEqual(['srcset=a.png', 'srcset=b.png', 'data=d.svg', 'data-src=lazy.png', 'css=bg.png', 'css=y.png', 'css=s.css']);
  });

  it('reports the line of each link', () => {
    expect(scanHtml('<p>\n\n<a href="x">').map((l) => l.line)).toEqual([3]);
  });

  it('splits srcset and finds css urls on their own', () => {
    expect(srcsetUrls(' a.png 1x ,b.png')).toEqual(['a.png', 'b.png']);
    expect(cssLinks('a{b:url( "q.png" )}')).toEqual(['q.png']);
  });
});
