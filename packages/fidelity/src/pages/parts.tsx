/**
 * Small building blocks shared by the page sections: tables, key-value
 * lists, badges, links. Every value is a child or a prop, so the renderer
 * escapes it (render.ts); links pass the gates of link-gates.ts.
 */
import { isValidElement, type ComponentChild, type ComponentChildren, type VNode } from 'preact';
import { bundleHref, serverHref } from './link-gates.js';
import { langOf, type MessageKey, type Messages } from './i18n.js';
import { checkDeclaration } from '../policy/checks.js';

/** Anything a cell, a list item or a sentence may hold: text, numbers, elements, lists of them. */
export type Child = ComponentChildren;

/**
 * A UI string with its `{name}` placeholders filled: each value a child of
 * its own (text is escaped and isolated on its own, elements stay elements).
 * A placeholder without a value is left as written, as `fill` does.
 */
export function tx(m: Messages, key: MessageKey, values: Record<string, ComponentChild> = {}): ComponentChild[] {
  return fillChildren(m[key], values);
}

/** `fill` (i18n.ts) with children for values. */
export function fillChildren(template: string, values: Record<string, ComponentChild>): ComponentChild[] {
  const out: ComponentChild[] = [];
  let last = 0;
  for (const match of template.matchAll(/\{([a-z_]+)\}/g)) {
    const name = match[1]!;
    if (!(name in values)) continue;
    out.push(template.slice(last, match.index));
    const value = values[name];
    out.push(typeof value === 'number' ? String(value) : value);
    last = match.index + match[0].length;
  }
  out.push(template.slice(last));
  return out;
}

export function badge(kind: string, label: string): VNode {
  return <span class={`badge ${kind.replace(/[^a-z_]/g, '')}`}>{label}</span>;
}

/** A link to a run's CI page (https on the run's own server); plain text when the URL is anything else. */
export function extLink(url: string | null, text: string, serverUrl: string | null): VNode {
  // No URL (a provider without pages) or no server: the text alone, never a made-up link.
  const href = url === null || serverUrl === null ? null : serverHref(url, serverUrl);
  return href === null ? (
    <span class="mono">{text}</span>
  ) : (
    <a href={href} rel="noopener noreferrer">
      {text}
    </a>
  );
}

/** A link to a file inside the bundle; plain text when the path is not a safe relative one. */
export function fileLink(path: string, text: string, download = false): VNode {
  const href = bundleHref(path);
  if (href === null) return <span class="mono">{text}</span>;
  return (
    <a href={href} download={download}>
      {text}
    </a>
  );
}

/** A cell made by numCell or headCell (or written as <td>/<th>) goes in as it is; anything else is wrapped. */
function isCell(child: ComponentChild): boolean {
  return isValidElement(child) && (child.type === 'td' || child.type === 'th');
}

export function Row({ cells, header = false }: { cells: Child[]; header?: boolean }): VNode {
  return <tr>{cells.map((c) => (isCell(c as ComponentChild) ? c : header ? <th>{c}</th> : <td>{c}</td>))}</tr>;
}

/** A table in its own horizontal scroller (phones). */
export function Table({ head, rows, caption, cls }: { head: Child[]; rows: Child[][]; caption?: Child; cls?: string }): VNode {
  return (
    <div class="scroll">
      <table class={cls}>
        {caption === undefined ? null : <caption class="muted">{caption}</caption>}
        {head.length ? (
          <thead>
            <Row cells={head} header />
          </thead>
        ) : null}
        <tbody>
          {rows.map((r) => (
            <Row cells={r} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A right-aligned numeric cell. */
export function numCell(content: Child): VNode {
  return <td class="n">{content}</td>;
}

/** A row header cell. */
export function headCell(content: Child): VNode {
  return <th scope="row">{content}</th>;
}

/** Turns run data into an id fragment: only [A-Za-z0-9_-]. */
export function idPart(value: string): string {
  return value.replace(/[^A-Za-z0-9_-]/g, '_');
}

export function KeyValues({ items }: { items: Array<[Child, Child]> }): VNode {
  return (
    <dl class="kv">
      {items.map(([k, v]) => [<dt>{k}</dt>, <dd>{v}</dd>])}
    </dl>
  );
}

/** The id of a pair's section: comparison index and slot, so several candidates never collide. */
export function pairAnchor(comparisonIndex: number, slotId: string): string {
  return `pair-${comparisonIndex}-${idPart(slotId)}`;
}

/** The translated name of a policy check (its declaration's words); an unknown name is shown as it is. */
export function checkLabel(m: Messages, name: string): string {
  return checkDeclaration(name)?.words[langOf(m)].label ?? name;
}

/** Children joined by <br> (the pages' multi-line cells). */
export function lines(items: Child[]): Child[] {
  return items.flatMap((item, i) => (i === 0 ? [item] : [<br />, item]));
}

/** Children joined by a separator string. */
export function joined(items: Child[], separator: string): Child[] {
  return items.flatMap((item, i) => (i === 0 ? [item] : [separator, item]));
}
