import type { Logger } from '../core/telemetry/logger.js';
import type { SlotLifecycle, Slot } from './pool-slot.js';

/** What the pool learns from its warm contexts. */
export interface WarmHooks {
  /** Once true, a context that finishes opening with no capture waiting for it is closed. */
  closed: () => boolean;
  /** A context started or finished opening. */
  changed: () => void;
  /** A context finished opening, or failed to: the pool may want another. */
  settled: () => void;
  log: Logger;
}

/**
 * Contexts opened ahead of time so that a capture at rest does not wait for one, and the hand-over
 * of the one still opening to a capture that finds none ready.
 */
export class WarmContexts {
  private readonly ready: Slot[] = [];
  private opening = 0;
  /** Captures that found no warm context while one was opening: it goes to them, in order. */
  private readonly waiters: ((slot: Slot | undefined) => void)[] = [];

  constructor(
    private readonly slots: SlotLifecycle,
    private readonly hooks: WarmHooks,
  ) {}

  /** Contexts ready to lend. */
  get size(): number {
    return this.ready.length;
  }

  /** Whether a context is opening. */
  get busy(): boolean {
    return this.opening > 0;
  }

  /** A ready context, oldest first. */
  shift(): Slot | undefined {
    return this.ready.shift();
  }

  /**
   * The context being warmed, when one is and no earlier capture waits for it: it is nearer to
   * ready than one opened now, which would also slow it down (just after start, on a cold machine).
   */
  next(): Promise<Slot | undefined> | undefined {
    if (this.opening <= this.waiters.length) return undefined;
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Takes out the ready contexts past the first `keep`, for the caller to close. */
  surplus(keep: number): Slot[] {
    return this.ready.splice(Math.max(0, keep));
  }

  /**
   * Opens one more context in the background when fewer than `wanted` are ready. Failures only
   * mean the next capture opens its own.
   *
   * One at a time: opened together, the first would be ready only when all are, and a capture
   * arriving just after the start would wait for all of them.
   */
  fill(wanted: number): void {
    if (this.opening > 0 || this.ready.length >= wanted) return;
    this.opening++;
    this.hooks.changed();
    this.slots
      .open()
      .then(
        async (slot) => {
          // A capture admitted before the pool closed still runs on it.
          const waiter = this.waiters.shift();
          if (waiter) waiter(slot);
          else if (this.hooks.closed()) await this.slots.dispose(slot);
          else this.ready.push(slot);
        },
        (error: unknown) => {
          this.waiters.shift()?.(undefined);
          this.hooks.log.warn({ error: String(error) }, 'could not warm a browser context');
        },
      )
      .finally(() => {
        this.opening--;
        this.hooks.changed();
        this.hooks.settled();
      });
  }

  /** Waits up to `timeoutMs` for a context still opening: once the pool is closed, it closes itself. */
  async opened(timeoutMs: number): Promise<void> {
    for (const started = Date.now(); this.opening > 0 && Date.now() - started < timeoutMs; ) await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
