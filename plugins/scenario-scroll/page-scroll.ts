import type { CDPSession } from 'playwright-core';

export interface ScrollState {
  /** Where the page is scrolled to, in CSS px. */
  y: number;
  /** How far it can scroll now. */
  max: number;
}

/**
 * Scrolls the page to `y` (or only measures it, when `y` is null) in one round trip. `instant`
 * overrides a page's CSS `scroll-behavior: smooth`, which would otherwise animate on its own clock.
 */
export async function scrollPage(cdp: CDPSession, y: number | null): Promise<ScrollState> {
  const { result, exceptionDetails } = await cdp.send('Runtime.evaluate', {
    expression: `((y) => {
      const root = document.scrollingElement || document.documentElement;
      if (y !== null) window.scrollTo({ top: y, left: 0, behavior: 'instant' });
      return [window.scrollY, Math.max(0, root.scrollHeight - window.innerHeight)];
    })(${y === null ? 'null' : Math.round(y)})`,
    returnByValue: true,
  });
  if (exceptionDetails) throw new Error(`Scrolling the page failed: ${exceptionDetails.text}`);
  const [at, max] = result.value as [number, number];
  return { y: Math.round(at), max: Math.round(max) };
}
