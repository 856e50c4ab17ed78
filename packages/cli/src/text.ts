/**
 * Text from a run archive (gpu_model, job, a failed record's error, file
 * names) is written by whoever built the archive. Sent raw to a terminal,
 * ESC sequences can retitle the window, hide lines, rewrite what came before
 * or plant an OSC 8 link; bidi controls reorder what a line appears to say.
 * Every human-readable line of the CLI passes through `escapeControls`.
 */

/**
 * C0 controls but tab and newline, DEL, C1 controls (U+009B is a one-character
 * CSI), bidi embeddings / overrides / isolates / marks, invisible separators
 * and line / paragraph separators. Zero-width (non-)joiners stay: scripts and
 * emoji need them.
 */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;
const UNSAFE_OR_LINES = /[\u0000-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

const escape = (ch: string): string => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * Replaces each unsafe character with its `\uXXXX` escape, which is also how
 * JSON writes it, so a JSON document stays valid JSON with the same meaning.
 * `oneLine` escapes newlines and tabs too, for a value shown inside a line.
 */
export function escapeControls(text: string, options: { oneLine?: boolean } = {}): string {
  return text.replace(options.oneLine ? UNSAFE_OR_LINES : UNSAFE, escape);
}

/** A value from an archive shown inside one line of output. */
export function inline(value: string | number): string {
  return escapeControls(String(value), { oneLine: true });
}

/** The width lines are wrapped to when the output is not a terminal (a pipe, a file, a CI log). */
export const DEFAULT_COLUMNS = 100;

/**
 * One line broken at spaces into lines of at most `width` characters. The line's own indent is
 * kept and each continuation line gets `hanging` more. A word longer than the room left (a path, a
 * hash, a long value) is never cut: it stands alone on its line, which is then longer.
 */
export function wrapLine(line: string, width: number, hanging = '    '): string[] {
  if (line.length <= width) return [line];
  const lead = /^ */.exec(line)![0];
  // Split at each space, so a run of spaces inside the text is kept where no line breaks.
  const words = line.slice(lead.length).split(' ');
  const next = `${lead}${hanging}`;
  const lines: string[] = [];
  let current = lead;
  let empty = true;
  for (const word of words) {
    if (!empty && current.length + 1 + word.length > width) {
      lines.push(current.trimEnd());
      current = next;
      empty = true;
    }
    if (empty && word === '') continue;
    current += empty ? word : ` ${word}`;
    empty = false;
  }
  lines.push(current);
  return lines;
}

/** Every line of `text` wrapped as {@link wrapLine} wraps one; the text's final newline is kept. */
export function wrapText(text: string, width: number, hanging = '    '): string {
  const trailing = text.endsWith('\n');
  const body = trailing ? text.slice(0, -1) : text;
  const out: string[] = [];
  for (const line of body.split('\n')) for (const piece of wrapLine(line, width, hanging)) out.push(piece);
  return `${out.join('\n')}${trailing ? '\n' : ''}`;
}
