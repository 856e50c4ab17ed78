import { doctor } from './doctor.js';
import type { Command } from './types.js';

/** Every command, in the order `fidelity --help` lists them. */
export const commands: Command[] = [doctor];
