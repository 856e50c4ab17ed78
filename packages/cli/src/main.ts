/**
 * The command line is a thin shell over the library's public API: it parses
 * arguments, calls one library function, and prints. No domain logic here.
 */
import { parseArgs } from 'node:util';
import { TOOL_VERSION } from 'media-fidelity';
import { EXIT, processIo, reportFailure, terminalSafe, type Io } from './io.js';
import { commands } from './commands/index.js';
import { listenForInterrupts, type Interrupt } from './interrupt.js';
import type { Command, OptionSpec } from './commands/types.js';

/** Options every command accepts (cli-and-report.md, "Common options"). */
const COMMON: Record<string, OptionSpec> = {
  json: { type: 'boolean', description: 'print one JSON document on stdout and nothing else there' },
  threads: { type: 'string', description: 'cores to use: pairs measured at once, and helper threads per pair (default: one per core)' },
  policy: { type: 'string', description: 'thresholds file (JSON)' },
  progress: { type: 'boolean', description: 'draw progress on stderr even when it is not a terminal' },
  help: { type: 'boolean', short: 'h', description: 'show help' },
};

function usage(): string {
  const lines = [`fidelity ${TOOL_VERSION}: compare archived video+audio runs across hardware`, '', 'Commands:'];
  for (const c of commands) lines.push(`  ${c.usage}`, `      ${c.summary}`);
  lines.push('', 'Common options:');
  for (const [name, spec] of Object.entries(COMMON)) lines.push(`  --${name}${spec.type === 'string' ? ' <value>' : ''}  ${spec.description}`);
  return `${lines.join('\n')}\n`;
}

function commandHelp(c: Command): string {
  const lines = [`usage: ${c.usage}`, '', c.summary, ''];
  for (const [name, spec] of Object.entries({ ...c.options, ...COMMON })) {
    lines.push(`  --${name}${spec.type === 'string' ? ' <value>' : ''}  ${spec.description}`);
  }
  return `${lines.join('\n')}\n`;
}

export async function main(argv: string[], given: Io = processIo): Promise<number> {
  const io = terminalSafe(given);
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.out(usage());
    return name ? EXIT.ok : EXIT.refused;
  }
  if (name === '--version' || name === 'version') {
    io.out(`${TOOL_VERSION}\n`);
    return EXIT.ok;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    io.err(`error USAGE: unknown command "${name}"\n\n${usage()}`);
    return EXIT.refused;
  }
  const json = rest.includes('--json');
  let parsed;
  try {
    const options = Object.fromEntries(
      Object.entries({ ...COMMON, ...command.options }).map(([k, v]) => [k, { type: v.type, ...(v.multiple ? { multiple: true } : {}), ...(v.short ? { short: v.short } : {}) }]),
    );
    parsed = parseArgs({ args: rest, options, allowPositionals: true, strict: true });
  } catch (error) {
    const message = (error as Error).message;
    if (json) io.out(`${JSON.stringify({ ok: false, errors: [{ code: 'USAGE', message }] }, null, 2)}\n`);
    else io.err(`error USAGE: ${message}\n\n${commandHelp(command)}`);
    return EXIT.refused;
  }
  if (parsed.values.help) {
    io.out(commandHelp(command));
    return EXIT.ok;
  }
  if (parsed.values.threads !== undefined) {
    const n = Number(parsed.values.threads);
    if (!Number.isInteger(n) || n < 1 || n > 256) {
      const message = `Expected an integer between 1 and 256 for --threads but received ${JSON.stringify(parsed.values.threads)}`;
      if (json) io.out(`${JSON.stringify({ ok: false, errors: [{ code: 'USAGE', message }] }, null, 2)}\n`);
      else io.err(`error USAGE: ${message}\n`);
      return EXIT.refused;
    }
  }
  const interrupt = listenForInterrupts({ watchStdout: io === processIo });
  try {
    const code = await command.run({ positionals: parsed.positionals, values: parsed.values as Record<string, unknown>, io, signal: interrupt.signal });
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
