import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Waits for a state rather than for a time: polls `condition` until it holds, and fails with
 * `what` if it still does not after `timeoutMs` (a generous bound, never an assertion on speed).
 */
export async function until(condition: () => boolean | Promise<boolean>, what = 'the awaited state', timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await sleep(20);
  }
}
