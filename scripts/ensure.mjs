#!/usr/bin/env node
// Lets `npm run demo` and `npm test` work on a fresh clone with only Node 20 and npm:
// installs the pinned pnpm workspace when node_modules is missing or older than the
// lockfile, then builds the TypeScript packages (incremental, so a no-op when current).
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PNPM = 'pnpm@12.4.2';
const quiet = process.env.CI !== 'true';
const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: quiet ? ['ignore', 'ignore', 'inherit'] : 'inherit' });

const marker = path.join(root, 'node_modules', '.modules.yaml');
const lock = path.join(root, 'pnpm-lock.yaml');
const stale = !existsSync(marker) || (existsSync(lock) && statSync(lock).mtimeMs > statSync(marker).mtimeMs);
if (stale || process.argv.includes('--install')) {
  process.stderr.write('fidelity: installing dependencies (pnpm, first run only)...\n');
  run('npx', ['-y', PNPM, 'install', '--frozen-lockfile']);
}
if (!process.argv.includes('--no-build')) {
  run(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', 'packages/fidelity', 'packages/cli']);
}
