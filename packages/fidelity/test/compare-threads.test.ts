/**
 * compare() starts the pool's worker threads before the runs are verified, so they load the
 * measuring modules meanwhile (compare.ts), and ends them whatever happens: here a candidate that
 * does not exist refuses the comparison in verification, after the threads were started.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';

const events: string[] = [];

vi.mock('../src/pool/pool.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../src/pool/pool.js')>();
  return {
    ...real,
    startPoolThreads: (count: number) => {
      events.push('threads started');
      const threads = real.startPoolThreads(count);
      return { ...threads, destroy: async () => (events.push('threads ended'), threads.destroy()) };
    },
  };
});

vi.mock('../src/comparison/plan.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../src/comparison/plan.js')>();
  return {
    ...real,
    planComparison: async (...args: Parameters<typeof real.planComparison>) => {
      events.push('verifying');
      try {
        return await real.planComparison(...args);
      } finally {
        events.push('verified');
      }
    },
  };
});

const { compare } = await import('../src/compare.js');
const RUNS = fileURLToPath(new URL('../../../fixtures/runs/', import.meta.url));
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-compare-threads-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('compare() and the pool\'s threads', () => {
  it('starts them before verifying the runs and ends them when verification refuses', async () => {
    await expect(compare(path.join(RUNS, 'h200'), [path.join(tmp, 'missing-run')], { out: path.join(tmp, 'out'), threads: 1 })).rejects.toMatchObject({ code: 'RUN_INVALID' });
    expect(events).toEqual(['threads started', 'verifying', 'verified', 'threads ended']);
  });
});
