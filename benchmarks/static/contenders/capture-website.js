// Contender `capture-website`, used as its README shows: one call = one browser launch (its default).
// Options that would change the pixels or the work are set to match the others: the case's scaleFactor (1 unless dpr2)
// (default 2), blockAds false (default true, and it would fetch filter lists over the network).
// It always waits for `networkidle2` (not configurable), i.e. at least 500 ms without traffic.
// A unit of the static benchmark (see index.js).

import { CHROMIUM_PATH, LAUNCH_ARGS } from '../../lib/chromium.js';
import { thumbnail } from './finish.js';

/** Puppeteer's request interception, before navigation: capture-website has no option for it. */
async function refuseImages(page) {
  await page.setRequestInterception(true);
  page.on('request', (request) => (request.resourceType() === 'image' ? request.abort() : request.continue()));
}

export async function captureWebsiteContender() {
  const { default: captureWebsite } = await import('capture-website');

  const capture = async (job) => {
    const { url, format, width, height, fullPage, scale, selector, device, blockImages, quality } = job;
    const out = await captureWebsite.buffer(url, {
      ...(device ? { emulateDevice: device } : { width, height, scaleFactor: scale }),
      ...(blockImages ? { beforeNavigation: refuseImages } : {}),
      ...(selector ? { element: selector } : {}),
      type: format === 'jpg' ? 'jpeg' : format,
      ...(format === 'png' ? {} : { quality: quality / 100 }), // capture-website takes 0..1
      fullPage,
      blockAds: false,
      launchOptions: { headless: true, executablePath: CHROMIUM_PATH, args: [...LAUNCH_ARGS] },
    });
    return thumbnail(Buffer.from(out.buffer, out.byteOffset, out.byteLength), job);
  };

  return {
    async setup() {
      return {};
    },
    capture: { 'capture-website': capture },
    async close() {},
  };
}
