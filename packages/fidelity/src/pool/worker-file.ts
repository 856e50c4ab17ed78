/**
 * Where a worker thread's JavaScript is. Built, this folder is dist/pool/ and
 * the worker sits beside the caller. Run from source (vitest imports
 * src/*.ts) there is no .js beside it, so the compiled dist/pool/<name> is
 * used: build first (`tsc -b packages/fidelity`), as the test command does.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FidelityError } from '../errors.js';

export function workerFilePath(name: string): string {
  const here = import.meta.url;
  const url = here.endsWith('.ts') ? new URL(`../../dist/pool/${name}`, here) : new URL(`./${name}`, here);
  const file = fileURLToPath(url);
  if (!existsSync(file)) {
    throw new FidelityError('INTERNAL', `The worker ${file} does not exist: build the library first (tsc -b packages/fidelity)`);
  }
  return file;
}
