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
