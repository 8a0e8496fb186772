import type { CDPSession } from 'playwright-core';
import { evaluateExpression } from '../shared/evaluate-in-page.js';
import { CONTENT_SELECTOR, pageHasContent } from './blank-shot.js';

/**
 * How long a page with something to show, not presented after the frame waited for, is given to
 * present its first contentful paint. Under load (4 captures at once on 2 cores) one capture in ten
 * had none after that frame, and its shot was decoded to check that it was not blank: 5 CPU-ms and
 * sharp's library and threads loaded into the service (benchmarks/results/binaries.md). A page
 * with nothing to show has no such paint and is not waited for.
 */
const PAINT_WAIT_MS = 100;

/**
 * Lets the page finish drawing before the shot: web fonts loaded (`document.fonts.ready`) and one
 * animation frame, at most `budgetMs`. Without it a JS-rendered page can be taken between two
 * renders (one search page came out with 14 results as png and 10 as webp of the same URL).
 * Fonts start loading when text using them is laid out, so layout is forced first; that costs
 * nothing, where every frame costs Chromium 15-25 CPU-ms to draw and composite in software
 * (benchmarks/results/cpu.md: the two frames that used to start this wait were a tenth of a capture).
 * A PDF waits for the fonts only: printing lays the page out again for paper, and a frame drawn
 * for the screen first was a sixth of the CPU of printing a 3-page invoice (benchmarks/results/documents.md).
 * True when, by then, the document has presented content (Paint Timing's `first-contentful-paint`),
 * or has none to show: a shot taken then is not the frame from before the first paint that the
 * blank check is for.
 * With `hideCaret` (`caret=hide`), first the caret of the focused field is made transparent, as
 * Playwright's screenshots do: it blinks, and two shots of a page would differ by it. The field is
 * found through open shadow roots and same-origin frames; its inline `caret-color: transparent
 * !important` wins over any stylesheet's. Done here, in the call the shot makes anyway.
 */
export async function settleRendering(cdp: CDPSession, budgetMs: number, { frame, hideCaret }: { frame: boolean; hideCaret: boolean }): Promise<boolean> {
  const args = [budgetMs, frame, hideCaret, PAINT_WAIT_MS, CONTENT_SELECTOR] as const;
  return evaluateExpression<boolean>(cdp, `(${settleInPage.toString()})(${JSON.stringify(args)}, ${pageHasContent.toString()})`);
}

/** settleRendering's part in the page; `hasContent` is blank-shot's `pageHasContent`. */
async function settleInPage(
  [budget, waitForFrame, withoutCaret, paintWaitMs, contentSelector]: readonly [number, boolean, boolean, number, string],
  hasContent: (contentSelector: string) => boolean,
): Promise<boolean> {
  if (withoutCaret) {
    let focused = document.activeElement;
    for (let inner = focused; inner; inner = inner.shadowRoot?.activeElement ?? (inner instanceof HTMLIFrameElement ? (inner.contentDocument?.activeElement ?? null) : null)) focused = inner;
    if (focused instanceof HTMLElement || focused instanceof SVGElement) focused.style.setProperty('caret-color', 'transparent', 'important');
  }
  const painted = (): boolean => performance.getEntriesByName('first-contentful-paint').length > 0;
  const settled = (async () => {
    void document.documentElement?.offsetHeight;
    await document.fonts.ready;
    if (!waitForFrame) return;
    await new Promise((resolve) => requestAnimationFrame(resolve));
    if (painted() || !hasContent(contentSelector)) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        observer.disconnect();
        resolve();
      };
      const observer = new PerformanceObserver(() => void (painted() && done()));
      observer.observe({ type: 'paint' });
      setTimeout(done, paintWaitMs);
    });
  })();
  await Promise.race([settled, new Promise((resolve) => setTimeout(resolve, budget))]);
  return painted() || !hasContent(contentSelector);
}
