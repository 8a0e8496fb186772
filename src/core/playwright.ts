import { createRequire } from 'node:module';
import type * as Playwright from 'playwright-core';

/**
 * playwright-core, loaded with `require`: it is one CommonJS bundle of 3.6 MB, and an ES `import`
 * of it makes Node scan the bundle for its export names first, about 130 ms of every cold start
 * (benchmarks/cold-start).
 */
const playwright = createRequire(import.meta.url)('playwright-core') as typeof Playwright;

export const { chromium, devices } = playwright;
