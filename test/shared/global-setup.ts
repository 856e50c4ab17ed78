/**
 * vitest's globalSetup (vitest.config.ts): one folder of shared test data per test run
 * (test/shared/store.ts). Every project runs this file; the first call makes the folder and the
 * others reuse it. After the run the folder is checked (no test may change shared data: a changed
 * file fails the run) and removed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { changedEntries } from './store.js';

interface Held {
  root: string;
  users: number;
}
const KEY = Symbol.for('fidelity.sharedRoot');
const state = globalThis as { [KEY]?: Held };

export default function setup(project: TestProject): () => void {
  const held = (state[KEY] ??= { root: mkdtempSync(path.join(os.tmpdir(), 'fidelity-shared-')), users: 0 });
  held.users++;
  project.provide('fidelitySharedRoot', held.root);
  return () => {
    if (--held.users > 0) return;
    delete state[KEY];
    const changed = changedEntries(held.root);
    rmSync(held.root, { recursive: true, force: true });
    if (changed.length > 0) {
      for (const [entry, files] of changed) console.error(`shared test data changed by a test: ${entry}: ${files.slice(0, 5).join(', ')}${files.length > 5 ? ` and ${files.length - 5} more` : ''}`);
      process.exitCode = 1;
      throw new Error('a test changed shared test data (test/shared/store.ts): copy it first');
    }
  };
}
