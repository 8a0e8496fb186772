import os from 'node:os';
import path from 'node:path';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createCaptureEngine, silentLogger, type CaptureEngine, type CaptureEngineOptions } from '../../src/index.js';

/** Captures at once in a test engine (and so its warm contexts). */
export const TEST_CONCURRENCY = 2;

/** An engine for tests: private networks allowed (fixtures live on 127.0.0.1), own temp dirs, quiet. */
export async function createTestEngine(options: CaptureEngineOptions = {}): Promise<CaptureEngine> {
  // A directory of its own, unless the test chose one; it goes with the engine, also when the engine fails to start.
  const tempDir = options.tempDir ?? mkdtempSync(path.join(os.tmpdir(), 'capture-engine-test-'));
  const removeOwn = async (): Promise<void> => {
    if (!options.tempDir) await rm(tempDir, { recursive: true, force: true });
  };
  const engine = await createCaptureEngine({ allowPrivateNetworks: true, concurrency: TEST_CONCURRENCY, log: silentLogger, ...options, tempDir }).catch(async (error: unknown) => {
    await removeOwn();
    throw error;
  });
  const close = engine.close.bind(engine);
  engine.close = async () => {
    await close();
    await removeOwn();
  };
  return engine;
}
