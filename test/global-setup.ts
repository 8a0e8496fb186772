import { chmodSync, mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** One directory for every test engine's temporary files, removed when the run ends. */
    testTempRoot: string;
  }
}

export default function setup(project: TestProject): () => Promise<void> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'capture-engine-tests-'));
  // Chromium runs as its own user when the tests run as root: it must be able to pass through.
  chmodSync(root, 0o711);
  project.provide('testTempRoot', root);
  return () => rm(root, { recursive: true, force: true });
}
