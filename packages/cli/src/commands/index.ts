import { calibrateCommand } from './calibrate.js';
import { compareCommand } from './compare.js';
import { demoCommand } from './demo.js';
import { doctor } from './doctor.js';
import { generateCommand } from './generate.js';
import { power } from './power.js';
import type { Command } from './types.js';
import { verifyBundleCommand } from './verify-bundle.js';
import { verifyCommand } from './verify.js';

/** Every command, in the order `fidelity --help` lists them. */
export const commands: Command[] = [doctor, verifyCommand, power, compareCommand, calibrateCommand, verifyBundleCommand, demoCommand, generateCommand];
