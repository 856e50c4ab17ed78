/**
 * How the report pages become HTML: Preact components (typed props, JSX)
 * rendered to a string by preact-render-to-string, which escapes every text
 * child and every attribute value. Run data is therefore text unless someone
 * writes it into a page as markup on purpose, and there is exactly one way to
 * do that: `trustedHtml()`, used only for fragments this tool writes itself
 * (the stylesheet, the page script and its JSON data block), never for
 * anything read from a run. `grep -rn trustedHtml packages/fidelity/src`
 * lists every such place (test/pages/render.test.ts keeps the list closed).
 *
 * Escaping is not enough for text whose direction can change: an RLO in a
 * gpu_model would reverse the rest of its line. So the renderer also
 * isolates, by default, every text and attribute value that holds
 * right-to-left letters, bidi controls or zero-width characters (FSI … PDI,
 * what <bdi> means). Links are judged separately (link-gates.ts): escaping
 * keeps a `javascript:` URL inside its attribute, it does not make it safe.
 */
import { options, type VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';

/**
 * The one escape hatch: markup put into an element as it is, through
 * `dangerouslySetInnerHTML`. Only for this tool's own constant or
 * self-made fragments (the CSS, the page script, its JSON data); run data
 * never goes through here.
 */
export function trustedHtml(html: string): { __html: string } {
  return { __html: html };
}

/**
 * Right-to-left letters, bidi controls (embeddings, overrides, isolates,
 * marks) and zero-width characters. A value from a run holding one is shown
 * as an isolate, so an RLO in a gpu_model cannot reverse the rest of its
 * line, and Hebrew in a job name cannot pull the run id beside it over.
 */
const BIDI_SENSITIVE = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefe\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]|[\u{10800}-\u{10fff}\u{1e800}-\u{1efff}]/u;

/**
 * FSI ... PDI around text that needs it (BIDI_SENSITIVE), else the text as
 * it is. Everything opened inside (embeddings, overrides, isolates) ends at
 * the closing PDI; a PDI of the value with nothing of its own to close would
 * end the isolate early, so it is dropped (alone, it has no effect on the
 * value's own display).
 */
export function isolateBidi(text: string): string {
  if (!BIDI_SENSITIVE.test(text)) return text;
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

function isolateChildren(children: unknown): unknown {
  if (typeof children === 'string') return isolateBidi(children);
  if (Array.isArray(children)) return children.map(isolateChildren);
  return children;
}

/** Isolates the text children and string attributes of an HTML or SVG element (components are left to their own elements). */
function isolateElement(vnode: VNode): void {
  if (typeof vnode.type !== 'string') return;
  const props = vnode.props as Record<string, unknown>;
  for (const [name, value] of Object.entries(props)) {
    if (name === 'children') props.children = isolateChildren(value);
    else if (typeof value === 'string') props[name] = isolateBidi(value);
  }
}

/**
 * Renders the elements `build` makes to HTML, escaped and bidi-isolated. The
 * isolation runs as Preact's vnode hook, installed only while this
 * synchronous call runs (and chained to any hook already there), so every
 * element the components create is covered and nothing outside is touched.
 */
export function renderHtml(build: () => VNode): string {
  const previous = options.vnode;
  options.vnode = (vnode: VNode): void => {
    isolateElement(vnode);
    previous?.(vnode);
  };
  try {
    return renderToString(build());
  } finally {
    options.vnode = previous;
  }
}
