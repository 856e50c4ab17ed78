import type { Io } from '../io.js';

export interface OptionSpec {
  type: 'string' | 'boolean';
  multiple?: boolean;
  short?: string;
  description: string;
}

export interface Command {
  name: string;
  usage: string;
  summary: string;
  options: Record<string, OptionSpec>;
  /**
   * `signal` aborts on SIGINT / SIGTERM / SIGHUP or a closed stdout (interrupt.ts):
   * a command passes it to the library so children and temp files are cleaned up.
   */
  run(args: { positionals: string[]; values: Record<string, unknown>; io: Io; signal?: AbortSignal }): Promise<number>;
}
