/**
 * What every command shares: where output goes and how exit codes are chosen.
 * stdout carries the result (one JSON document with --json, nothing else);
 * stderr carries progress and human diagnostics.
 */
import { isFidelityError } from 'media-fidelity/base';
import { DEFAULT_COLUMNS, escapeControls, inline } from './text.js';

/**
 * `changed`: fidelity diff found a difference (the same number as `internal`: the JSON document tells them apart, `ok: true` or false).
 * `thresholds` and `invalid`: the bundle was written and `--fail-on-threshold`'s gate failed (docs/report.md, "Exit codes").
 */
export const EXIT = { ok: 0, internal: 1, changed: 1, refused: 2, thresholds: 4, invalid: 5 } as const;

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  /** True when stderr is a terminal; progress is drawn only then or with --progress. */
  errIsTty: boolean;
  /** Writes the CLI's own terminal control sequences (progress redraw) to stderr unescaped; absent, `err` is used. */
  errControl?: (text: string) => void;
  /** The width of the terminal stdout is, when it is one; absent: not a terminal (text is wrapped to DEFAULT_COLUMNS). */
  columns?: number;
}

/** The width human output on stdout is wrapped to: the terminal's, else DEFAULT_COLUMNS. */
export function outputWidth(io: Io): number {
  return io.columns !== undefined && Number.isInteger(io.columns) && io.columns > 0 ? io.columns : DEFAULT_COLUMNS;
}

/**
 * The Io every command gets from main(): whatever it prints, archive text
 * included, reaches the terminal with its control characters escaped
 * (text.ts). Only `errControl` writes raw, and only the CLI's own sequences.
 */
export function terminalSafe(io: Io): Io {
  return {
    out: (text) => io.out(escapeControls(text)),
    err: (text) => io.err(escapeControls(text)),
    errIsTty: io.errIsTty,
    errControl: io.errControl ?? io.err,
    ...(io.columns !== undefined ? { columns: io.columns } : {}),
  };
}

// A stream closed by its reader (EPIPE) is destroyed: writing on would only raise the error again.
export const processIo: Io = {
  out: (text) => {
    if (!process.stdout.destroyed) process.stdout.write(text);
  },
  err: (text) => {
    if (!process.stderr.destroyed) process.stderr.write(text);
  },
  errIsTty: Boolean(process.stderr.isTTY),
  get columns() {
    return process.stdout.isTTY ? process.stdout.columns : undefined;
  },
};

export function printJson(io: Io, value: unknown): void {
  io.out(`${JSON.stringify(value, null, 2)}\n`);
}

export interface ErrorDoc {
  ok: false;
  errors: { code: string; message: string; where?: unknown }[];
}

/** Turns any failure into the documented shape: refusals (exit 2) list reason codes; the rest is internal (exit 1). */
export function describeFailure(error: unknown): { exit: number; doc: ErrorDoc } {
  if (isFidelityError(error)) {
    const internal = error.code === 'INTERNAL';
    return {
      exit: internal ? EXIT.internal : EXIT.refused,
      doc: { ok: false, errors: error.problems.map((p) => ({ code: p.code, message: p.message, ...(p.where ? { where: p.where } : {}) })) },
    };
  }
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return { exit: EXIT.internal, doc: { ok: false, errors: [{ code: 'INTERNAL', message }] } };
}

export function reportFailure(io: Io, error: unknown, json: boolean): number {
  const { exit, doc } = describeFailure(error);
  if (json) printJson(io, doc);
  // Messages keep their lines (a stack trace, ffmpeg's stderr) and quote archive values already; a file name in `where` does not.
  else for (const e of doc.errors) io.err(`error ${e.code}: ${e.message}${inline(formatWhere(e.where))}\n`);
  return exit;
}

function formatWhere(where: unknown): string {
  if (!where || typeof where !== 'object') return '';
  const w = where as { file?: string; line?: number; path?: string };
  const parts = [w.file, w.line === undefined ? undefined : `line ${w.line}`, w.path].filter(Boolean);
  return parts.length ? ` (${parts.join(', ')})` : '';
}
