// Contender `browserless` (microlink): one warm browser from createBrowser(), a context per capture
// (browser.createContext() ... ctx.destroyContext()), as its README recommends.
// Its launch flags are its own defaults plus the closed-network flags of lib/chromium.js. Per
// capture: waitUntil 'domcontentloaded' and adblock false to do the same work as the floor (its
// defaults are waitUntil 'auto' = load + networkidle2 + a retry while the screenshot is white, and
// Ghostery ad blocking), viewport at the case's deviceScaleFactor (1 unless `dpr2`; its default
// device is a 2x laptop), `element` for the `selector` case.
// A unit of the static benchmark (see index.js).

import { CHROMIUM_PATH, LAUNCH_ARGS } from '../../lib/chromium.js';
import { thumbnail } from './finish.js';

export async function browserlessContender() {
  const { default: createBrowser } = await import('browserless');
  let browser;

  const capture = async (job) => {
    const { url, format, width, height, fullPage, scale, selector, device, blockImages, quality } = job;
    const ctx = await browser.createContext();
    try {
      const shot = await ctx.screenshot(url, {
        type: format === 'jpg' ? 'jpeg' : format,
        ...(format === 'png' ? {} : { quality }),
        fullPage,
        ...(device ? { device } : { viewport: { width, height, deviceScaleFactor: scale } }),
        ...(selector ? { element: selector } : {}),
        ...(blockImages ? { abortTypes: ['image'] } : {}),
        waitUntil: 'domcontentloaded',
        adblock: false,
      });
      return await thumbnail(shot, job);
    } finally {
      await ctx.destroyContext();
    }
  };

  return {
    async setup() {
      const args = [...new Set([...(createBrowser.driver?.defaultArgs || []), ...LAUNCH_ARGS])];
      browser = createBrowser({ executablePath: CHROMIUM_PATH, args }); // its default timeout (30 s)
      const b = await browser.browser();
      return { version: await b.version() };
    },
    capture: { browserless: capture },
    async close() {
      await browser?.close();
    },
  };
}
