/**
 * The command line is a thin shell over the library's public API: it parses
 * arguments, calls one library function, and prints. No domain logic here.
 *
 * What loads at start is only this shell: the command table is data, and the
 * library's light entry (`media-fidelity/base`: its errors, version and
 * defaults) is all it imports from the library. A command's module, and the
 * library rooms it uses, load when that command runs (commands/index.ts), so
 * `--version`, `--help` and a usage error pay for none of them.
 */
import { parseArgs } from 'node:util';
import { FidelityError, OPTION_BOUNDS, TOOL_VERSION, withinBounds } from 'media-fidelity/base';
import { EXIT, outputWidth, processIo, reportFailure, terminalSafe, type Io } from './io.js';
import { commands } from './commands/index.js';
import { listenForInterrupts, type Interrupt } from './interrupt.js';
import type { Command } from './commands/types.js';
import { commandHelp, EVERY_COMMAND, HELP_COLUMNS, helpEntry, optionLabel, optionsOf, usageLine } from './options.js';
import { wrapLine } from './text.js';
import { closestName } from './suggest.js';

/** The list of commands, wrapped to `columns` (at most HELP_COLUMNS). */
function usage(columns: number): string {
  const cols = Math.min(columns, HELP_COLUMNS);
  const lines = [`fidelity ${TOOL_VERSION}: compare archived video+audio runs across hardware`, '', 'Commands:'];
  for (const c of commands) lines.push(...wrapLine(`  ${usageLine(c)}`, cols, '      '), ...wrapLine(`      ${c.summary}`, cols, ''));
  lines.push('', 'Every command takes:');
  const every = Object.entries(EVERY_COMMAND).map(([name, spec]) => [optionLabel(name, spec), spec.description] as const);
  const width = Math.max(...every.map(([label]) => label.length));
  for (const [label, description] of every) lines.push(...helpEntry(label, description, width, cols));
  lines.push('', ...wrapLine("`fidelity <command> --help` lists a command's own options; an option a command does not take is refused (exit 2).", cols, ''));
  return `${lines.join('\n')}\n`;
}

/**
 * Parses a command's arguments against its option table (options.ts): exactly
 * the options it declares, nothing else. Throws FidelityError USAGE.
 */
export function parseCommandLine(command: Command, args: string[]): { positionals: string[]; values: Record<string, unknown> } {
  const options = Object.fromEntries(
    Object.entries(optionsOf(command)).map(([k, v]) => [k, { type: v.type, ...(v.multiple ? { multiple: true } : {}), ...(v.short ? { short: v.short } : {}) }]),
  );
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true, tokens: true });
  } catch (error) {
    const message = (error as Error).message;
    // node's wording for an undeclared option names no command and suggests `--`: say which command refused it, and where its options are.
    const unknown = /^Unknown option '([^']+)'/.exec(message);
    if (!unknown) throw new FidelityError('USAGE', message, { cause: error });
    const given = unknown[1]!;
    const near = given.startsWith('--') ? closestName(given.slice(2).replace(/=.*$/, ''), Object.keys(optionsOf(command))) : undefined;
    const hint = near === undefined ? '' : `; did you mean --${near}?`;
    throw new FidelityError('USAGE', `fidelity ${command.name} does not take ${given}${hint} (fidelity ${command.name} --help lists the options it takes)`, { cause: error });
  }
  // node keeps the last of a repeated option: `--out A --out B` would write to B and never say so. An option
  // that takes one value is given once (a flag may repeat: it says the same thing twice).
  const seen = new Map<string, string>();
  for (const token of parsed.tokens) {
    if (token.kind !== 'option') continue;
    const spec = optionsOf(command)[token.name];
    if (!spec || spec.type !== 'string' || spec.multiple) continue;
    const first = seen.get(token.name);
    if (first !== undefined) {
      throw new FidelityError('USAGE', `--${token.name} is given twice (${JSON.stringify(first)} and ${JSON.stringify(token.value ?? '')}): it takes one value; give it once`);
    }
    seen.set(token.name, token.value ?? '');
  }
  const values = parsed.values as Record<string, unknown>;
  if (values.threads !== undefined) {
    const { min, max } = OPTION_BOUNDS.threads;
    if (!/^\d+$/.test(String(values.threads)) || !withinBounds('threads', Number(values.threads))) {
      throw new FidelityError('USAGE', `Expected an integer between ${min} and ${max} for --threads but received ${JSON.stringify(values.threads)}`);
    }
  }
  return { positionals: parsed.positionals, values };
}

/** `--json` given as an option: before the first `--`, after which every argument is an operand. */
export function jsonAsked(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).includes('--json');
}

export async function main(argv: string[], given: Io = processIo): Promise<number> {
  const io = terminalSafe(given);
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.out(usage(outputWidth(io)));
    return name ? EXIT.ok : EXIT.refused;
  }
  if (name === '--version' || name === 'version') {
    io.out(`${TOOL_VERSION}\n`);
    return EXIT.ok;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    const near = closestName(name, commands.map((c) => c.name));
    // A typo gets one line that names the command meant; anything else gets the list of commands.
    io.err(near === undefined ? `error USAGE: unknown command "${name}"\n\n${usage(outputWidth(io))}` : `error USAGE: unknown command "${name}"; did you mean ${near}? (fidelity --help lists the commands)\n`);
    return EXIT.refused;
  }
  // Whether a usage error is printed as JSON: `--json` among the options, not an operand after `--`.
  const json = jsonAsked(rest);
  let parsed;
  try {
    parsed = parseCommandLine(command, rest);
  } catch (error) {
    const message = (error as Error).message;
    if (json) io.out(`${JSON.stringify({ ok: false, errors: [{ code: 'USAGE', message }] }, null, 2)}\n`);
    // One short error, not the whole help: the line says what was wrong (and what was meant), --help the rest.
    else io.err(`error USAGE: ${message}\n${message.includes('--help') ? '' : `fidelity ${command.name} --help lists the options it takes\n`}`);
    return EXIT.refused;
  }
  if (parsed.values.help) {
    io.out(commandHelp(command, outputWidth(io)));
    return EXIT.ok;
  }
  const interrupt = listenForInterrupts({ watchStdout: given === processIo });
  try {
    const code = await command.run({ positionals: parsed.positionals, values: parsed.values, io, signal: interrupt.signal });
    return stopped(io, interrupt) ?? code;
  } catch (error) {
    const code = reportFailure(io, error, json);
    return stopped(io, interrupt) ?? code;
  } finally {
    interrupt.dispose();
  }
}

/** The exit code of a command stopped by a signal or a closed stdout, after saying so on stderr (a signal only: a closed pipe is quiet). */
function stopped(io: Io, interrupt: Interrupt): number | undefined {
  if (interrupt.stoppedBy !== undefined && interrupt.stoppedBy !== 'EPIPE') io.err(`fidelity: stopped by ${interrupt.stoppedBy}\n`);
  return interrupt.exitCode;
}
