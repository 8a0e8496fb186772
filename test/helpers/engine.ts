import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import { inject } from 'vitest';
import { createCaptureEngine, silentLogger, type CaptureEngine, type CaptureEngineOptions } from '../../src/index.js';

/** Captures at once in a test engine (and so its warm contexts). */
export const TEST_CONCURRENCY = 2;

/**
 * An engine for tests: private networks allowed (fixtures live on 127.0.0.1), quiet, and unless
 * the test chose one, a temp directory of its own under the run's root (removed with the run).
 */
export async function createTestEngine(options: CaptureEngineOptions = {}): Promise<CaptureEngine> {
  const tempDir = options.tempDir ?? mkdtempSync(path.join(inject('testTempRoot'), 'engine-'));
  return createCaptureEngine({ allowPrivateNetworks: true, concurrency: TEST_CONCURRENCY, log: silentLogger, ...options, tempDir });
}
