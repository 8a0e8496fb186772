import type * as Playwright from 'playwright-core';
import { requireWithCodeCache } from './code-cache.js';

/**
 * playwright-core, loaded with `require`: it is one CommonJS bundle of 3.6 MB, and an ES `import`
 * of it makes Node scan the bundle for its export names first, about 130 ms of every cold start
 * (benchmarks/cold-start). Its compiled code is kept between starts (code-cache.ts).
 */
const playwright = requireWithCodeCache<typeof Playwright>('playwright-core', import.meta.url);

export const { chromium, devices } = playwright;
