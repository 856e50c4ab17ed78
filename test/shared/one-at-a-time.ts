/**
 * A setup file of the `serial` project (vitest.config.ts): a file of that project runs only while it
 * holds the run-wide lock `serial-file`, so two of them never run at once, while the other worker
 * goes on with the `parallel` project's files. vitest runs a project whose files may not run in
 * parallel after every other project has finished (a group of its own, one file at a time), which
 * left one core idle for the serial files' whole time; with the lock both projects share one group
 * of two workers, and test/shared/sequencer.ts spreads the serial files through it so that one rarely
 * waits for another.
 */
import { afterAll } from 'vitest';
import { takeLock } from './store.js';

const release = await takeLock('serial-file');
afterAll(release);
