import type { Page } from 'playwright-core';

/**
 * Makes lazy content load as it would for a person who scrolled: native lazy images become eager,
 * then the page is scrolled through one viewport per animation frame (so IntersectionObserver and
 * scroll listeners fire), back to the top, and pending images get the rest of the budget.
 */
export async function revealLazyContent(page: Page, budgetMs: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return;
  await page.evaluate(async (budget) => {
    const started = performance.now();
    const left = (): number => budget - (performance.now() - started);
    const frame = (): Promise<void> => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
    for (const element of document.querySelectorAll<HTMLImageElement | HTMLIFrameElement>('img[loading="lazy"], iframe[loading="lazy"]')) {
      element.loading = 'eager';
    }
    const scroller = document.scrollingElement ?? document.documentElement;
    const step = Math.max(200, Math.floor(window.innerHeight * 0.9));
    for (let y = step; y < scroller.scrollHeight && left() > budget * 0.4; y += step) {
      window.scrollTo(0, y);
      await frame();
    }
    window.scrollTo(0, 0);
    await frame();
    const pending = [...document.images].filter((image) => !image.complete);
    const loaded = Promise.all(
      pending.map((image) => new Promise((resolve) => {
        image.addEventListener('load', resolve, { once: true });
        image.addEventListener('error', resolve, { once: true });
      })),
    );
    await Promise.race([loaded, new Promise((resolve) => setTimeout(resolve, Math.max(0, left())))]);
    await frame();
  }, budgetMs);
}
