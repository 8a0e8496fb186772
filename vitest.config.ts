import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Every browser test file owns a Chromium; two at a time is what two cores carry.
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
  },
});
