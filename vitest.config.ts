import { defineConfig } from 'vitest/config';

/**
 * Tests that start no browser: they run first, files in parallel on every core (vitest's default
 * leaves one core free: a single worker on a 2-core CI machine, 8 s more on each of four runs).
 */
const UNIT = [
  'test/core/**/*.test.ts',
  'test/http/**/*.test.ts',
  'test/access/**/*.test.ts',
  'test/deploy/**/*.test.ts',
  'test/jobs/job-units.test.ts',
  'test/jobs/settlement.test.ts',
  'test/jobs/webhook-delivery.test.ts',
  'test/egress/egress-address.test.ts',
  'test/egress/egress-url.test.ts',
  'test/egress/egress-proxy-raw.test.ts',
  'test/egress/outbound-guard.test.ts',
  'test/egress/robots-txt.test.ts',
  'test/storage/storage-fs.test.ts',
  'test/storage/s3-env.test.ts',
  'test/storage/s3-parts.test.ts',
  'test/plugins/blank-shot.test.ts',
  'test/plugins/video-units.test.ts',
  'test/adapters/disconnect.test.ts',
  'test/adapters/adapter-input.test.ts',
  'test/playground/snippets.test.ts',
  'test/client/link-credentials.test.ts',
  'test/cli/frameworks.test.ts',
  'test/cli/operator-keys-cli.test.ts',
  'test/cli/allowed-addresses.test.ts',
  'test/cli/shot-scraper-units.test.ts',
  'test/client/verify-webhook.test.ts',
  'test/docs/tables.test.ts',
  'test/docs/links.test.ts',
  'test/docs/shell-variables.test.ts',
  'test/docs/snippets-typecheck.test.ts',
];

/**
 * What every Node line runs besides the unit project (scripts/node-lines.mjs): the built service's
 * smoke set, and the code cache, which takes another path from Node 22.1 on. Last, one file at a time.
 */
const SMOKE = ['test/smoke/**/*.test.ts', 'test/core/code-cache.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    // Test files share their worker's module cache: loading Playwright, sharp and the engine once per
    // worker instead of once per file. Every file closes what it opens (engines, servers, stores).
    isolate: false,
    reporters: ['default'],
    projects: [
      // The code cache's file is in test/core/ but is the smoke set's: once per run, not twice.
      { extends: true, test: { name: 'unit', include: UNIT, exclude: SMOKE, maxWorkers: '100%', sequence: { groupOrder: 0 } } },
      {
        extends: true,
        test: {
          name: 'browser',
          include: ['test/**/*.test.ts'],
          exclude: [...UNIT, ...SMOKE],
          // Every browser test file owns a Chromium. One file at a time: two in parallel starve a
          // live recording's screencast on two cores (frozen frames), and timing-based checks with it.
          maxWorkers: 1,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
      { extends: true, test: { name: 'smoke', include: SMOKE, maxWorkers: 1, fileParallelism: false, sequence: { groupOrder: 2 } } },
    ],
  },
});
