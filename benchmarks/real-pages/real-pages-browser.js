// Raw playwright-core for the real-pages benchmark, on one browser launched as the floor
// launches it (static/contenders/floor.js), a fresh context per page load:
// - floorCapture(): the floor's full page, `goto(url, {waitUntil: 'load'})` then
//   `screenshot({fullPage: true})`, Playwright's defaults otherwise (30 s per step);
// - pageFacts(): what the page is, measured in a load of its own: the elements whose computed
//   position is fixed or sticky once loaded, and its real scroll height once every
//   `content-visibility` is forced visible and the page is scrolled to the bottom until its height
//   holds for three rounds.
/* global document, window, getComputedStyle, requestAnimationFrame */

import { CHROMIUM_PATH, LAUNCH_ARGS } from '../lib/chromium.js';

export async function launchChromium() {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: LAUNCH_ARGS, headless: true });
}

async function inContext(browser, viewport, use) {
  const context = await browser.newContext({ viewport });
  try {
    return await use(await context.newPage());
  } finally {
    await context.close();
  }
}

/** { buffer, ms }: ms from opening the context to the PNG, as static/contenders/floor.js times it. */
export async function floorCapture(browser, url, viewport) {
  const started = performance.now();
  const buffer = await inContext(browser, viewport, async (page) => {
    await page.goto(url, { waitUntil: 'load' });
    return page.screenshot({ fullPage: true });
  });
  return { buffer, ms: performance.now() - started };
}

/** In the page: scrolls to the bottom until the height holds; returns it. */
async function scrollToBottom() {
  const frames = () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  const height = () => Math.max(document.scrollingElement.scrollHeight, document.body?.scrollHeight ?? 0);
  await document.fonts.ready;
  let last = -1;
  for (let i = 0, same = 0; i < 300 && same < 3; i++) {
    window.scrollTo(0, height());
    await frames();
    await new Promise((resolve) => setTimeout(resolve, 50));
    same = height() === last ? same + 1 : 0;
    last = height();
  }
  return last;
}

const countFixedSticky = () =>
  [...document.querySelectorAll('*')].filter((el) => /^(fixed|sticky)$/.test(getComputedStyle(el).position)).length;

/** { fixedSticky, referenceHeight } of the page at `url`, in a page load of its own. */
export async function pageFacts(browser, url, viewport, { timeoutMs = 120_000 } = {}) {
  return inContext(browser, viewport, async (page) => {
    page.setDefaultTimeout(timeoutMs);
    await page.goto(url, { waitUntil: 'load' });
    const fixedSticky = await page.evaluate(countFixedSticky);
    await page.addStyleTag({ content: '* { content-visibility: visible !important }' });
    const referenceHeight = await page.evaluate(scrollToBottom);
    return { fixedSticky, referenceHeight };
  });
}
