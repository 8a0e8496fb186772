import type { PhaseTimings } from '../core/phases.js';

export interface RequestTiming {
  /** The capture's wait for a browser (`queue`) and its phases, when one ran (also one that failed). */
  phases?: PhaseTimings;
  /** How the result cache answered (`HIT`, `MISS`, `STALE`). */
  cache?: string;
  /** The whole request, from its parameters to its answer. */
  totalMs: number;
}

/**
 * `Server-Timing` (W3C Server Timing, which browsers' devtools show) of a capture request:
 * `queue;dur=1.2, prepare;dur=3.4, ..., cache;desc="HIT", total;dur=250.1`.
 */
export function serverTiming({ phases = {}, cache, totalMs }: RequestTiming): string {
  const metrics = Object.entries(phases).map(([phase, ms]) => `${phase};dur=${ms.toFixed(1)}`);
  if (cache !== undefined) metrics.push(`cache;desc="${cache}"`);
  metrics.push(`total;dur=${totalMs.toFixed(1)}`);
  return metrics.join(', ');
}
