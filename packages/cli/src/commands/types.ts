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
  run(args: { positionals: string[]; values: Record<string, unknown>; io: Io }): Promise<number>;
}
