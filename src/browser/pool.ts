import type { BrowserLease, ContextPool, LeaseWants, OutboundProxy, PoolStats, PreparedContext } from '../core/ports.js';
import { captureErrors } from '../core/errors/factories.js';
import { abortable } from '../core/deadline.js';
import { BrowserGenerations } from './generations.js';
import { CLOSE_TIMEOUT_MS } from './close-timeout.js';
import type { LaunchOptions } from './launch.js';
import { RendererWatchdog, type WatchdogOptions } from './renderer-watchdog.js';
import { SlotLifecycle, usable, type Slot } from './pool-slot.js';
import { KeptContexts, type ContextReuseOptions } from './kept-contexts.js';
import { FairQueue } from './fair-queue.js';

export type { ContextReuseOptions } from './kept-contexts.js';

export interface BrowserPoolOptions extends LaunchOptions {
  /** Captures running at once. */
  concurrency: number;
  /** Captures waiting for a slot before new ones get SERVICE_BUSY. */
  maxQueue: number;
  /** Contexts kept open and ready so a capture does not wait for one. */
  warmContexts: number;
  /** Relaunch the browser after this many captures, draining the old one (0 = never). */
  recycleAfter: number;
  /** Per-context options and resources (e.g. an egress proxy session), made for every context. */
  prepareContext?: (proxy?: OutboundProxy) => Promise<PreparedContext>;
  /** Keep contexts for later captures with the same reuse key (off when absent). */
  contextReuse?: ContextReuseOptions;
  /** Ceilings on a local browser's processes, read from /proc (off when absent). */
  watchdog?: WatchdogOptions;
}

/** A capture's run on a lent context: its result as soon as the task ends, and the end of the context's release after it. */
interface Lending<T> {
  result: Promise<T>;
  released: Promise<void>;
}

/**
 * Long-lived Chromium, an isolated context per capture, bounded concurrency and queue, and
 * contexts opened ahead of time so a capture at rest does not wait for one.
 */
export class BrowserPool implements ContextPool {
  private readonly queue: FairQueue;
  private readonly generations: BrowserGenerations;
  private readonly slots: SlotLifecycle;
  private readonly warm: Slot[] = [];
  /** With the lent ones, at most `concurrency`. */
  private readonly kept: KeptContexts | undefined;
  /** Captures admitted and not answered yet: running, opening a context or waiting for a slot. */
  private admitted = 0;
  /** Captures holding a context or opening one (a capture that gave up while it opened included). */
  private lent = 0;
  /** Contexts closing in the background (kept ones evicted, warm ones in surplus); `close()` waits for them. */
  private readonly closingSlots = new Set<Promise<void>>();
  private warming = 0;
  /** Captures that found no warm context while one was opening: it goes to them, in order. */
  private readonly warmWaiters: ((slot: Slot | undefined) => void)[] = [];
  private closed = false;
  /** Aborts captures still waiting in the queue when the pool closes; running ones drain. */
  private readonly closing = new AbortController();
  /** Captures past the queue until their context is released; the queue forgets a task once its signal aborts, this set does not. */
  private readonly active = new Set<Promise<void>>();
  private readonly watchdog: RendererWatchdog | undefined;
  /** Since when no capture has held, opened or waited for a context; undefined while one does. */
  private idleSince: number | undefined = Date.now();

  constructor(private readonly options: BrowserPoolOptions) {
    this.queue = new FairQueue(options.concurrency);
    this.generations = new BrowserGenerations(options);
    this.slots = new SlotLifecycle(this.generations, { prepareContext: options.prepareContext, trackOrigins: options.contextReuse !== undefined, log: options.log });
    if (options.contextReuse) this.kept = new KeptContexts(options.contextReuse, (slot) => this.closeLater(slot));
    if (options.watchdog) this.watchdog = new RendererWatchdog(this.generations, () => this.idleSince, options.watchdog, options.log);
  }

  /** Launches the browser and fills the warm contexts. */
  async start(): Promise<void> {
    await this.generations.get();
    this.refill();
    this.watchdog?.start();
  }

  /** Called whenever captures or warm contexts come or go. */
  private noteActivity(): void {
    const idle = this.lent === 0 && this.warming === 0 && this.queue.size === 0;
    this.idleSince = idle ? (this.idleSince ?? Date.now()) : undefined;
  }

  get stats(): PoolStats {
    return {
      running: this.active.size,
      queued: this.queue.size,
      warm: this.warm.length,
      reusable: this.kept?.size ?? 0,
      contexts: this.generations.openContexts,
      connected: this.generations.connected,
      launches: this.generations.launches,
      full: this.isFull(),
      renderersKilled: { ...(this.watchdog?.killed ?? { busy: 0, memory: 0 }) },
      browserMemoryBytes: this.watchdog?.memoryBytes ?? 0,
    };
  }

  /**
   * Runs `task` with a context once a slot is free: a fresh one, or with `contextReuse` one kept
   * for `wants.reuseKey`. Afterwards the context is closed, or reset and kept when the task
   * succeeded and reuse allows it. Throws SERVICE_BUSY at once when the queue is full.
   */
  async run<T>(signal: AbortSignal, task: (lease: BrowserLease) => Promise<T>, wants: LeaseWants = {}): Promise<T> {
    if (this.closed) throw captureErrors.shuttingDown();
    // Captures admitted and not answered yet, running or waiting: a context still closing after its
    // capture answered holds no place, so `maxQueue: 0` runs every capture that finds a free slot.
    if (this.isFull(wants.tenant)) throw captureErrors.queueFull(Math.max(1, Math.ceil(this.queue.size / this.options.concurrency)));
    this.admitted++;
    try {
      // The caller gets its result as soon as the task ends; the slot stays taken until the context
      // has closed, so closing never adds to a capture's latency and never overcommits the browser.
      const lent = new Promise<Lending<T>>((resolve, reject) => {
        this.queue
          .add(
            async () => {
              const lending = this.lend(signal, task, wants);
              resolve(lending);
              await lending.released;
            },
            // The signal only cancels waiting: once running, the capture ends by its own signal
            // (a shutdown lets it finish).
            { tenant: wants.tenant, maxRunning: wants.maxConcurrent, signal: AbortSignal.any([signal, this.closing.signal]) },
          )
          .catch(reject);
      });
      return await (await lent).result;
    } finally {
      // Captures admitted and not answered yet, running or waiting: a context still closing after
      // its capture answered holds no place, so `maxQueue: 0` runs every capture that finds a free slot.
      this.admitted--;
    }
  }

  /**
   * Whether a capture of `tenant` gets SERVICE_BUSY. A tenant with nothing waiting while others'
   * captures fill the queue still gets a place: one tenant's burst must not lock the others out.
   */
  private isFull(tenant?: string): boolean {
    if (this.admitted < this.options.concurrency + this.options.maxQueue) return false;
    return tenant === undefined || this.queue.waitingOf(tenant) > 0 || this.queue.size === 0;
  }

  /** Lends a context to `task`, then closes it, or keeps it for reuse. */
  private lend<T>(signal: AbortSignal, task: (lease: BrowserLease) => Promise<T>, wants: LeaseWants): Lending<T> {
    this.lent++;
    this.noteActivity();
    // Set before `result` settles: what must happen to the context once the task is over.
    let release: Promise<void> = Promise.resolve();
    const result = (async () => {
      const taking = this.take(wants);
      let slot: Slot;
      try {
        slot = await abortable(taking, signal);
      } catch (error) {
        // The capture gave up while its context was opening: that context is closed once open.
        release = taking.then((late) => this.slots.dispose(late), () => undefined);
        throw error;
      }
      let succeeded = false;
      try {
        const value = await task({ context: slot.context, page: slot.page, cdp: slot.cdp, attachment: slot.prepared.attachment, abandon: () => void (slot.abandoned = true) });
        succeeded = true;
        return value;
      } finally {
        // A failed capture may have left anything behind (a wedged page, a script still running).
        // A context of the capture's own proxy serves that capture only.
        release = succeeded && !slot.abandoned ? this.release(slot, wants.proxy ? undefined : wants.reuseKey) : this.slots.reclaim(slot);
      }
    })();
    const released = result
      .then(() => release, () => release)
      .catch((error: unknown) => this.options.log.warn({ error: String(error) }, 'could not release a browser context'))
      .finally(() => {
        this.lent--;
        this.refill();
        this.noteActivity();
      });
    this.active.add(released);
    void released.finally(() => this.active.delete(released));
    return { result, released };
  }

  /**
   * A warm context when one is left, else one opened at the capture's viewport (and for its proxy):
   * resizing a page costs Chromium two more protocol calls and a layout.
   */
  private async take(wants: LeaseWants): Promise<Slot> {
    // A capture with its own proxy needs a context whose every connection leaves through it.
    const shared = wants.proxy === undefined;
    let slot = !shared || wants.reuseKey === undefined ? undefined : await this.kept?.take(wants.reuseKey, (kept) => !this.generations.isDue(kept.generation), (kept) => this.slots.dispose(kept));
    if (shared) slot ??= this.warm.shift() ?? (await this.nextWarming());
    while (slot && !usable(slot)) {
      await this.slots.dispose(slot);
      slot = this.warm.shift();
    }
    if (!slot) {
      // Contexts kept for other keys make room: contexts lent and kept stay within `concurrency`.
      this.kept?.trim(this.options.concurrency - this.lent);
      slot = await this.slots.open(wants.viewport, wants.proxy);
    }
    // Opening a context costs Chromium a renderer launch: while warm ones are left, the
    // replacement waits for this capture's release instead of competing with it for the CPU.
    if (this.warm.length === 0) this.refill();
    slot.uses++;
    slot.generation.captures++;
    return slot;
  }

  /**
   * The context being warmed, when one is and no earlier capture waits for it: it is nearer to
   * ready than one opened now, which would also slow it down (just after start, on a cold machine).
   */
  private nextWarming(): Promise<Slot | undefined> | undefined {
    if (this.warming <= this.warmWaiters.length) return undefined;
    return new Promise((resolve) => this.warmWaiters.push(resolve));
  }

  /** Keeps the context for the next capture with `reuseKey` when reuse allows it, else closes it. */
  private async release(slot: Slot, reuseKey?: string): Promise<void> {
    const kept = this.kept;
    const keep = kept !== undefined && reuseKey !== undefined && !this.closed;
    if (keep && (await kept.keepAfterReset(slot, reuseKey, (error) => this.options.log.warn({ error: String(error) }, 'could not reset a browser context for reuse')))) {
      // This context moves from lent to kept.
      const lentElsewhere = this.lent - 1;
      kept.trim(this.options.concurrency - lentElsewhere);
      // It serves the key's next capture, which a warm context was opened for: lent, kept and warm
      // together stay within `warmContexts`, else a warm renderer idles next to the kept ones.
      for (const surplus of this.warm.splice(Math.max(0, this.options.warmContexts - lentElsewhere - kept.size))) this.closeLater(surplus);
      return;
    }
    await this.slots.dispose(slot);
  }

  /** Closes a context in the background; `close()` waits for it. */
  private closeLater(slot: Slot): void {
    const closing = this.slots.dispose(slot).finally(() => this.closingSlots.delete(closing));
    this.closingSlots.add(closing);
  }

  /**
   * Keeps contexts ready in the background, as many as `warmContexts` less the captures running or
   * waiting and the contexts kept for reuse: a warm context only saves a capture at rest the wait
   * for one. Under load every capture opens its own, which costs less: a page left waiting before
   * its first navigation cost Chromium about 90 CPU-ms more per capture than one navigated at once
   * (benchmarks/results/cpu.md). Failures only mean the next capture opens its own.
   *
   * One at a time: opened together, the first would be ready only when all are, and a capture
   * arriving just after the start would wait for all of them.
   */
  private refill(): void {
    if (this.closed || this.warming > 0) return;
    // A kept context on a retired browser would keep that browser from closing until it expires.
    this.kept?.evictUnusable();
    const wanted = this.options.warmContexts - this.active.size - this.queue.size - (this.kept?.size ?? 0);
    if (this.warm.length >= wanted) return;
    this.warming++;
    this.noteActivity();
    this.slots
      .open()
      .then(
        async (slot) => {
          // A capture admitted before the pool closed still runs on it.
          const waiter = this.warmWaiters.shift();
          if (waiter) waiter(slot);
          else if (this.closed) await this.slots.dispose(slot);
          else this.warm.push(slot);
        },
        (error: unknown) => {
          this.warmWaiters.shift()?.(undefined);
          this.options.log.warn({ error: String(error) }, 'could not warm a browser context');
        },
      )
      .finally(() => {
        this.warming--;
        this.noteActivity();
        this.refill();
      });
  }

  /** Refuses new work, waits for running captures, closes every context and the browser. */
  async close(): Promise<void> {
    this.closed = true;
    this.watchdog?.stop();
    this.generations.refuseLaunches();
    this.closing.abort(captureErrors.shuttingDown());
    await this.queue.onIdle();
    while (this.active.size > 0) await Promise.allSettled([...this.active]);
    this.kept?.evictAll();
    await Promise.all([...this.warm.splice(0).map((slot) => this.slots.dispose(slot)), ...this.closingSlots]);
    for (const started = Date.now(); this.warming > 0 && Date.now() - started < CLOSE_TIMEOUT_MS; ) await new Promise((resolve) => setTimeout(resolve, 10));
    await this.generations.close();
  }
}
