import { setTimeout as wait } from 'node:timers/promises';
import { CaptureError } from './errors/catalogue.js';
import { captureErrors } from './errors/factories.js';

/**
 * One time budget per capture, carried as an AbortSignal into every wait. The signal aborts with a
 * CaptureError: CAPTURE_TIMEOUT when the budget runs out, or the parent's reason (client gone).
 */
export interface Deadline {
  readonly signal: AbortSignal;
  /** Milliseconds left, never negative. */
  remaining(): number;
  /**
   * A sub-budget for a best-effort step (lazy content, banner dismissal, a cosmetic pass): what
   * the step wants, but never more than a share of what is left, so optional work cannot use up
   * a short capture budget and turn a capture into a timeout.
   */
  share(wantedMs: number): number;
  dispose(): void;
}

/** The part of the time left that one best-effort step may take. */
const BEST_EFFORT_SHARE = 0.25;

export function createDeadline(budgetMs: number, parent?: AbortSignal): Deadline {
  const controller = new AbortController();
  const endsAt = Date.now() + budgetMs;
  const timer = setTimeout(() => controller.abort(captureErrors.timedOut(budgetMs)), budgetMs);
  timer.unref?.();
  const onParentAbort = (): void => controller.abort(toAbortReason(parent?.reason));
  if (parent?.aborted) onParentAbort();
  else parent?.addEventListener('abort', onParentAbort, { once: true });
  const remaining = (): number => Math.max(0, endsAt - Date.now());
  return {
    signal: controller.signal,
    remaining,
    share: (wantedMs) => Math.max(0, Math.min(wantedMs, Math.floor(remaining() * BEST_EFFORT_SHARE))),
    dispose: () => {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onParentAbort);
    },
  };
}

/** A client disconnect arrives as a plain abort; keep CaptureErrors, wrap anything else. */
export function toAbortReason(reason: unknown): CaptureError {
  if (reason instanceof CaptureError) return reason;
  return captureErrors.clientGone();
}

/** Throws the signal's reason if it has aborted. */
export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw toAbortReason(signal.reason);
}

/** Rejects with the signal's reason as soon as it aborts; otherwise settles like `promise`. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(toAbortReason(signal.reason));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(toAbortReason(signal.reason));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** Waits `ms`, or less if the signal aborts first (then rejects with its reason). */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await wait(ms, undefined, { signal, ref: false });
  } catch (error) {
    if (signal?.aborted) throw toAbortReason(signal.reason);
    throw error;
  }
}

/**
 * Runs a best-effort step: it gets at most `budgetMs` and can never fail the capture. Only an abort
 * of the capture's own signal propagates.
 */
export async function bestEffort(
  step: (signal: AbortSignal) => Promise<unknown>,
  budgetMs: number,
  signal: AbortSignal,
): Promise<void> {
  const local = createDeadline(budgetMs, signal);
  try {
    await abortable(step(local.signal), local.signal);
  } catch {
    throwIfAborted(signal);
  } finally {
    local.dispose();
  }
}

/** True when `promise` settles (either way) within `ms`; it is never waited for longer. */
export function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const settled = promise.then(
    () => true,
    () => true,
  );
  return Promise.race([settled, late]).finally(() => clearTimeout(timer));
}
