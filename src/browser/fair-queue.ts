/** How a task waits: for whom, how many of that tenant's may run at once, and what cancels the wait. */
export interface FairQueueEntry {
  /** Whose task it is; tasks without one share one tenant. */
  tenant?: string;
  /** Most of this tenant's tasks running at once (absent or 0: only the queue's concurrency). */
  maxRunning?: number;
  /** Aborting it while the task waits rejects with its reason; once running, the task is on its own. */
  signal?: AbortSignal;
}

interface Waiter {
  readonly cap: number;
  readonly start: () => void;
  readonly cancel: () => void;
}

interface Tenant {
  readonly waiting: Waiter[];
  running: number;
  /** When it last started a task (a counter): the least recently served tenant goes first. */
  served: number;
}

const SHARED = '';

/**
 * Runs at most `concurrency` tasks at once and hands each freed slot to the tenant served least
 * recently among those with a task waiting and under its cap: round-robin between tenants, first
 * come first served within one. One tenant's burst then delays another's capture by at most one
 * of its own, where a single FIFO queue makes it wait behind the whole burst.
 */
export class FairQueue {
  private readonly tenants = new Map<string, Tenant>();
  private running = 0;
  private waitingCount = 0;
  private serial = 0;
  private idle: Array<() => void> = [];

  constructor(private readonly concurrency: number) {}

  /** Tasks waiting for a slot. */
  get size(): number {
    return this.waitingCount;
  }

  /** Tasks of `tenant` waiting for a slot. */
  waitingOf(tenant: string | undefined): number {
    return this.tenants.get(tenant ?? SHARED)?.waiting.length ?? 0;
  }

  add<T>(task: () => Promise<T>, { tenant = SHARED, maxRunning = 0, signal }: FairQueueEntry = {}): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const state = this.tenantOf(tenant);
      const onAbort = (): void => waiter.cancel();
      const waiter: Waiter = {
        cap: maxRunning > 0 ? maxRunning : Infinity,
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          this.running++;
          state.running++;
          state.served = ++this.serial;
          task()
            .then(resolve, reject)
            .finally(() => {
              this.running--;
              state.running--;
              this.forgetIfDone(tenant, state);
              this.dispatch();
            });
        },
        cancel: () => {
          const at = state.waiting.indexOf(waiter);
          if (at < 0) return;
          state.waiting.splice(at, 1);
          this.waitingCount--;
          this.forgetIfDone(tenant, state);
          reject(signal?.reason);
          this.dispatch();
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      state.waiting.push(waiter);
      this.waitingCount++;
      this.dispatch();
    });
  }

  /** Resolves once nothing runs and nothing waits. */
  onIdle(): Promise<void> {
    if (this.running === 0 && this.waitingCount === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private dispatch(): void {
    while (this.running < this.concurrency) {
      const next = this.nextTenant();
      if (!next) break;
      const waiter = next.waiting.shift() as Waiter;
      this.waitingCount--;
      waiter.start();
    }
    if (this.running === 0 && this.waitingCount === 0) for (const resolve of this.idle.splice(0)) resolve();
  }

  private nextTenant(): Tenant | undefined {
    let best: Tenant | undefined;
    for (const state of this.tenants.values()) {
      const head = state.waiting[0];
      if (!head || state.running >= head.cap) continue;
      if (!best || state.served < best.served) best = state;
    }
    return best;
  }

  private tenantOf(tenant: string): Tenant {
    let state = this.tenants.get(tenant);
    if (!state) {
      state = { waiting: [], running: 0, served: 0 };
      this.tenants.set(tenant, state);
    }
    return state;
  }

  /** A tenant with nothing running or waiting is forgotten: when it comes back it is first in line. */
  private forgetIfDone(tenant: string, state: Tenant): void {
    if (state.running === 0 && state.waiting.length === 0) this.tenants.delete(tenant);
  }
}
