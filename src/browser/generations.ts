import type { Browser } from 'playwright-core';
import { captureErrors } from '../core/errors/factories.js';
import { launchBrowser, type LaunchOptions } from './launch.js';
import { settlesWithin } from '../core/deadline.js';
import { CLOSE_TIMEOUT_MS } from './close-timeout.js';
import { killTree } from './process-tree.js';

/** One launched browser, the captures it served and the contexts it has open. */
export interface Generation {
  browser: Browser;
  /** Removes what the browser left on disk (its profile); idempotent. */
  dispose: () => Promise<void>;
  /** Captures its contexts were lent to (a reused context counts each time). */
  captures: number;
  open: number;
  retired: boolean;
  /** The local browser's process, when known. */
  pid?: number;
  /** Its processes hold more memory than the engine allows: it serves no more contexts and drains. */
  overMemory: boolean;
  /** The User-Agent its contexts are opened with, when the engine sets one. */
  userAgent?: string;
}

export interface GenerationOptions extends LaunchOptions {
  /** Relaunch the browser after this many captures, draining the old one (0 = never). */
  recycleAfter: number;
}

/**
 * The browser new contexts are made in: launched once, relaunched after a crash behind one
 * promise (a lock), and replaced after `recycleAfter` captures while the old one drains.
 */
export class BrowserGenerations {
  private current: Generation | undefined;
  private launching: Promise<Generation> | undefined;
  private closed = false;
  /** Browsers launched or connected so far. */
  launches = 0;
  /** Browsers still running: the current one and retired ones draining. */
  readonly live = new Set<Generation>();

  constructor(private readonly options: GenerationOptions) {}

  get connected(): boolean {
    return this.current?.browser.isConnected() ?? false;
  }

  get openContexts(): number {
    return this.current?.open ?? 0;
  }

  /** Whether `generation` has served its `recycleAfter` captures: its contexts serve no more. */
  isDue(generation: Generation): boolean {
    return generation.overMemory || (this.options.recycleAfter > 0 && generation.captures >= this.options.recycleAfter);
  }

  async get(): Promise<Generation> {
    const current = this.current;
    const recycle = current !== undefined && this.isDue(current);
    if (current && current.browser.isConnected() && !recycle) return current;
    if (current && recycle) this.retire(current);
    this.launching ??= this.launch().finally(() => {
      this.launching = undefined;
    });
    return this.launching;
  }

  /** A context of `generation` closed; a retired generation closes with its last context. */
  async contextClosed(generation: Generation): Promise<void> {
    generation.open--;
    if (generation.retired && generation.open === 0) await this.shutDown(generation);
  }

  private retire(generation: Generation): void {
    generation.retired = true;
    if (this.current === generation) this.current = undefined;
    if (generation.open === 0) void this.shutDown(generation);
  }

  /**
   * Closes a browser and removes its profile. A browser that does not close in time (a renderer
   * that never answers can hold it up) is killed with all its processes.
   */
  private async shutDown(generation: Generation): Promise<void> {
    if (!(await settlesWithin(generation.browser.close(), CLOSE_TIMEOUT_MS)) && generation.pid !== undefined) {
      this.options.log.warn({ pid: generation.pid }, 'the browser did not close in time; killing it');
      killTree(generation.pid);
    }
    this.live.delete(generation);
    await generation.dispose();
  }

  private async launch(): Promise<Generation> {
    if (this.closed) throw captureErrors.shuttingDown();
    const { browser, dispose, pid } = await launchBrowser(this.options);
    this.launches++;
    let userAgent: string | undefined;
    try {
      userAgent = this.options.userAgent?.(await chromiumUserAgent(browser));
    } catch (error) {
      if (!(await settlesWithin(browser.close(), CLOSE_TIMEOUT_MS)) && pid !== undefined) killTree(pid);
      await dispose();
      throw error;
    }
    const generation: Generation = { browser, dispose, pid, captures: 0, open: 0, retired: false, overMemory: false, userAgent };
    this.live.add(generation);
    browser.on('disconnected', () => {
      this.live.delete(generation);
      void dispose();
      if (this.current === generation && !this.closed) {
        this.current = undefined;
        this.options.log.warn({}, 'browser disconnected; the next capture relaunches it');
      }
    });
    this.current = generation;
    return generation;
  }

  /** From now on no browser is launched (a pool that closes drains what runs). */
  refuseLaunches(): void {
    this.closed = true;
  }

  /** Closes every browser still running (after a launch under way) and removes their profiles. */
  async close(): Promise<void> {
    this.closed = true;
    await this.launching?.catch(() => undefined);
    this.current = undefined;
    await Promise.all([...this.live].map((generation) => this.shutDown(generation)));
  }
}

/** Chromium's own User-Agent (the headless shell's says HeadlessChrome), asked of the browser itself. */
async function chromiumUserAgent(browser: Browser): Promise<string> {
  const session = await browser.newBrowserCDPSession();
  try {
    return (await session.send('Browser.getVersion')).userAgent;
  } finally {
    await session.detach().catch(() => undefined);
  }
}
