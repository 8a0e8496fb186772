import type { BrowserContext, BrowserContextOptions, CDPSession, Page } from 'playwright-core';
import { DEFAULTS } from '../core/defaults.js';
import { RECORD_CHANGES_SCRIPT } from '../core/page/page-changes.js';
import { HOLD_RESIZE_SCRIPT } from '../core/page/resize-hold.js';
import { PageCdp } from './page-cdp.js';

const BASE_CONTEXT_OPTIONS: BrowserContextOptions = {
  // The default viewport of the capture parameters, so the common request needs no resize.
  viewport: { ...DEFAULTS.viewport },
  deviceScaleFactor: 1,
  serviceWorkers: 'block',
  acceptDownloads: false,
  ignoreHTTPSErrors: false,
  javaScriptEnabled: true,
};

/**
 * Pages must not be able to stall a capture with dialogs: a modal blocks the page's main thread until
 * answered, and an `alert` loop would block it for ever. Playwright's auto-dismiss stays the backstop.
 * The quiet functions stay writable, as the natives are: a page that puts its own in their place
 * (pdf.js's viewer assigns `window.print` at start-up, in strict code) must not fail.
 */
const INIT_SCRIPT = `(() => {
  const quiet = { alert: () => undefined, confirm: () => false, prompt: () => null, print: () => undefined };
  for (const [name, value] of Object.entries(quiet)) Object.defineProperty(window, name, { value, writable: true, configurable: true, enumerable: true });
})();`;

/**
 * The page events captures listen to while they run (the navigation's hops, the settle step's
 * loads). Playwright asks its server for an event when a page gains its first listener and stops
 * when it loses its last, a message each way: held for the page's life, a capture costs none.
 */
const ignore = (): void => undefined;

export interface CapturePage {
  context: BrowserContext;
  page: Page;
  cdp: CDPSession;
}

/**
 * A fresh, hardened context with its page and a CDP session on it, ready for one capture.
 * `ownSession`: the session is the engine's own, attached before this returns (see `PageCdp.openAttached`).
 */
export async function openCapturePage(newContext: (options: BrowserContextOptions) => Promise<BrowserContext>, options: BrowserContextOptions, ownSession = false): Promise<CapturePage> {
  const context = await newContext({ ...BASE_CONTEXT_OPTIONS, ...options });
  try {
    await context.addInitScript(INIT_SCRIPT + RECORD_CHANGES_SCRIPT + HOLD_RESIZE_SCRIPT);
    const page = await context.newPage();
    page.on('request', ignore).on('response', ignore).on('requestfinished', ignore).on('requestfailed', ignore);
    const cdp = ownSession ? await PageCdp.openAttached(context, page) : PageCdp.open(context, page);
    return { context, page, cdp };
  } catch (error) {
    await context.close().catch(() => undefined);
    throw error;
  }
}
