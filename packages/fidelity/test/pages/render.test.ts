/**
 * The pages' one escape hatch stays closed: raw markup reaches a page only
 * through trustedHtml(), and only with this tool's own stylesheet, script
 * and JSON data. The renderer escapes and isolates everything else, and its
 * vnode hook does not outlive a render.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { options, type VNode } from 'preact';
import { jsx } from 'preact/jsx-runtime';
import { describe, expect, it } from 'vitest';
import { renderHtml, trustedHtml } from '../../src/pages/render.js';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(path.join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [path.join(dir, e.name)] : []));
}

describe('raw markup', () => {
  it('goes into a page only through trustedHtml(), with the tool\'s own CSS, script and JSON data', () => {
    const calls: string[] = [];
    for (const file of sources(SRC)) {
      // The code only: comments may name the helper.
      const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
      const rel = path.relative(SRC, file);
      // Every dangerouslySetInnerHTML is fed by trustedHtml(...) right there.
      for (const m of text.matchAll(/dangerouslySetInnerHTML=\{([^}(]*)/g)) expect(m[1], rel).toBe('trustedHtml');
      // trustedHtml() itself is the one place that builds the raw-markup object.
      if (rel === path.join('pages', 'render.ts')) continue;
      expect(text, rel).not.toMatch(/\binnerHTML\b|__html/);
      for (const m of text.matchAll(/trustedHtml\(([^\n]*)/g)) calls.push(`${rel}: ${m[1]}`);
    }
    expect(calls.sort()).toEqual([
      `${path.join('pages', 'page.tsx')}: \`\\n\${pageCss()}\\n\`)} />`,
      `${path.join('pages', 'page.tsx')}: PAGE_SCRIPT)} />`,
      `${path.join('pages', 'page.tsx')}: pageDataJson(scriptData(m)))} />`,
    ].sort());
  });
});

describe('renderHtml', () => {
  it('escapes text and attributes and isolates bidi text, in HTML and SVG alike', () => {
    const html = renderHtml(() => (
      element('p', { title: '"><b x=1>', class: 'c' }, ['a<b>&', 'H200\u202eevil', element('svg', {}, [element('text', { 'aria-label': 'שלום' }, ['</svg><i>'])])])
    ));
    expect(html).toBe('<p title="&quot;>&lt;b x=1>" class="c">a&lt;b>&amp;\u2068H200\u202eevil\u2069<svg><text aria-label="\u2068שלום\u2069">&lt;/svg>&lt;i></text></svg></p>');
  });

  it('leaves Preact\'s vnode hook as it found it', () => {
    const before = options.vnode;
    renderHtml(() => element('p', {}, ['x']));
    expect(options.vnode).toBe(before);
  });

  it('puts trusted markup in as it is, and only there', () => {
    expect(renderHtml(() => element('style', { dangerouslySetInnerHTML: trustedHtml('a>b{}') }, []))).toBe('<style>a>b{}</style>');
  });
});

/** An element as the JSX runtime makes it (created inside renderHtml, like the pages' elements). */
function element(type: string, props: Record<string, unknown>, children: unknown[]): VNode {
  return jsx(type, { ...props, ...(children.length ? { children } : {}) });
}
