import PQueue from 'p-queue';
import type { BrowserLease, ContextPool, LeaseWants, PoolStats, PreparedContext, Viewport } from '../core/ports.js';
import { captureErrors } from '../core/errors/factories.js';
import { abortable, settlesWithin } from '../core/deadline.js';
import { BrowserGenerations, type Generation } from './generations.js';
import { openCapturePage, type CapturePage } from './open-capture-page.js';
import { CLOSE_TIMEOUT_MS } from './close-timeout.js';
import type { LaunchOptions } from './launch.js';
import { RendererWatchdog, type WatchdogOptions } from './renderer-watchdog.js';

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
  prepareContext?: () => Promise<PreparedContext>;
  /** Keep contexts for later captures with the same reuse key (off when absent). */
  contextReuse?: ContextReuseOptions;
  /** Ceilings on a local browser's processes, read from /proc (off when absent). */
  watchdog?: WatchdogOptions;
}

export interface ContextReuseOptions {
  /** Captures one context serves before it is closed. */
  maxUses: number;
  /** How long a kept context waits for its next capture before it is closed. */
  idleMs: number;
}

interface Slot extends CapturePage {
  prepared: PreparedContext;
  generation: Generation;
  /** Captures this context has been lent to. */
  uses: number;
  /** Origins its pages loaded (only tracked when contexts are reused): a reset clears their storage. */
  origins: Set<string>;
  /** Its capture could not clean up after itself: it is reclaimed by force. */
  abandoned: boolean;
  /** Its page's renderer crashed or was killed (the watchdog kills busy idle ones). */
  crashed: boolean;
}

/** A context kept after a capture, waiting for the next one with its key. */
interface KeptSlot {
  slot: Slot;
  key: string;
  expiry: NodeJS.Timeout;
}

/**
 * Long-lived Chromium, an isolated context per capture, bounded concurrency and queue, and
 * contexts opened ahead of time so a capture at rest does not wait for one.
 */
export class BrowserPool implements ContextPool {
  private readonly queue: PQueue;
  private readonly generations: BrowserGenerations;
  private readonly warm: Slot[] = [];
  /** Oldest first; with the lent ones, at most `concurrency`. */
  private readonly kept: KeptSlot[] = [];
  /** Captures admitted and not answered yet: running, opening a context or waiting for a slot. */
  private admitted = 0;
  /** Captures holding a context or opening one (a capture that gave up while it opened included). */
  private lent = 0;
  /** Contexts closing in the background (kept ones evicted, warm ones in surplus); `close()` waits for them. */
  private readonly closingSlots = new Set<Promise<void>>();
  private warming = 0;
  private closed = false;
  /** Aborts captures still waiting in the queue when the pool closes; running ones drain. */
  private readonly closing = new AbortController();
  /** Captures past the queue; p-queue forgets a task once its signal aborts, this set does not. */
  private readonly active = new Set<Promise<void>>();
  private readonly watchdog: RendererWatchdog | undefined;
  /** Since when no capture has held, opened or waited for a context; undefined while one does. */
  private idleSince: number | undefined = Date.now();

  constructor(private readonly options: BrowserPoolOptions) {
    this.queue = new PQueue({ concurrency: options.concurrency });
    this.generations = new BrowserGenerations(options);
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
      reusable: this.kept.length,
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
    if (this.isFull()) throw captureErrors.queueFull(Math.max(1, Math.ceil(this.queue.size / this.options.concurrency)));
    this.admitted++;
    // The caller gets its result as soon as the task ends; the slot stays taken until the context
    // has closed, so closing never adds to a capture's latency and never overcommits the browser.
    return new Promise<T>((resolveCapture, rejectCapture) => {
      let answered = false;
      const answer = (): boolean => {
        if (answered) return false;
        answered = true;
        this.admitted--;
        return true;
      };
      const resolve = (value: T): void => void (answer() && resolveCapture(value));
      const reject = (error: unknown): void => void (answer() && rejectCapture(error));
      let started = false;
      this.queue
        .add(
          async () => {
            started = true;
            const running = this.lend(signal, task, wants, resolve, reject).catch(reject);
            this.active.add(running);
            await running.finally(() => this.active.delete(running));
          },
          { signal: AbortSignal.any([signal, this.closing.signal]) },
        )
        // The signal only cancels waiting: once running, the capture ends by its own signal (a
        // shutdown lets it finish).
        .catch((error: unknown) => {
          if (!started) reject(error);
        });
    });
  }

  private isFull(): boolean {
    return this.admitted >= this.options.concurrency + this.options.maxQueue;
  }

  /** Lends a context to `task`, then closes it or keeps it for reuse. Settles the capture as soon as `task` ends. */
  private async lend<T>(signal: AbortSignal, task: (lease: BrowserLease) => Promise<T>, wants: LeaseWants, resolve: (value: T) => void, reject: (error: unknown) => void): Promise<void> {
    this.lent++;
    this.noteActivity();
    try {
      const taking = this.take(wants);
      let slot: Slot;
      try {
        slot = await abortable(taking, signal);
      } catch (error) {
        reject(error);
        // The capture gave up while its context was opening: that context is closed once open.
        const late = await taking.catch(() => undefined);
        if (late) await this.dispose(late);
        return;
      }
      let succeeded = false;
      const abandon = (): void => void (slot.abandoned = true);
      try {
        resolve(await task({ context: slot.context, page: slot.page, cdp: slot.cdp, attachment: slot.prepared.attachment, abandon }));
        succeeded = true;
      } catch (error) {
        reject(error);
      } finally {
        // A failed capture may have left anything behind (a wedged page, a script still running).
        if (succeeded && !slot.abandoned) await this.release(slot, wants.reuseKey);
        else await this.reclaim(slot);
      }
    } finally {
      this.lent--;
      this.refill();
      this.noteActivity();
    }
  }

  /**
   * A warm context when one is left, else one opened at the capture's viewport: resizing a page
   * costs Chromium two more protocol calls and a layout.
   */
  private async take(wants: LeaseWants): Promise<Slot> {
    let slot = wants.reuseKey === undefined ? undefined : await this.takeKept(wants.reuseKey);
    slot ??= this.warm.shift();
    while (slot && !usable(slot)) {
      await this.dispose(slot);
      slot = this.warm.shift();
    }
    if (!slot) {
      // Contexts kept for other keys make room: contexts lent and kept stay within `concurrency`.
      this.trimKept(this.options.concurrency - this.lent);
      slot = await this.openSlot(wants.viewport);
    }
    // Opening a context costs Chromium a renderer launch: while warm ones are left, the
    // replacement waits for this capture's release instead of competing with it for the CPU.
    if (this.warm.length === 0) this.refill();
    slot.uses++;
    slot.generation.captures++;
    return slot;
  }

  /** The context most recently kept for `key` (its renderer is the likeliest to still be up). */
  private async takeKept(key: string): Promise<Slot | undefined> {
    for (let entry = this.kept.findLast((kept) => kept.key === key); entry; entry = this.kept.findLast((kept) => kept.key === key)) {
      this.unkeep(entry);
      if (usable(entry.slot) && !this.generations.isDue(entry.slot.generation)) return entry.slot;
      await this.dispose(entry.slot);
    }
    return undefined;
  }

  /** Keeps the context for the next capture with `reuseKey` when reuse allows it, else closes it. */
  private async release(slot: Slot, reuseKey?: string): Promise<void> {
    const reuse = this.options.contextReuse;
    if (reuse && reuseKey !== undefined && !this.closed && slot.uses < reuse.maxUses && usable(slot)) {
      try {
        await resetSlot(slot);
        if (!this.closed) return this.keep(slot, reuseKey, reuse);
      } catch (error) {
        this.options.log.warn({ error: String(error) }, 'could not reset a browser context for reuse');
      }
    }
    await this.dispose(slot);
  }

  private keep(slot: Slot, key: string, reuse: ContextReuseOptions): void {
    const entry: KeptSlot = { slot, key, expiry: setTimeout(() => this.evict(entry), reuse.idleMs) };
    entry.expiry.unref();
    this.kept.push(entry);
    // This context moves from lent to kept.
    const lentElsewhere = this.lent - 1;
    this.trimKept(this.options.concurrency - lentElsewhere);
    // It serves the key's next capture, which a warm context was opened for: lent, kept and warm
    // together stay within `warmContexts`, else a warm renderer idles next to the kept ones.
    this.trimWarm(this.options.warmContexts - lentElsewhere - this.kept.length);
  }

  /** Closes the oldest kept contexts until at most `max` are left. */
  private trimKept(max: number): void {
    for (let oldest = this.kept[0]; oldest && this.kept.length > Math.max(0, max); oldest = this.kept[0]) this.evict(oldest);
  }

  /** Closes warm contexts until at most `max` are left. */
  private trimWarm(max: number): void {
    for (const slot of this.warm.splice(Math.max(0, max))) this.closeLater(slot);
  }

  /** Takes `entry` out of the kept contexts; false when it was no longer there. */
  private unkeep(entry: KeptSlot): boolean {
    const index = this.kept.indexOf(entry);
    if (index < 0) return false;
    this.kept.splice(index, 1);
    clearTimeout(entry.expiry);
    return true;
  }

  private evict(entry: KeptSlot): void {
    if (this.unkeep(entry)) this.closeLater(entry.slot);
  }

  /** Closes a context in the background; `close()` waits for it. */
  private closeLater(slot: Slot): void {
    const closing = this.dispose(slot).finally(() => this.closingSlots.delete(closing));
    this.closingSlots.add(closing);
  }

  private async openSlot(viewport?: Viewport): Promise<Slot> {
    const generation = await this.generations.get();
    const prepared = (await this.options.prepareContext?.()) ?? { options: {}, dispose: async () => undefined };
    generation.open++;
    try {
      const page = await openCapturePage((options) => generation.browser.newContext(options), { ...prepared.options, ...(viewport ? { viewport } : {}) });
      const origins = new Set<string>();
      if (this.options.contextReuse) page.context.on('request', (request) => origins.add(new URL(request.url()).origin));
      const slot: Slot = { ...page, prepared, generation, uses: 0, origins, abandoned: false, crashed: false };
      page.page.once('crash', () => void (slot.crashed = true));
      return slot;
    } catch (error) {
      generation.open--;
      await prepared.dispose();
      throw error;
    }
  }

  /** Closes a context; one that does not close in time (a renderer that stopped answering) has its renderer crashed. */
  private async dispose(slot: Slot): Promise<void> {
    // A dead browser took its contexts with it; asking it to close one only waits for a timeout.
    if (slot.generation.browser.isConnected() && !(await settlesWithin(slot.context.close(), CLOSE_TIMEOUT_MS))) {
      this.options.log.warn({}, 'a browser context did not close; crashing its renderer');
      await settlesWithin(slot.cdp.send('Page.crash'), TERMINATE_TIMEOUT_MS);
    }
    await this.forget(slot);
  }

  /**
   * Closes the context of a capture that failed or could not clean up after itself, whatever its
   * pages are doing: a script spinning on the page is stopped first, since a renderer busy in
   * JavaScript does not answer `close`. Stopping a script and crashing a renderer are among the
   * protocol calls Chromium answers even while the page's main thread is busy.
   */
  private async reclaim(slot: Slot): Promise<void> {
    if (slot.generation.browser.isConnected()) await settlesWithin(slot.cdp.send('Runtime.terminateExecution'), TERMINATE_TIMEOUT_MS);
    await this.dispose(slot);
  }

  /** What is left once a context is closed: its per-context resources and its generation's count. */
  private async forget(slot: Slot): Promise<void> {
    await slot.prepared.dispose().catch(() => undefined);
    await this.generations.contextClosed(slot.generation);
  }

  /**
   * Keeps contexts ready in the background, as many as `warmContexts` less the captures running or
   * waiting and the contexts kept for reuse: a warm context only saves a capture at rest the wait
   * for one. Under load every capture opens its own, which costs less: a page left waiting before
   * its first navigation cost Chromium about 90 CPU-ms more per capture than one navigated at once
   * (benchmarks/results/cpu.md). Failures only mean the next capture opens its own.
   */
  private refill(): void {
    if (this.closed) return;
    // A kept context on a retired browser would keep that browser from closing until it expires.
    for (const entry of this.kept.filter((kept) => !usable(kept.slot))) this.evict(entry);
    const wanted = this.options.warmContexts - this.active.size - this.queue.size - this.kept.length;
    while (this.warm.length + this.warming < wanted) {
      this.warming++;
      this.noteActivity();
      this.openSlot()
        .then(async (slot) => {
          if (this.closed) await this.dispose(slot);
          else this.warm.push(slot);
        })
        .catch((error: unknown) => this.options.log.warn({ error: String(error) }, 'could not warm a browser context'))
        .finally(() => {
          this.warming--;
          this.noteActivity();
        });
    }
  }

  /** Refuses new work, waits for running captures, closes every context and the browser. */
  async close(): Promise<void> {
    this.closed = true;
    this.watchdog?.stop();
    this.generations.refuseLaunches();
    this.closing.abort(captureErrors.shuttingDown());
    await this.queue.onIdle();
    while (this.active.size > 0) await Promise.allSettled([...this.active]);
    for (const entry of [...this.kept]) this.evict(entry);
    await Promise.all([...this.warm.splice(0).map((slot) => this.dispose(slot)), ...this.closingSlots]);
    for (const started = Date.now(); this.warming > 0 && Date.now() - started < CLOSE_TIMEOUT_MS; ) await new Promise((resolve) => setTimeout(resolve, 10));
    await this.generations.close();
  }
}

/** How long a protocol call that stops or crashes a renderer may take. */
const TERMINATE_TIMEOUT_MS = 1_000;

/** Whether a context can still serve a capture: its browser is up and current, its page open. */
function usable(slot: Slot): boolean {
  return slot.generation.browser.isConnected() && !slot.generation.retired && !slot.page.isClosed() && !slot.crashed;
}

/**
 * A kept renderer holds its earlier pages' garbage until V8 collects it, which under steady reuse
 * it put off: about 0.8 MB a simple page, so renderers grew from 95 to about 150 MB over 40
 * captures. Collected at reset once the heap is past this, they stayed near 115 MB at no CPU cost
 * above the noise; collected at every reset, they cost 5-9 CPU-ms a capture more
 * (benchmarks/results/cpu.md).
 */
const KEPT_HEAP_LIMIT_BYTES = 8 * 1024 * 1024;

/**
 * Clears what a capture left on its context before the next capture with the same key: the page
 * leaves for about:blank (the site's renderer usually stays up, which is the point), other pages
 * close, the renderer's garbage is collected past a limit, cookies go, and so does the storage of
 * every origin its pages loaded (local storage, IndexedDB, Cache Storage); the egress session
 * forgets its failures.
 */
async function resetSlot(slot: Slot): Promise<void> {
  await slot.page.goto('about:blank', { timeout: CLOSE_TIMEOUT_MS });
  for (const page of slot.context.pages()) if (page !== slot.page) await page.close();
  const { usedSize } = await slot.cdp.send('Runtime.getHeapUsage');
  if (usedSize > KEPT_HEAP_LIMIT_BYTES) await slot.cdp.send('HeapProfiler.collectGarbage');
  await slot.context.clearCookies();
  for (const origin of slot.origins) {
    if (origin !== 'null') await slot.cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' });
  }
  slot.origins.clear();
  slot.prepared.reset?.();
}
