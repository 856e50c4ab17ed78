import { defineConfig } from 'vitest/config';
import SpreadSerial from './test/shared/sequencer.js';
import FileTimesReporter from './test/shared/file-times.js';
import { childEnv } from './packages/fidelity/src/media/child-env.js';

/**
 * Files whose tests time signals, deadlines or a cluster, or drive a browser: they run one at a
 * time (test/shared/one-at-a-time.ts), beside the other files, so that no two of them stretch each
 * other's deadlines or share a browser or the cluster.
 */
const SERIAL = [
  'packages/cli/test/signals.test.ts',
  'packages/fidelity/test/compare-cancel.test.ts',
  'packages/fidelity/test/provider/fetch.test.ts',
  'packages/fidelity/test/media/process.test.ts',
  'test/browser/*.test.ts',
  'test/e2e/slurm.test.ts',
  'test/e2e/pack.test.ts',
  'test/e2e/demo.test.ts',
];

/**
 * `FIDELITY_TEST_TIMES=FILE npm test` also writes vitest's JSON report there, and each file's whole
 * time (import and hooks included) beside it, for scripts/test-times.mjs.
 */
const times = process.env.FIDELITY_TEST_TIMES;
/** With FIDELITY_TEST_TIMES, each file's CPU too (test/shared/file-cpu.ts). */
const cpu = times ? ['test/shared/file-cpu.ts'] : [];

// fidelity's rule for its own ffmpeg children (media/child-env.ts), for every process the suite
// starts: the ffmpeg of its fixtures and oracles and the Python oracles' numpy link OpenBLAS, whose
// threads spin at every start though none of them calls BLAS. A count set by the caller is kept.
Object.assign(process.env, childEnv());

export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 300_000,
    pool: 'forks',
    // One folder of shared test data per run (test/shared/store.ts): built once, read by every file.
    globalSetup: ['test/shared/global-setup.ts'],
    // Both projects share one group of two workers (one maxWorkers); the serial files spread through it.
    maxWorkers: 2,
    sequence: { sequencer: SpreadSerial },
    reporters: times ? ['default', ['json', { outputFile: times }], new FileTimesReporter(times)] : ['default'],
    projects: [
      {
        extends: true,
        test: { name: 'parallel', include: ['packages/*/test/**/*.test.ts', 'test/**/*.test.ts'], exclude: SERIAL, setupFiles: cpu },
      },
      {
        extends: true,
        test: { name: 'serial', include: SERIAL, setupFiles: ['test/shared/one-at-a-time.ts', ...cpu] },
      },
    ],
  },
});
