/**
 * The options several commands share, each declared once. A command takes one
 * only by naming it in its own `options` (`--threads` and `--policy` only
 * where something is measured or judged; an option a command
 * does not take is refused, never ignored).
 *
 * Loaded at every start (the command table is made of these): it imports the
 * library's light entry only, never a command's module or a library room.
 */
import { DEFAULT_LIMITS, FidelityError, OPTION_BOUNDS, withinBounds } from 'media-fidelity/base';
import type { Command, OptionSpec } from './commands/types.js';
import { wrapLine } from './text.js';

/** Options every command takes; main.ts adds them to each command's own. */
export const EVERY_COMMAND: Record<string, OptionSpec> = {
  json: { type: 'boolean', description: 'print one JSON document on stdout and nothing else there' },
  help: { type: 'boolean', short: 'h', description: 'show this help' },
};

export const threadsOption: OptionSpec = {
  type: 'string',
  value: 'N',
  description: `cores to use, ${OPTION_BOUNDS.threads.min} to ${OPTION_BOUNDS.threads.max}: pairs measured at once, and helper threads per pair (default: one per core)`,
};

export const policyOption: OptionSpec = { type: 'string', value: '<file>', description: 'thresholds file (JSON, the shape of report.json\'s policy; default: the uncalibrated examples)' };

/** Only on commands with long work: compare, merge, calibrate, demo, generate, fetch. */
export const progressOption: OptionSpec = { type: 'boolean', description: 'progress on stderr even when it is not a terminal (on a terminal it is always drawn)' };

/** The archive limits as command-line options, shared with any command that verifies runs. */
export const limitOptions: Record<string, OptionSpec> = {
  'max-files': { type: 'string', value: 'N', description: `most files one archive may hold (default ${DEFAULT_LIMITS.maxFiles})` },
  'max-file-size': { type: 'string', value: 'SIZE', description: 'largest single file, e.g. 1GiB (default 512MiB)' },
  'max-total-size': { type: 'string', value: 'SIZE', description: 'largest archive, all files together, e.g. 4GiB (default 2GiB)' },
  'max-entries': { type: 'string', value: 'N', description: `most entries of any kind (files, folders, links) one archive may hold (default ${DEFAULT_LIMITS.maxEntries})` },
  'max-inflated-size': { type: 'string', value: 'SIZE', description: 'most bytes a .tar.gz may inflate to, e.g. 8GiB (default: the total size limit + 64MiB)' },
  'max-compression-ratio': { type: 'string', value: 'N', description: `most inflated bytes per compressed byte (default ${DEFAULT_LIMITS.maxCompressionRatio})` },
};

/** The two gate options, shared by compare and merge. */
export const gateOptionSpecs: Record<'fail-on-threshold' | 'allow-invalid', OptionSpec> = {
  'fail-on-threshold': {
    type: 'boolean',
    description: 'the CI gate: exit 4 when a pair failed a check, else 5 when a planned pair is invalid (a failed request, an incompatible pair, media against the plan, an invalid clip); without it the exit code is 0 whenever the bundle is written',
  },
  'allow-invalid': { type: 'boolean', description: 'with --fail-on-threshold: invalid pairs beside judged ones do not fail the gate (no exit 5), only failed checks do (exit 4); with no pair judged at all it is still 5' },
};

/** --decode-timeout <seconds> as the library's timeoutMs (whole milliseconds, at least 1). */
export function readDecodeTimeout(values: Record<string, unknown>): number | undefined {
  const raw = values['decode-timeout'];
  if (raw === undefined) return undefined;
  const seconds = typeof raw === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(raw) ? Number(raw) : NaN;
  const ms = Math.round(seconds * 1000);
  if (!Number.isFinite(seconds) || !withinBounds('timeoutMs', ms)) {
    throw new FidelityError('USAGE', `Expected a number of seconds (e.g. 600, 0.5) for --decode-timeout but received ${JSON.stringify(raw)}`);
  }
  return ms;
}

/** The option, shared by compare, demo and (with its own description) verify. */
export const decodeTimeoutOption: OptionSpec = {
  type: 'string',
  value: 'S',
  description: 'seconds each ffmpeg/ffprobe child may run before it is killed with its process group and its pair is invalid (DECODE_TIMEOUT); default 600 while measuring, 120 for the report stills and audio',
};

/** `--junit` and `--summary`, shared by compare and merge (ci-outputs.ts writes them). */
export const ciOptions: Record<'junit' | 'summary', OptionSpec> = {
  junit: { type: 'string', value: '<file>', description: 'also write the result as JUnit XML to this file (a testcase per planned pair; not on a refusal); see docs/ci.md' },
  summary: { type: 'string', value: '<file>', description: 'append a Markdown summary to this file (default: the file GITHUB_STEP_SUMMARY names, when set); never overwritten' },
};

/** Where `fidelity demo` writes its bundle without --out. */
export const DEFAULT_DEMO_OUT = 'fidelity-demo';

/** Everything `command` accepts: its own options and those of every command. The parser and the help both read this. */
export function optionsOf(command: Command): Record<string, OptionSpec> {
  return { ...command.options, ...EVERY_COMMAND };
}

/** `-o, --out <dir>` or `--force`, as help shows it. */
export function optionLabel(name: string, spec: OptionSpec): string {
  const value = spec.type === 'string' ? ` ${spec.value ?? '<value>'}` : '';
  return `${spec.short ? `-${spec.short}, ` : '    '}--${name}${value}${spec.multiple ? ' (repeatable)' : ''}`;
}

/** The usage line: `fidelity <name> <args> [options]`. */
export function usageLine(command: Command): string {
  return `fidelity ${command.name}${command.args ? ` ${command.args}` : ''} [options]`;
}

/** The widest help is drawn: a wider terminal still gets lines a reader can follow. */
export const HELP_COLUMNS = 100;

/** `label` in a column of `width`, then `text` wrapped to `columns` beside it (under it when the label is wider). */
export function helpEntry(label: string, text: string, width: number, columns: number): string[] {
  const indent = ' '.repeat(2 + width + 2);
  const pieces = wrapLine(text, Math.max(20, columns - indent.length), '');
  const rest = pieces.slice(1).map((p) => `${indent}${p}`);
  return label.length > width ? [`  ${label}`, `${indent}${pieces[0]!}`, ...rest] : [`  ${label.padEnd(width)}  ${pieces[0]!}`, ...rest];
}

/** A command's whole help, made from its option table, wrapped to `columns` (at most {@link HELP_COLUMNS}). */
export function commandHelp(command: Command, columns = HELP_COLUMNS): string {
  const cols = Math.min(columns, HELP_COLUMNS);
  const entries = Object.entries(optionsOf(command)).map(([name, spec]) => [optionLabel(name, spec), spec.description] as const);
  const width = Math.min(36, Math.max(...entries.map(([label]) => label.length)));
  const lines = [...wrapLine(`usage: ${usageLine(command)}`, cols, '       '), '', ...wrapLine(command.summary, cols, ''), '', 'options:'];
  for (const [label, description] of entries) lines.push(...helpEntry(label, description, width, cols));
  return `${lines.join('\n')}\n`;
}
