/**
 * A setup file, added to both projects when `FIDELITY_TEST_TIMES` is set (vitest.config.ts): each
 * test file's CPU (user + system of its worker process and of every child it has reaped: ffmpeg,
 * the CLI, npm, Chromium) is appended to `<report>.cpu.jsonl`, for scripts/test-times.mjs. Wall time
 * says little on two busy cores; CPU is what a file costs the suite. A shared entry (store.ts) is
 * charged to the file that built it, and its own CPU is written there too, under `shared`.
 */
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { cpuSeconds, recordCpu } from './cpu.js';

let start: number | null = null;
beforeAll(() => {
  start = cpuSeconds();
});
afterAll(() => {
  const file = expect.getState().testPath;
  if (file) recordCpu({ file: path.relative(process.cwd(), file) }, start, cpuSeconds());
});
