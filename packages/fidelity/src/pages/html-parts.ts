/**
 * Small HTML builders shared by the page sections. Arguments named `html`
 * are already-safe markup; everything else is escaped here.
 */
import { bundleHref, esc, serverHref } from './html-escape.js';
import { fill } from './i18n.js';
import type { MessageKey, Messages } from './i18n.js';

/** A UI string with its placeholders filled by escaped values. */
export function tx(m: Messages, key: MessageKey, values: Record<string, string | number> = {}): string {
  const safe: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) safe[k] = esc(v);
  return fill(esc(m[key]), safe);
}

/** The same, with values that are already markup (links, badges). */
export function txHtml(m: Messages, key: MessageKey, html: Record<string, string>): string {
  return fill(esc(m[key]), html);
}

export function badge(kind: string, label: string): string {
  return `<span class="badge ${esc(kind.replace(/[^a-z_]/g, ''))}">${esc(label)}</span>`;
}

/** A link to a run's CI page (https on the run's own server); plain text when the URL is anything else. */
export function extLink(url: string | null, text: string, serverUrl: string | null): string {
  // No URL (a provider without pages) or no server: the text alone, never a made-up link.
  const href = url === null || serverUrl === null ? null : serverHref(url, serverUrl);
  return href === null ? `<span class="mono">${esc(text)}</span>` : `<a href="${href}" rel="noopener noreferrer">${esc(text)}</a>`;
}

/** A link to a file inside the bundle; plain text when the path is not a safe relative one. */
export function fileLink(path: string, text: string, download = false): string {
  const href = bundleHref(path);
  if (href === null) return `<span class="mono">${esc(text)}</span>`;
  return `<a href="${href}"${download ? ' download' : ''}>${esc(text)}</a>`;
}

export function row(cells: string[], header = false): string {
  const tag = header ? 'th' : 'td';
  return `<tr>${cells.map((c) => (c.startsWith('<td') || c.startsWith('<th') ? c : `<${tag}>${c}</${tag}>`)).join('')}</tr>`;
}

/** A table in its own horizontal scroller (phones). Cells are markup. */
export function table(head: string[], rows: string[][], caption?: string): string {
  const cap = caption === undefined ? '' : `<caption class="muted">${caption}</caption>`;
  const thead = head.length ? `<thead>${row(head, true)}</thead>` : '';
  return `<div class="scroll"><table>${cap}${thead}<tbody>${rows.map((r) => row(r)).join('')}</tbody></table></div>`;
}

/** A right-aligned numeric cell. */
export function numCell(text: string): string {
  return `<td class="n">${text}</td>`;
}

/** A row header cell. */
export function headCell(html: string): string {
  return `<th scope="row">${html}</th>`;
}

/** Turns run data into an id fragment: only [A-Za-z0-9_-]. */
export function idPart(value: string): string {
  return value.replace(/[^A-Za-z0-9_-]/g, '_');
}

export function kv(items: Array<[string, string]>): string {
  return `<dl class="kv">${items.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl>`;
}

/** The id of a pair's section: comparison index and slot, so several candidates never collide. */
export function pairAnchor(comparisonIndex: number, slotId: string): string {
  return `pair-${comparisonIndex}-${idPart(slotId)}`;
}

/** The translated name of a policy check; an unknown name is shown as it is. */
export function checkLabel(m: Messages, name: string): string {
  const key = `check_${name}`;
  return key in m ? m[key as MessageKey] : name;
}
