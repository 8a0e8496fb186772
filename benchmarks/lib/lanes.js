// `concurrency` lanes that each run one capture after another while `more(started, t0)` says so:
// the bursts of the suites that measure throughput.

import { performance } from 'node:perf_hooks';

/** The first line of an error, short enough for a table's notes. */
export const errMsg = (err) => String(err?.message || err).split('\n')[0].slice(0, 300);

/**
 * Runs `capture(i)` (i: how many started before it) on `concurrency` lanes while `more` allows;
 * answers how many completed and failed, the first failure, and the time to the last end.
 */
export async function runLanes({ concurrency, more, capture }) {
  let started = 0;
  let completed = 0;
  let errors = 0;
  let firstError = null;
  let lastEnd = 0;
  const t0 = performance.now();
  const lane = async () => {
    while (more(started, t0)) {
      const index = started++;
      try {
        await capture(index);
        completed++;
      } catch (err) {
        errors++;
        firstError ??= errMsg(err);
      }
      lastEnd = performance.now();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return { completed, errors, firstError, elapsedMs: lastEnd - t0 };
}
