import type { Page } from 'playwright-core';

/**
 * Lets the page finish drawing before the shot: web fonts loaded (`document.fonts.ready`) and two
 * animation frames, at most `budgetMs`. Without it a JS-rendered page can be taken between two
 * renders (one search page came out with 14 results as png and 10 as webp of the same URL).
 */
export async function settleRendering(page: Page, budgetMs: number): Promise<void> {
  await page.evaluate(async (budget) => {
    const twoFrames = (): Promise<unknown> => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    const settled = (async () => {
      // Fonts start loading when text using them is laid out: let a frame pass before asking.
      await twoFrames();
      await document.fonts.ready;
      await twoFrames();
    })();
    await Promise.race([settled, new Promise((resolve) => setTimeout(resolve, budget))]);
  }, budgetMs);
}
