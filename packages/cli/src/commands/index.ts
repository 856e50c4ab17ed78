import { calibrateCommand } from './calibrate.js';
import { compareCommand } from './compare.js';
import { demoCommand } from './demo.js';
import { diffCommand } from './diff.js';
import { doctor } from './doctor.js';
import { fetchCommand } from './fetch.js';
import { generateCommand } from './generate.js';
import { mergeCommand } from './merge.js';
import { power } from './power.js';
import type { Command } from './types.js';
import { verifyBundleCommand } from './verify-bundle.js';
import { verifyCommand } from './verify.js';

/** Every command, in the order `fidelity --help` lists them. */
export const commands: Command[] = [doctor, verifyCommand, power, compareCommand, mergeCommand, calibrateCommand, verifyBundleCommand, diffCommand, demoCommand, generateCommand, fetchCommand];
