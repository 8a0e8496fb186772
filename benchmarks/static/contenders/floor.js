// Contenders `floor` and `floor-fast`: raw Playwright, one warm browser, a fresh context per capture.
// Playwright's page.screenshot() has no WebP, so the floor's WebP is Chromium's own encoder
// through CDP (Page.captureScreenshot), which is the cheapest way Chromium can produce one.
// `floor-fast` takes every shot that way, with `optimizeForSpeed` (Chromium's fastest encoder
// settings): the cheapest capture raw Playwright can make, the bar of the throughput targets.
// Both drive the engine's binary (lib/chromium.js). `floor-fast-shell` is `floor-fast` driving
// Chromium's headless shell whatever the others drive.
// A unit of the static benchmark (see index.js): { setup(), capture: { floor, 'floor-fast' }, close() }.

import { CHROMIUM_PATH, LAUNCH_ARGS } from '../../lib/chromium.js';
import { thumbnail } from './finish.js';

/** `suffix` names the contenders of a floor on another binary (`-shell`). */
export async function floor({ executablePath = CHROMIUM_PATH, suffix = '' } = {}) {
  const { chromium, devices } = await import('playwright-core');
  let browser;

  /** A context as the job wants it: the device's descriptor or the viewport, images refused or not. */
  const contextFor = async ({ width, height, scale, device, blockImages }) => {
    const context = await browser.newContext(device ? devices[device] : { viewport: { width, height }, deviceScaleFactor: scale });
    if (blockImages) await context.route('**/*', (route) => (route.request().resourceType() === 'image' ? route.abort() : route.fallback()));
    return context;
  };

  const capture = async (job) => thumbnail(await shoot(job), job);
  const shoot = async (job) => {
    const { url, format, fullPage, selector, quality } = job;
    const context = await contextFor(job);
    try {
      const page = await context.newPage();
      await page.goto(url, { waitUntil: 'domcontentloaded' });
      if (format === 'webp') {
        const cdp = await context.newCDPSession(page);
        const { data } = await cdp.send('Page.captureScreenshot', { format: 'webp', quality });
        return Buffer.from(data, 'base64');
      }
      const options = { type: format === 'jpg' ? 'jpeg' : 'png', quality: format === 'jpg' ? quality : undefined };
      if (selector) return await page.locator(selector).first().screenshot(options);
      return await page.screenshot({ ...options, fullPage });
    } finally {
      await context.close();
    }
  };

  /** The shot through CDP only: viewport, the whole page, or the element's box, beyond the viewport when needed. */
  const fast = async (job) => thumbnail(await shootFast(job), job);
  const shootFast = async (job) => {
    const { url, format, width, fullPage, selector, device, quality } = job;
    const context = await contextFor(job);
    try {
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      // A mobile device's page is shot at its CSS size unless the clip asks for its scale (as Playwright's screenshot does).
      const mobile = device ? devices[device] : undefined;
      await page.goto(url, { waitUntil: 'domcontentloaded' });
      // Right after the load event Chromium may have no frame coming; captureScreenshot then
      // waits for one for ever (1 capture in ~10 here). One animation frame makes sure one is.
      await page.evaluate('new Promise((resolve) => requestAnimationFrame(resolve))');
      let clip;
      if (selector) clip = await page.locator(selector).first().boundingBox();
      else if (fullPage) {
        const { cssContentSize } = await cdp.send('Page.getLayoutMetrics');
        clip = { x: 0, y: 0, width, height: Math.ceil(cssContentSize.height) };
      } else if (mobile) clip = { x: 0, y: 0, ...mobile.viewport };
      const type = format === 'jpg' ? 'jpeg' : format;
      const { data } = await cdp.send('Page.captureScreenshot', {
        format: type,
        ...(type === 'png' ? {} : { quality }),
        optimizeForSpeed: true,
        ...(clip ? { clip: { ...clip, scale: mobile?.deviceScaleFactor ?? 1 }, captureBeyondViewport: true } : {}),
      });
      return Buffer.from(data, 'base64');
    } finally {
      await context.close();
    }
  };

  return {
    async setup() {
      browser = await chromium.launch({ executablePath, args: LAUNCH_ARGS, headless: true });
      return { version: browser.version() };
    },
    capture: { [`floor${suffix}`]: capture, [`floor-fast${suffix}`]: fast },
    async close() {
      await browser?.close();
    },
  };
}
