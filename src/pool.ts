import PQueue from 'p-queue';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type CDPSession, type Page } from 'playwright-core';
import { CaptureError } from './errors.js';
import { abortable } from './deadline.js';
import { chromiumArgs } from './chromium-path.js';
import { writeEgressPreferences } from './egress/index.js';
import { mkdtemp, readlink, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from './types.js';

export interface BrowserPoolOptions {
  executablePath: string;
  /** Extra Chromium flags. */
  args: readonly string[];
  /** Captures running at once. */
  concurrency: number;
  /** Captures waiting for a slot before new ones get SERVICE_BUSY. */
  maxQueue: number;
  /** Contexts kept open and ready so a capture does not wait for one. */
  warmContexts: number;
  /** Relaunch the browser after this many contexts, draining the old one (0 = never). */
  recycleAfter: number;
  /** Connect to a remote browser (`ws://...`) instead of launching one. */
  connectEndpoint?: string;
  /** Where the browser profile lives while it runs. */
  tempDir: string;
  /** Per-context options and resources (e.g. an egress proxy session), made for every context. */
  prepareContext?: () => Promise<PreparedContext>;
  log: Logger;
}

export interface PreparedContext {
  options: BrowserContextOptions;
  /** Anything the engine wants back with the lease (e.g. the egress session). */
  attachment?: unknown;
  dispose(): Promise<void>;
}

export interface Lease {
  readonly context: BrowserContext;
  readonly page: Page;
  /** A CDP session on `page`, opened ahead of time with the context. */
  readonly cdp: CDPSession;
  readonly attachment: unknown;
  /** Closes the context; always call it, once. */
  release(): Promise<void>;
}

interface Slot {
  context: BrowserContext;
  page: Page;
  cdp: CDPSession;
  prepared: PreparedContext;
  generation: Generation;
}

interface Generation {
  browser: Browser;
  /** Removes what the browser left on disk (its profile); idempotent. */
  dispose: () => Promise<void>;
  contextsMade: number;
  open: number;
  retired: boolean;
}

const BASE_CONTEXT_OPTIONS: BrowserContextOptions = {
  // The default viewport of SPEC.md, so the common request needs no resize.
  viewport: { width: 1920, height: 1080 },
  deviceScaleFactor: 1,
  serviceWorkers: 'block',
  acceptDownloads: false,
  ignoreHTTPSErrors: false,
  javaScriptEnabled: true,
};

/** A wedged renderer must not hold a capture slot: closing its context gives up after this. */
const CLOSE_TIMEOUT_MS = 5_000;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Pages must not be able to stall a capture with dialogs: a modal blocks the page's main thread until
 * answered, and an `alert` loop would block it for ever. Playwright's auto-dismiss stays the backstop.
 */
const INIT_SCRIPT = `(() => {
  const quiet = { alert: () => undefined, confirm: () => false, prompt: () => null, print: () => undefined };
  for (const [name, value] of Object.entries(quiet)) Object.defineProperty(window, name, { value, writable: false, configurable: false });
})();`;

/**
 * Long-lived Chromium, an isolated context per capture, bounded concurrency and queue. A crashed
 * browser is relaunched behind one promise (a lock); after `recycleAfter` contexts a fresh browser
 * takes new captures while the old one drains.
 */
export class BrowserPool {
  private readonly queue: PQueue;
  private current: Generation | undefined;
  private launching: Promise<Generation> | undefined;
  private readonly warm: Slot[] = [];
  private warming = 0;
  private closed = false;
  /** Aborts captures still waiting in the queue when the pool closes; running ones drain. */
  private readonly closing = new AbortController();
  /** Captures past the queue; p-queue forgets a task once its signal aborts, this set does not. */
  private readonly active = new Set<Promise<void>>();

  constructor(private readonly options: BrowserPoolOptions) {
    this.queue = new PQueue({ concurrency: options.concurrency });
  }

  /** Launches the browser and fills the warm contexts. */
  async start(): Promise<void> {
    await this.generation();
    this.refill();
  }

  /** Counts for health checks and leak tests: `contexts` includes the warm ones. */
  get stats(): { running: number; queued: number; warm: number; contexts: number; connected: boolean } {
    return {
      running: this.active.size,
      queued: this.queue.size,
      warm: this.warm.length,
      contexts: this.current?.open ?? 0,
      connected: this.current?.browser.isConnected() ?? false,
    };
  }

  /**
   * Runs `task` with a fresh context once a slot is free. The context is closed afterwards whatever
   * happens. Throws SERVICE_BUSY at once when the queue is full.
   */
  async run<T>(signal: AbortSignal, task: (lease: Lease) => Promise<T>): Promise<T> {
    if (this.closed) throw new CaptureError('SERVICE_BUSY', 'The engine is shutting down', { headers: { 'Retry-After': '5' } });
    if (this.queue.size >= this.options.maxQueue) {
      throw new CaptureError('SERVICE_BUSY', 'Capture queue is full, retry shortly', {
        headers: { 'Retry-After': String(this.retryAfterSeconds()) },
      });
    }
    // The caller gets its result as soon as the task ends; the slot stays taken until the context
    // has closed, so closing never adds to a capture's latency and never overcommits the browser.
    return new Promise<T>((resolve, reject) => {
      let started = false;
      this.queue
        .add(
          async () => {
            started = true;
            const running = (async () => {
              const lease = await abortable(this.lease(), signal);
              try {
                resolve(await task(lease));
              } catch (error) {
                reject(error);
              } finally {
                await lease.release();
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

  private retryAfterSeconds(): number {
    return Math.max(1, Math.ceil(this.queue.size / Math.max(1, this.options.concurrency)));
  }

  private async lease(): Promise<Lease> {
    let slot = this.warm.shift();
    while (slot && (!slot.generation.browser.isConnected() || slot.generation.retired || slot.page.isClosed())) {
      await this.dispose(slot);
      slot = this.warm.shift();
    }
    slot ??= await this.openSlot();
    // Opening a context costs Chromium a renderer launch: while warm ones are left, the
    // replacement waits for this capture's release instead of competing with it for the CPU.
    if (this.warm.length === 0) this.refill();
    const taken = slot;
    let released = false;
    return {
      context: taken.context,
      page: taken.page,
      cdp: taken.cdp,
      attachment: taken.prepared.attachment,
      release: async () => {
        if (released) return;
        released = true;
        await this.dispose(taken);
        this.refill();
      },
    };
  }

  private async openSlot(): Promise<Slot> {
    const generation = await this.generation();
    const prepared = (await this.options.prepareContext?.()) ?? { options: {}, dispose: async () => undefined };
    generation.open++;
    generation.contextsMade++;
    try {
      const context = await generation.browser.newContext({ ...BASE_CONTEXT_OPTIONS, ...prepared.options });
      await context.addInitScript(INIT_SCRIPT);
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      return { context, page, cdp, prepared, generation };
    } catch (error) {
      generation.open--;
      await prepared.dispose();
      throw error;
    }
  }

  private async dispose(slot: Slot): Promise<void> {
    // A dead browser took its contexts with it; asking it to close one only waits for a timeout.
    if (slot.generation.browser.isConnected()) await withTimeout(slot.context.close(), CLOSE_TIMEOUT_MS).catch(() => undefined);
    await slot.prepared.dispose().catch(() => undefined);
    slot.generation.open--;
    if (slot.generation.retired && slot.generation.open === 0) {
      await withTimeout(slot.generation.browser.close(), CLOSE_TIMEOUT_MS).catch(() => undefined);
      await slot.generation.dispose();
    }
  }

  /** Keeps `warmContexts` ready in the background; failures only mean the next capture opens its own. */
  private refill(): void {
    if (this.closed) return;
    while (this.warm.length + this.warming < this.options.warmContexts) {
      this.warming++;
      this.openSlot()
        .then(async (slot) => {
          if (this.closed) await this.dispose(slot);
          else this.warm.push(slot);
        })
        .catch((error: unknown) => this.options.log.warn('could not warm a browser context', { error: String(error) }))
        .finally(() => this.warming--);
    }
  }

  /** The browser for new contexts: launched once, relaunched after a crash, recycled after N contexts. */
  private async generation(): Promise<Generation> {
    const current = this.current;
    const recycle = this.options.recycleAfter > 0 && current !== undefined && current.contextsMade >= this.options.recycleAfter;
    if (current && current.browser.isConnected() && !recycle) return current;
    if (current && recycle) this.retire(current);
    this.launching ??= this.launch().finally(() => {
      this.launching = undefined;
    });
    return this.launching;
  }

  private retire(generation: Generation): void {
    generation.retired = true;
    if (this.current === generation) this.current = undefined;
    if (generation.open === 0) void generation.browser.close().catch(() => undefined);
  }

  private async launch(): Promise<Generation> {
    if (this.closed) throw new CaptureError('SERVICE_BUSY', 'The engine is shutting down', { headers: { 'Retry-After': '5' } });
    const { browser, dispose } = this.options.connectEndpoint
      ? { browser: await chromium.connect(this.options.connectEndpoint), dispose: async () => undefined }
      : await this.launchLocal();
    const generation: Generation = { browser, dispose, contextsMade: 0, open: 0, retired: false };
    browser.on('disconnected', () => {
      void dispose();
      if (this.current === generation && !this.closed) {
        this.current = undefined;
        this.options.log.warn('browser disconnected; the next capture relaunches it');
      }
    });
    this.current = generation;
    return generation;
  }

  /**
   * A local Chromium on a profile of its own: some policies (WebRTC limited to proxied UDP) only
   * take effect as profile preferences, which capture contexts inherit.
   */
  private async launchLocal(): Promise<{ browser: Browser; dispose: () => Promise<void> }> {
    const profile = await mkdtemp(path.join(this.options.tempDir, 'profile-'));
    let removal: Promise<void> | undefined;
    const dispose = (): Promise<void> => (removal ??= removeProfile(profile));
    try {
      await writeEgressPreferences(profile);
      const persistent = await chromium.launchPersistentContext(profile, {
        executablePath: this.options.executablePath,
        args: chromiumArgs(this.options.args),
        headless: true,
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      });
      const browser = persistent.browser();
      if (!browser) throw new Error('Chromium started without a browser handle');
      return { browser, dispose };
    } catch (error) {
      await dispose();
      throw error;
    }
  }

  /** Refuses new work, waits for running captures, closes every context and the browser. */
  async close(): Promise<void> {
    this.closed = true;
    this.closing.abort(new CaptureError('SERVICE_BUSY', 'The engine is shutting down', { headers: { 'Retry-After': '5' } }));
    await this.queue.onIdle();
    while (this.active.size > 0) await Promise.allSettled([...this.active]);
    await Promise.all(this.warm.splice(0).map((slot) => this.dispose(slot)));
    for (const started = Date.now(); this.warming > 0 && Date.now() - started < CLOSE_TIMEOUT_MS; ) await new Promise((resolve) => setTimeout(resolve, 10));
    await this.launching?.catch(() => undefined);
    const last = this.current;
    this.current = undefined;
    if (last) {
      await withTimeout(last.browser.close(), CLOSE_TIMEOUT_MS).catch(() => undefined);
      await last.dispose();
    }
  }
}

/**
 * Removes a browser profile and the directory of Chromium's singleton socket that it links to:
 * Chromium removes that one itself on a clean exit, but a crashed or killed browser leaves it in
 * the system temp directory.
 */
async function removeProfile(profile: string): Promise<void> {
  const socket = await readlink(path.join(profile, 'SingletonSocket')).catch(() => undefined);
  const socketDir = socket && path.dirname(socket);
  if (socketDir && path.basename(socketDir).startsWith('org.chromium.Chromium.')) await rm(socketDir, { recursive: true, force: true }).catch(() => undefined);
  await rm(profile, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
}
