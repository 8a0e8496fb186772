import type { CaptureContext } from '../../src/core/plugin-api.js';
import { sleep } from '../../src/core/deadline.js';
import { loadSharp } from '../shared/load-sharp.js';
import { evaluateInPage } from '../shared/evaluate-in-page.js';

/** A one-colour image compresses to almost nothing: larger files are not decoded to check. */
const BLANK_MAX_BYTES = 64 * 1024;
/** Nor are images with more pixels than this (a 1920x4000 page): decoded, they would take 32 MB. */
const BLANK_MAX_PIXELS = 8_000_000;
/** Elements that show something besides text: a page with none of them and no text has nothing to paint. */
export const CONTENT_SELECTOR = 'img, svg, canvas, video, iframe, picture';
/**
 * In the page: whether it has something to paint, text that is not only white space (outside
 * scripts and styles) or an element of `contentSelector`. Found without building the page's text,
 * which a hostile page makes megabytes long: the walk stops at the first such text. The walker
 * takes no filter function: with `javascript=false` the page can call none back.
 */
export function pageHasContent(contentSelector: string): boolean {
  const body = document.body;
  if (body === null) return false;
  const text = document.createTreeWalker(body, NodeFilter.SHOW_TEXT);
  for (let node = text.nextNode(); node !== null; node = text.nextNode()) {
    if (/\S/.test((node as Text).data) && !['SCRIPT', 'STYLE', 'NOSCRIPT'].includes(node.parentNode?.nodeName ?? '')) return true;
  }
  return document.querySelector(contentSelector) !== null;
}

/** Two frames' time, waited here for a page that runs no animation frame (`javascript=false`). */
const TWO_FRAMES_MS = 35;

/**
 * Whether an encoded image is a single colour. It decodes the pixels and compares the buffer
 * with itself one pixel further on, which is equal only when every pixel is the first one: about
 * 5 CPU-ms for a 1280x720 PNG, where sharp's `stats()` (histograms, entropy, sharpness) took 32 on
 * every capture (benchmarks/results/cpu.md).
 */
export async function isBlankImage(data: Buffer): Promise<boolean> {
  // An empty buffer is Chromium giving up on a size, which the callers handle.
  if (data.length === 0 || data.length > BLANK_MAX_BYTES) return false;
  const image = loadSharp()(data);
  const { width = 0, height = 0 } = await image.metadata();
  if (width * height > BLANK_MAX_PIXELS) return false;
  const { data: pixels, info } = await image.raw().toBuffer({ resolveWithObject: true });
  const pixel = info.channels;
  return pixels.subarray(pixel).equals(pixels.subarray(0, pixels.length - pixel));
}

/**
 * Takes a shot and, when it came out one colour although the page has text or media to show
 * (Chromium now and then returns a frame from before the first paint), takes it once more after
 * two animation frames. A page that really is one colour costs one small decode. A viewport shot
 * of a document that had painted content before it is not checked (take-screenshot.ts).
 */
export async function shootUnlessBlank({ page, cdp, params, signal }: CaptureContext, shoot: () => Promise<Buffer>): Promise<Buffer> {
  const first = await shoot();
  if (!(await isBlankImage(first))) return first;
  if (!(await evaluateInPage(cdp, pageHasContent, CONTENT_SELECTOR))) return first;
  if (params.javascript) await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  else await sleep(TWO_FRAMES_MS, signal);
  return shoot();
}
