import type { CaptureContext } from '../plugin-api.js';
import type { WaitOutcome } from '../diagnostics.js';
import { abortable, createDeadline } from '../deadline.js';
import { CaptureError } from '../errors/catalogue.js';
import { captureErrors } from '../errors/factories.js';

/** Share of the time left a wait may take with `best_effort`: the rest is kept for the shot. */
const BEST_EFFORT_WAIT_SHARE = 0.75;
/** Without `best_effort`, a wait ends this much before the capture's budget, so that the refusal names it. */
const NAMED_REFUSAL_MS = 100;

/**
 * Runs one of the waits that say when a page is ready; `name` is its parameter. The wait gets its
 * time limit and a signal that aborts at it. Without `best_effort` it may take the whole budget but
 * a moment, and one that runs out fails the capture (with its own error, or CAPTURE_TIMEOUT naming it).
 * With it, the wait gets three quarters of the time left, and one that runs out is recorded in
 * `ctx.incomplete`: the capture goes on with the page as it is.
 */
export async function pageWait(ctx: CaptureContext, name: string, wait: (timeoutMs: number, signal: AbortSignal) => Promise<unknown>): Promise<void> {
  const timeoutMs = Math.max(1, ctx.params.best_effort ? Math.floor(ctx.remaining() * BEST_EFFORT_WAIT_SHARE) : ctx.remaining() - NAMED_REFUSAL_MS);
  const local = createDeadline(timeoutMs, ctx.signal);
  const started = performance.now();
  try {
    await abortable(wait(timeoutMs, local.signal), local.signal);
    recordWait(ctx, name, 'met', started);
  } catch (error) {
    if (ctx.signal.aborted || !(local.signal.aborted || ranOut(error))) throw error;
    if (!ctx.params.best_effort) throw error instanceof CaptureError && error.code === 'ELEMENT_NOT_FOUND' ? error : captureErrors.waitRanOut(name, timeoutMs);
    recordWait(ctx, name, 'ran_out', started);
    ctx.incomplete.push(name);
  } finally {
    local.dispose();
  }
}

/** Notes how a wait that began at `started` (`performance.now()`) ended, for the diagnostics. */
export function recordWait(ctx: CaptureContext, name: string, outcome: WaitOutcome['outcome'], started: number): void {
  ctx.waits.push({ name, outcome, ms: Math.round(performance.now() - started) });
}

/** A wait's own way of saying it ran out: Playwright's timeout, or no element in time. */
function ranOut(error: unknown): boolean {
  return (error instanceof CaptureError && (error.code === 'ELEMENT_NOT_FOUND' || error.code === 'CAPTURE_TIMEOUT')) || (error instanceof Error && error.name === 'TimeoutError');
}
