import type { Page } from 'playwright-core';
import { sleep } from '../../src/core/deadline.js';
import { trackInflight, type InflightTracker } from '../../src/core/page/network-idle.js';

export interface RevealOptions {
  /** Scroll through the page (each step costs a frame); without, only eager media and the wait for images. */
  scroll: boolean;
  /**
   * For a PDF: Chromium prints what `content-visibility` skips on screen, so it is left alone (a
   * style on every element costs a style pass over the whole page).
   */
  printing: boolean;
}

/** How long the network must stay quiet for a scroll step's loads to count as done. */
const STEP_QUIET_MS = 100;
/** The most one scroll step waits for quiet before scrolling on (the bottom may wait longer). */
const STEP_WAIT_MS = 1_000;
/**
 * At the bottom, long enough for a debounced "load more" handler (commonly 100-250 ms) to have
 * started its request, and for what was started to finish.
 */
const BOTTOM_QUIET_MS = 300;
/** How often images still loading are looked at. */
const IMAGE_POLL_MS = 25;

/**
 * Does what a person does to see a whole page, within `budgetMs`: sections with
 * `content-visibility: auto` are made to paint (off screen they are skipped, even by a full-page
 * screenshot), native lazy media become eager, then the page is scrolled down a viewport at a time.
 * After each step the network gets a moment to go quiet; at the bottom it gets the rest of the
 * budget, and if the page grew (infinite lists, "load more on scroll") scrolling goes on, up to
 * `maxHeight`. Then back to the top, and images still loading get what is left.
 */
export async function revealLazyContent(page: Page, budgetMs: number, maxHeight: number, signal: AbortSignal, { scroll, printing }: RevealOptions): Promise<void> {
  const endsAt = Date.now() + budgetMs;
  const left = (): number => Math.max(0, endsAt - Date.now());
  // Without scrolling, lazy media made eager, then waited for.
  if (!scroll) {
    await page.evaluate(prepareForFullPage, printing);
    return imagesLoaded(page, left, signal);
  }
  const tracker = trackInflight(page);
  try {
    await page.evaluate(recordScrollPositions, SCROLL_POSITIONS);
    const viewportHeight = await page.evaluate(prepareForFullPage, printing);
    const step = Math.max(200, Math.floor(viewportHeight * 0.9));
    let y = 0;
    while (left() > 0 && !signal.aborted) {
      const height = Math.min(await pageHeight(page), maxHeight);
      if (y + viewportHeight < height) {
        y += step;
        await page.evaluate(scrollToAndPaint, y);
        // A step that started no request (most of a page) costs one frame, not a quiet window.
        if (tracker.inflight > 0) await quiet(tracker, STEP_QUIET_MS, Math.min(STEP_WAIT_MS, left()), signal);
        continue;
      }
      // At the bottom: let what the last steps started finish, then see whether the page grew.
      await quiet(tracker, BOTTOM_QUIET_MS, left(), signal);
      if ((await pageHeight(page)) <= height || height >= maxHeight) break;
    }
    await page.evaluate(restoreScrollPositions, SCROLL_POSITIONS);
    await imagesLoaded(page, left, signal);
  } finally {
    tracker.detach();
  }
}

/** Resolves once no request has been in flight for `quietMs`, or after `capMs`; never rejects. */
async function quiet(tracker: InflightTracker, quietMs: number, capMs: number, signal: AbortSignal): Promise<void> {
  if (capMs <= 0) return;
  await tracker.waitForIdle(0, quietMs, AbortSignal.any([signal, AbortSignal.timeout(capMs)])).catch(() => undefined);
}

function pageHeight(page: Page): Promise<number> {
  return page.evaluate(() => (document.scrollingElement ?? document.documentElement).scrollHeight);
}

/** In the page: paint what content-visibility skips (unless printing), load lazy media now; returns the viewport height. */
function prepareForFullPage(printing: boolean): number {
  if (!printing) {
    const style = document.createElement('style');
    style.dataset.captureEngine = 'full-page';
    style.textContent = '* { content-visibility: visible !important; }';
    (document.head ?? document.documentElement).append(style);
  }
  for (const element of document.querySelectorAll<HTMLImageElement | HTMLIFrameElement>('img[loading="lazy"], iframe[loading="lazy"]')) {
    element.loading = 'eager';
  }
  return window.innerHeight;
}

/** Where the page keeps the scroll positions from before the reveal, out of the page's way. */
const SCROLL_POSITIONS = 'capture-engine.scroll-positions';

/**
 * In the page: where the window and every scrolled or scrollable element stand, so the reveal can
 * put them back (a side menu that follows the window's scroll must show what it showed).
 */
function recordScrollPositions(key: string): void {
  const elements: [Element, number, number][] = [];
  for (const element of document.body?.querySelectorAll('*') ?? []) {
    if (element.scrollTop !== 0 || element.scrollLeft !== 0 || element.scrollHeight > element.clientHeight || element.scrollWidth > element.clientWidth) {
      elements.push([element, element.scrollTop, element.scrollLeft]);
    }
  }
  Object.defineProperty(window, Symbol.for(key), { value: { x: window.scrollX, y: window.scrollY, elements }, configurable: true });
}

/**
 * In the page: the window back where it was, a frame for the page's scroll handlers (which may move
 * inner elements), then the inner elements back where they were, and a frame for what that starts.
 */
async function restoreScrollPositions(key: string): Promise<void> {
  const frame = (): Promise<void> => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
  const record = (window as unknown as Record<symbol, { x: number; y: number; elements: [Element, number, number][] } | undefined>)[Symbol.for(key)];
  delete (window as unknown as Record<symbol, unknown>)[Symbol.for(key)];
  window.scrollTo(record?.x ?? 0, record?.y ?? 0);
  await frame();
  if (!record?.elements.length) return;
  for (const [element, top, left] of record.elements) {
    if (element.scrollTop !== top || element.scrollLeft !== left) element.scrollTo(left, top);
  }
  await frame();
}

/** In the page: scroll, then wait for a frame so IntersectionObserver and scroll listeners run. */
function scrollToAndPaint(y: number): Promise<void> {
  window.scrollTo(0, y);
  return new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
}

/**
 * Images still loading get what is left of the budget. Looked at from here: a page without scripts
 * (`javascript=false`) runs no listener or timer, the engine's included.
 */
async function imagesLoaded(page: Page, left: () => number, signal: AbortSignal): Promise<void> {
  while (left() > 0 && !signal.aborted && (await page.evaluate(() => [...document.images].some((image) => !image.complete)))) {
    await sleep(Math.min(IMAGE_POLL_MS, left()), signal).catch(() => undefined);
  }
}
