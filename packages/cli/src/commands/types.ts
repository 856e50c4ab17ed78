import type { Io } from '../io.js';

/**
 * One command-line option, as data: the parser (main.ts) and the help text are
 * both made from these entries, so a command's help cannot list an option it
 * refuses, or miss one it takes.
 */
export interface OptionSpec {
  type: 'string' | 'boolean';
  multiple?: boolean;
  short?: string;
  /** How help shows the value of a string option (`<dir>`, `N`); default `<value>`. */
  value?: string;
  description: string;
}

export interface Command {
  name: string;
  /** The positional arguments and required options, as the usage line shows them; the line is `fidelity <name> <args> [options]`. */
  args: string;
  summary: string;
  /**
   * Every option the command takes besides `--json` and `--help` (which every
   * command takes), one entry per option. Anything else is a usage error (exit 2).
   */
  options: Record<string, OptionSpec>;
  /**
   * Runs the command (its module is imported then, not with the table: commands/index.ts).
   * Resolves with the exit code.
   */
  run(args: CommandArgs): Promise<number>;
}

/** What a command's `run` is given once its arguments are parsed. */
export interface CommandArgs {
  positionals: string[];
  values: Record<string, unknown>;
  io: Io;
  /**
   * Aborts on SIGINT / SIGTERM / SIGHUP or a closed stdout (interrupt.ts):
   * a command passes it to the library so children and temp files are cleaned up.
   */
  signal?: AbortSignal;
}
