import type { LeaseWants } from '../core/ports.js';
import { captureErrors } from '../core/errors/factories.js';
import { FairQueue } from './fair-queue.js';
import type { Lent } from './context-lending.js';

/**
 * The pool's door: at most `concurrency` captures hold a slot, at most `maxQueue` more wait for one
 * (SERVICE_BUSY past that), and free slots go round-robin between tenants.
 */
export class PoolAdmission {
  private readonly queue: FairQueue;
  /** Captures admitted and not answered yet: running, opening a context or waiting for a slot. */
  private admitted = 0;

  constructor(
    private readonly limits: { concurrency: number; maxQueue: number },
    /** Aborts captures still waiting when the pool closes; running ones drain. */
    private readonly closing: AbortSignal,
  ) {
    this.queue = new FairQueue(limits.concurrency);
  }

  /** Captures waiting for a slot. */
  get waiting(): number {
    return this.queue.size;
  }

  /**
   * Whether a capture of `tenant` gets SERVICE_BUSY. A tenant with nothing waiting while others'
   * captures fill the queue still gets a place: one tenant's burst must not lock the others out.
   */
  isFull(tenant?: string): boolean {
    if (this.admitted < this.limits.concurrency + this.limits.maxQueue) return false;
    return tenant === undefined || this.queue.waitingOf(tenant) > 0 || this.queue.size === 0;
  }

  /**
   * Runs `lend` once a slot is free and answers as soon as its capture has; the slot stays taken
   * until the context is released, so closing never adds to a capture's latency and never
   * overcommits the browser. Throws SERVICE_BUSY at once when the queue is full.
   */
  async admit<T>(signal: AbortSignal, wants: LeaseWants, lend: () => Promise<Lent<T>>): Promise<Lent<T>> {
    // A context still closing after its capture answered holds no place, so `maxQueue: 0` runs
    // every capture that finds a free slot.
    if (this.isFull(wants.tenant)) throw captureErrors.queueFull(Math.max(1, Math.ceil(this.queue.size / this.limits.concurrency)));
    this.admitted++;
    try {
      return await new Promise<Lent<T>>((resolve, reject) => {
        this.queue
          .add(
            async () => {
              const lending = lend();
              resolve(lending);
              await (await lending).released;
            },
            // The signal only cancels waiting: once running, the capture ends by its own signal
            // (a shutdown lets it finish).
            { tenant: wants.tenant, maxRunning: wants.maxConcurrent, signal: AbortSignal.any([signal, this.closing]) },
          )
          .catch(reject);
      });
    } finally {
      this.admitted--;
    }
  }

  /** Resolves once nothing runs and nothing waits. */
  onIdle(): Promise<void> {
    return this.queue.onIdle();
  }
}
