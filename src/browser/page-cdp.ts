import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { captureErrors } from '../core/errors/factories.js';

/** What Playwright's own DevTools session on a page answers: its server-side `CRSession`. */
interface PlaywrightPageSession {
  send(method: string, params?: object): Promise<unknown>;
}

/**
 * Commands that change nothing another session could depend on, sent through Playwright's own
 * session on the page. An evaluation is one when its value comes back by value (no remote object,
 * which would belong to the session), a screenshot when it is of the viewport as drawn (a clip or
 * the page beyond the viewport changes the page's emulation for the while, which is per session).
 */
function isStateless(method: string, params: Record<string, unknown>): boolean {
  switch (method) {
    case 'Runtime.evaluate':
      return params.returnByValue === true && params.contextId === undefined && params.uniqueContextId === undefined;
    case 'Page.captureScreenshot':
      return params.clip === undefined && params.captureBeyondViewport === undefined;
    case 'Page.getLayoutMetrics':
    case 'Runtime.getHeapUsage':
    case 'Runtime.terminateExecution':
    case 'Page.crash':
      return true;
    default:
      return false;
  }
}

type Listener = (payload: never) => void;

/**
 * The CDP session a capture's stages talk to its page through. Playwright drives every page
 * through a DevTools session of its own; one more, attached for the engine, cost Chromium and the
 * Node process about 3 CPU-ms a capture, 2 % of a plain shot's throughput (benchmarks/results/binaries.md,
 * "Playwright's own session"). So the stateless commands a plain capture sends (its looks at the
 * page, its shot) go through Playwright's session, reached through the in-process connection's
 * `toImpl` (Playwright's internals, pinned by the engine's version range and checked by
 * test/browser/page-cdp.test.ts); events, emulation, streams and anything else go through a
 * session of the engine's own, attached on first use, and so does every command after it. Without
 * that bridge (a remote browser) every command goes through the engine's own.
 */
export class PageCdp {
  private own: Promise<CDPSession> | undefined;

  private constructor(
    private readonly context: BrowserContext,
    private readonly page: Page,
    private readonly playwright: PlaywrightPageSession | undefined,
  ) {}

  /** A CDPSession for `page`, which attaches a session of its own only when a command or an event needs one. */
  static open(context: BrowserContext, page: Page): CDPSession {
    return asSession(new PageCdp(context, page, playwrightSession(page)));
  }

  /**
   * A CDPSession for `page` that sends everything through a session of the engine's own, attached
   * before it returns. A page of a begin-frame browser needs it before it navigates: attached on the
   * first frame sent, while the page navigated, it left 1 in about 110 pages that never drew a frame
   * (measured on first videos, each of a fresh browser: 4 of 450; attached before, 0 of 550).
   */
  static async openAttached(context: BrowserContext, page: Page): Promise<CDPSession> {
    const cdp = new PageCdp(context, page, undefined);
    await cdp.session();
    return asSession(cdp);
  }

  /** Whether stateless commands go through Playwright's session (false for a remote browser). */
  get sharesPlaywrightSession(): boolean {
    return this.playwright !== undefined;
  }

  /** Whether the engine's own session has been attached. */
  get attached(): boolean {
    return this.own !== undefined;
  }

  /**
   * Once the engine's own session is attached, everything goes through it: what was set there
   * (emulation above all, which is per session: a shot through Playwright's session would not be
   * drawn at the scale emulated on the engine's) holds for what follows.
   */
  async send(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    if (this.playwright && this.own === undefined && isStateless(method, params)) return this.playwright.send(method, params).catch(asClientError);
    const own = await this.session();
    return (own.send as (method: string, params?: object) => Promise<unknown>)(method, params);
  }

  /** Events come through the engine's own session: one is attached for them, if none was. */
  on(event: string, listener: Listener): this {
    void this.session().then((own) => own.on(event as never, listener), () => undefined);
    return this;
  }

  addListener(event: string, listener: Listener): this {
    return this.on(event, listener);
  }

  once(event: string, listener: Listener): this {
    const once: Listener = (payload) => {
      this.off(event, once);
      listener(payload);
    };
    return this.on(event, once);
  }

  off(event: string, listener: Listener): this {
    void this.own?.then((own) => own.off(event as never, listener), () => undefined);
    return this;
  }

  removeListener(event: string, listener: Listener): this {
    return this.off(event, listener);
  }

  async detach(): Promise<void> {
    const own = this.own;
    this.own = undefined;
    if (own) await (await own).detach();
  }

  private session(): Promise<CDPSession> {
    this.own ??= this.context.newCDPSession(this.page);
    return this.own;
  }
}

/** A CDPSession in all that the engine calls on it; this is the file's only cast. */
const asSession = (cdp: PageCdp): CDPSession => cdp as unknown as CDPSession;

/**
 * Playwright's own session on `page`, when the engine runs Playwright in its own process: the
 * in-process connection's `toImpl` gives the server-side page, whose Chromium delegate holds it.
 */
function playwrightSession(page: Page): PlaywrightPageSession | undefined {
  try {
    const connection = (page as unknown as { _connection?: { toImpl?: (object: unknown) => unknown } })._connection;
    const server = connection?.toImpl?.(page) as { delegate?: { _mainFrameSession?: { _client?: PlaywrightPageSession } } } | undefined;
    const session = server?.delegate?._mainFrameSession?._client;
    return typeof session?.send === 'function' ? session : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What the engine's error sorting (to-capture-error.ts) expects of a failed command, which
 * Playwright's server says otherwise than its client: a command on a page whose renderer crashed
 * fails as the crash itself (the server knows before the page's `crash` event has crossed to the
 * client, which is how a capture hears of it otherwise), one on a closed page in the client's words.
 */
function asClientError(error: unknown): never {
  const type = (error as { type?: string } | undefined)?.type;
  if (type === 'crashed') throw captureErrors.rendererCrashed(error);
  if (error instanceof Error && error.message === '' && type === 'closed') throw new Error('Target page, context or browser has been closed');
  throw error;
}
