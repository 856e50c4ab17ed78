/**
 * The options several commands share, each declared once. A command takes one
 * only by naming it in its own `options` (cli-and-report.md: `--threads` and
 * `--policy` only where something is measured or judged; an option a command
 * does not take is refused, never ignored).
 */
import type { Command, OptionSpec } from './commands/types.js';

/** Options every command takes; main.ts adds them to each command's own. */
export const EVERY_COMMAND: Record<string, OptionSpec> = {
  json: { type: 'boolean', description: 'print one JSON document on stdout and nothing else there' },
  help: { type: 'boolean', short: 'h', description: 'show this help' },
};

export const threadsOption: OptionSpec = {
  type: 'string',
  value: 'N',
  description: 'cores to use, 1 to 256: pairs measured at once, and helper threads per pair (default: one per core)',
};

export const policyOption: OptionSpec = { type: 'string', value: '<file>', description: 'thresholds file (JSON, the shape of report.json\'s policy; default: the uncalibrated examples)' };

/** Only on commands with long work: compare, merge, calibrate, demo, generate, fetch. */
export const progressOption: OptionSpec = { type: 'boolean', description: 'progress on stderr even when it is not a terminal (on a terminal it is always drawn)' };

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

/** A command's whole help, made from its option table. */
export function commandHelp(command: Command): string {
  const entries = Object.entries(optionsOf(command)).map(([name, spec]) => [optionLabel(name, spec), spec.description] as const);
  const width = Math.min(36, Math.max(...entries.map(([label]) => label.length)));
  const lines = [`usage: ${usageLine(command)}`, '', command.summary, '', 'options:'];
  for (const [label, description] of entries) {
    lines.push(label.length > width ? `  ${label}\n  ${' '.repeat(width)}  ${description}` : `  ${label.padEnd(width)}  ${description}`);
  }
  return `${lines.join('\n')}\n`;
}
