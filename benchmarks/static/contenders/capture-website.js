// Contender `capture-website`, used as its README shows: one call = one browser launch (its default).
// Options that would change the pixels or the work are set to match the others: the case's scaleFactor (1 unless dpr2)
// (default 2), blockAds false (default true, and it would fetch filter lists over the network).
// It always waits for `networkidle2` (not configurable), i.e. at least 500 ms without traffic.
// A unit of the static benchmark (see index.js).

import { CHROMIUM_PATH, LAUNCH_ARGS } from '../../lib/chromium.js';

export async function captureWebsiteContender() {
  const { default: captureWebsite } = await import('capture-website');

  const capture = async ({ url, format, width, height, fullPage, scale, selector, quality }) => {
    const out = await captureWebsite.buffer(url, {
      width,
      height,
      scaleFactor: scale,
      ...(selector ? { element: selector } : {}),
      type: format === 'jpg' ? 'jpeg' : format,
      ...(format === 'png' ? {} : { quality: quality / 100 }), // capture-website takes 0..1
      fullPage,
      blockAds: false,
      launchOptions: { headless: true, executablePath: CHROMIUM_PATH, args: [...LAUNCH_ARGS] },
    });
    return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
  };

  return {
    async setup() {
      return {};
    },
    capture: { 'capture-website': capture },
    async close() {},
  };
}
