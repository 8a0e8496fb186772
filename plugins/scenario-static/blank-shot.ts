import type { Page } from 'playwright-core';
import sharp from 'sharp';

/** A one-colour image compresses to almost nothing: larger files are not decoded to check. */
const BLANK_MAX_BYTES = 64 * 1024;

/** Whether an encoded image is a single colour. */
export async function isBlankImage(data: Buffer): Promise<boolean> {
  // An empty buffer is Chromium giving up on a size, which the callers handle.
  if (data.length === 0 || data.length > BLANK_MAX_BYTES) return false;
  const { channels } = await sharp(data, { limitInputPixels: false }).stats();
  return channels.every((channel) => channel.min === channel.max);
}

/**
 * Takes a shot and, when it came out one colour although the page has text or media to show
 * (Chromium now and then returns a frame from before the first paint), takes it once more after
 * two animation frames. A page that really is one colour costs one small decode.
 */
export async function shootUnlessBlank(page: Page, shoot: () => Promise<Buffer>): Promise<Buffer> {
  const first = await shoot();
  if (!(await isBlankImage(first))) return first;
  const hasContent = await page.evaluate(() => {
    const body = document.body;
    return body !== null && (body.innerText.trim().length > 0 || document.querySelector('img, svg, canvas, video, iframe, picture') !== null);
  });
  if (!hasContent) return first;
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  return shoot();
}
