import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Every browser test file owns a Chromium. One file at a time: two in parallel starve a live
    // recording's screencast on two cores (frozen frames), and timing-based checks with it.
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    reporters: ['default'],
  },
});
