import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    // ffmpeg, worker pools and the browser already use both cores; parallel files would only thrash.
    fileParallelism: false,
    pool: 'forks',
    reporters: ['default'],
  },
});
