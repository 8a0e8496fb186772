// Waiting until a process tree is quiet: background work left by one measurement (a browser
// closing, the engine refilling its warm contexts, Chromium starting) must not run during the next.

import { setTimeout as sleep } from 'node:timers/promises';
import { HAS_PROC, treeTicks } from './process-tree.js';

/**
 * Waits until the tree of `root` used at most `maxTicks` of CPU over `windowMs`, or `timeoutMs`
 * passed. Returns how long it waited (ms).
 */
export async function waitQuiet(root, { windowMs = 150, maxTicks = 2, timeoutMs = 3000 } = {}) {
  if (!HAS_PROC) return 0;
  const t0 = Date.now();
  let before = treeTicks(root);
  while (Date.now() - t0 < timeoutMs) {
    await sleep(windowMs);
    const now = treeTicks(root);
    if (now - before <= maxTicks) break;
    before = now;
  }
  return Date.now() - t0;
}
