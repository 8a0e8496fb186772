import PQueue from 'p-queue';
import type { BrowserLease, ContextPool, PoolStats, PreparedContext, Viewport } from '../core/ports.js';
import type { Logger } from '../core/logger.js';
import { captureErrors } from '../core/error-factories.js';
import { abortable } from '../core/deadline.js';
import { BrowserGenerations, type Generation } from './generations.js';
import { openCapturePage, type CapturePage } from './page-defaults.js';
import { withTimeout, CLOSE_TIMEOUT_MS } from './close-timeout.js';
import type { LaunchOptions } from './launch.js';

export interface BrowserPoolOptions extends LaunchOptions {
  /** Captures running at once. */
  concurrency: number;
  /** Captures waiting for a slot before new ones get SERVICE_BUSY. */
  maxQueue: number;
  /** Contexts kept open and ready so a capture does not wait for one. */
  warmContexts: number;
  /** Relaunch the browser after this many contexts, draining the old one (0 = never). */
  recycleAfter: number;
  /** Per-context options and resources (e.g. an egress proxy session), made for every context. */
  prepareContext?: () => Promise<PreparedContext>;
  log: Logger;
}

interface Slot extends CapturePage {
  prepared: PreparedContext;
  generation: Generation;
}

/**
 * Long-lived Chromium, an isolated context per capture, bounded concurrency and queue, and
 * contexts opened ahead of time so a capture at rest does not wait for one.
 */
export class BrowserPool implements ContextPool {
  private readonly queue: PQueue;
  private readonly generations: BrowserGenerations;
  private readonly warm: Slot[] = [];
  private warming = 0;
  private closed = false;
  /** Aborts captures still waiting in the queue when the pool closes; running ones drain. */
  private readonly closing = new AbortController();
  /** Captures past the queue; p-queue forgets a task once its signal aborts, this set does not. */
  private readonly active = new Set<Promise<void>>();

  constructor(private readonly options: BrowserPoolOptions) {
    this.queue = new PQueue({ concurrency: options.concurrency });
    this.generations = new BrowserGenerations(options);
  }

  /** Launches the browser and fills the warm contexts. */
  async start(): Promise<void> {
    await this.generations.get();
    this.refill();
  }

  get stats(): PoolStats {
    return {
      running: this.active.size,
      queued: this.queue.size,
      warm: this.warm.length,
      contexts: this.generations.openContexts,
      connected: this.generations.connected,
      launches: this.generations.launches,
    };
  }

  /**
   * Runs `task` with a fresh context once a slot is free. The context is closed afterwards whatever
   * happens. Throws SERVICE_BUSY at once when the queue is full.
   */
  async run<T>(signal: AbortSignal, task: (lease: BrowserLease) => Promise<T>, viewport?: Viewport): Promise<T> {
    if (this.closed) throw captureErrors.shuttingDown();
    if (this.queue.size >= this.options.maxQueue) throw captureErrors.queueFull(Math.max(1, Math.ceil(this.queue.size / this.options.concurrency)));
    // The caller gets its result as soon as the task ends; the slot stays taken until the context
    // has closed, so closing never adds to a capture's latency and never overcommits the browser.
    return new Promise<T>((resolve, reject) => {
      let started = false;
      this.queue
        .add(
          async () => {
            started = true;
            const running = (async () => {
              const slot = await abortable(this.take(viewport), signal);
              try {
                resolve(await task({ context: slot.context, page: slot.page, cdp: slot.cdp, attachment: slot.prepared.attachment }));
              } catch (error) {
                reject(error);
              } finally {
                await this.dispose(slot);
                this.refill();
              }
            })().catch(reject);
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

  /**
   * A warm context when one is left, else one opened at the capture's viewport: resizing a page
   * costs Chromium two more protocol calls and a layout.
   */
  private async take(viewport?: Viewport): Promise<Slot> {
    let slot = this.warm.shift();
    while (slot && (!slot.generation.browser.isConnected() || slot.generation.retired || slot.page.isClosed())) {
      await this.dispose(slot);
      slot = this.warm.shift();
    }
    slot ??= await this.openSlot(viewport);
    // Opening a context costs Chromium a renderer launch: while warm ones are left, the
    // replacement waits for this capture's release instead of competing with it for the CPU.
    if (this.warm.length === 0) this.refill();
    return slot;
  }

  private async openSlot(viewport?: Viewport): Promise<Slot> {
    const generation = await this.generations.get();
    const prepared = (await this.options.prepareContext?.()) ?? { options: {}, dispose: async () => undefined };
    generation.open++;
    generation.contextsMade++;
    try {
      const page = await openCapturePage((options) => generation.browser.newContext(options), { ...prepared.options, ...(viewport ? { viewport } : {}) });
      return { ...page, prepared, generation };
    } catch (error) {
      generation.open--;
      await prepared.dispose();
      throw error;
    }
  }

  private async dispose(slot: Slot): Promise<void> {
    // A dead browser took its contexts with it; asking it to close one only waits for a timeout.
    if (slot.generation.browser.isConnected()) await withTimeout(slot.context.close()).catch(() => undefined);
    await slot.prepared.dispose().catch(() => undefined);
    await this.generations.contextClosed(slot.generation);
  }

  /**
   * Keeps contexts ready in the background, as many as `warmContexts` less the captures running or
   * waiting: a warm context only saves a capture at rest the wait for one. Under load every capture
   * opens its own, which costs less: a page left waiting before its first navigation cost Chromium
   * about 90 CPU-ms more per capture than one navigated at once (benchmarks/README.md). Failures
   * only mean the next capture opens its own.
   */
  private refill(): void {
    if (this.closed) return;
    const wanted = this.options.warmContexts - this.active.size - this.queue.size;
    while (this.warm.length + this.warming < wanted) {
      this.warming++;
      this.openSlot()
        .then(async (slot) => {
          if (this.closed) await this.dispose(slot);
          else this.warm.push(slot);
        })
        .catch((error: unknown) => this.options.log.warn({ error: String(error) }, 'could not warm a browser context'))
        .finally(() => this.warming--);
    }
  }

  /** Refuses new work, waits for running captures, closes every context and the browser. */
  async close(): Promise<void> {
    this.closed = true;
    this.generations.refuseLaunches();
    this.closing.abort(captureErrors.shuttingDown());
    await this.queue.onIdle();
    while (this.active.size > 0) await Promise.allSettled([...this.active]);
    await Promise.all(this.warm.splice(0).map((slot) => this.dispose(slot)));
    for (const started = Date.now(); this.warming > 0 && Date.now() - started < CLOSE_TIMEOUT_MS; ) await new Promise((resolve) => setTimeout(resolve, 10));
    await this.generations.close();
  }
}
