import type { CDPSession } from 'playwright-core';
import type { OverlayOptions } from 'sharp';
import { loadSharp } from '../shared/load-sharp.js';
import type { CaptureContext, ImageArtifact } from '../../src/core/plugin-api.js';
import type { CaptureParams } from '../../src/core/schema/capture-params.js';
import type { ImageFormat } from '../../src/core/schema/formats.js';
import { shootUnlessBlank } from './blank-shot.js';
import { ELEMENT_GRACE_MS, visible } from '../shared/visible-element.js';
import { HOLD_RESIZE_KEY } from '../../src/core/page/resize-hold.js';
import { insetRect } from './inset-rect.js';
import { pageZoom, unzoomed, type Rect } from './page-zoom.js';

type CdpFormat = 'png' | 'jpeg' | 'webp';
/** Largest side each format's encoder accepts (libjpeg: 65,500; WebP: 16,383; HEIF: 16,384); past them encoders fail or return an empty image. */
const MAX_SIDE: Record<ImageFormat, number> = { png: 1 << 30, jpg: 65_500, webp: 16_383, avif: 16_384 };
/** Tallest single screenshot (in output pixels) Chromium renders reliably; taller pages are taken in tiles. */
const MAX_TILE = 16_384;
const TILE = 8_192;
const TO_CDP: Record<string, CdpFormat> = { png: 'png', jpg: 'jpeg', webp: 'webp' };

/** Output pixels per CSS pixel. */
export function scaleOf(params: CaptureParams): number {
  return params.device_scale_factor ?? 1;
}

function encodingFor(ctx: CaptureContext): { format: CdpFormat; quality?: number } {
  const format = TO_CDP[ctx.params.format] ?? 'png';
  return format === 'png' ? { format } : { format, quality: ctx.params.quality };
}

/**
 * A screenshot from Chromium's own encoder; with a clip, of that part of the page (CSS px), rendered
 * beyond the viewport at `zoom` (1: the page's CSS size).
 */
async function shoot(cdp: CDPSession, encoding: { format: CdpFormat; quality?: number }, clip?: Rect, zoom = 1): Promise<Buffer> {
  const { data } = await cdp.send('Page.captureScreenshot', {
    ...encoding,
    optimizeForSpeed: true,
    ...(clip ? { clip: { ...clip, scale: zoom }, captureBeyondViewport: true } : {}),
  });
  return Buffer.from(data, 'base64');
}

/** The viewport; `painted`: the document had presented content before the shot, which needs no blank check. */
export async function viewport(ctx: CaptureContext, painted: boolean): Promise<ImageArtifact> {
  const encoding = encodingFor(ctx);
  const data = painted ? await shoot(ctx.cdp, encoding) : await shootUnlessBlank(ctx, () => shoot(ctx.cdp, encoding));
  if (data.length === 0) throw new Error('Chromium returned an empty screenshot');
  const scale = scaleOf(ctx.params);
  return { kind: 'image', data, encoding: encoding.format, width: Math.round(ctx.params.viewport_width * scale), height: Math.round(ctx.params.viewport_height * scale) };
}

/** `rect` grown by `padding` on every side, but not past the page's top and left edges. */
function withPadding(rect: Rect, padding: number): Rect {
  const x = Math.max(0, rect.x - padding);
  const y = Math.max(0, rect.y - padding);
  return { x, y, width: rect.x + rect.width + padding - x, height: rect.y + rect.height + padding - y };
}

/**
 * `selector` (the element's box, scrolled into view; with `selector_all`, the box around every
 * match; with `padding`, some page around it) or `clip_*` (a rectangle of the page).
 */
export async function region(ctx: CaptureContext): Promise<ImageArtifact> {
  const { params } = ctx;
  let rect: Rect;
  if (params.selector !== undefined) {
    const element = await visible(ctx, 'selector', params.selector, ELEMENT_GRACE_MS);
    // Playwright waits for the element to stand still with animation frames, which a page without scripts never runs.
    if (params.javascript) await element.scrollIntoViewIfNeeded({ timeout: Math.max(1, ctx.remaining()) });
    else await element.evaluate((node) => node.scrollIntoView({ block: 'nearest', inline: 'nearest', behavior: 'instant' }));
    const elements = params.selector_all ? ctx.page.locator(params.selector) : element;
    rect = withPadding(
      await elements.evaluateAll((nodes) => {
        // The union of the boxes that take up room, in page coordinates.
        const boxes = nodes.map((node) => node.getBoundingClientRect()).filter((box) => box.width > 0 && box.height > 0);
        const left = Math.floor(Math.min(...boxes.map((box) => box.left)) + window.scrollX);
        const top = Math.floor(Math.min(...boxes.map((box) => box.top)) + window.scrollY);
        const right = Math.ceil(Math.max(...boxes.map((box) => box.right)) + window.scrollX);
        const bottom = Math.ceil(Math.max(...boxes.map((box) => box.bottom)) + window.scrollY);
        return { x: left, y: top, width: right - left, height: bottom - top };
      }),
      params.padding,
    );
  } else {
    rect = { x: params.clip_x as number, y: params.clip_y as number, width: params.clip_width as number, height: params.clip_height as number };
  }
  const encoding = encodingFor(ctx);
  rect = insetRect(rect, params.inset);
  // A clip is of the page as shown: a mobile page zoomed out to fit is rendered zoomed out (an element keeps its CSS size, as Playwright's).
  const zoom = params.selector === undefined && params.is_mobile ? await pageZoom(ctx.cdp) : 1;
  const data = await holdingResize(ctx, () => shoot(ctx.cdp, encoding, unzoomed(rect, zoom), zoom));
  if (data.length === 0) throw new Error('Chromium returned an empty screenshot');
  const scale = scaleOf(params);
  return { kind: 'image', data, encoding: encoding.format, width: Math.round(rect.width * scale), height: Math.round(rect.height * scale) };
}

/**
 * The whole page, at its CSS size: as wide as the viewport, or on a mobile page as wide as it is
 * laid out (980 px without a viewport meta tag, where the viewport shows it zoomed out), as
 * Playwright's full-page shot of a mobile page is. `maxHeight` is the tallest image allowed at a width.
 */
export async function fullPage(ctx: CaptureContext, maxHeight: (width: number) => number): Promise<ImageArtifact> {
  const { cdp, params } = ctx;
  const scale = scaleOf(params);
  const { cssContentSize } = await cdp.send('Page.getLayoutMetrics');
  const width = params.is_mobile ? Math.max(params.viewport_width, Math.ceil(cssContentSize.width)) : params.viewport_width;
  const pageHeight = Math.max(params.viewport_height, Math.ceil(cssContentSize.height));
  const wanted = encodingFor(ctx);
  const height = Math.min(pageHeight, maxHeight(width), Math.floor(MAX_SIDE[params.format as ImageFormat] / scale));
  const clippedFrom = height < pageHeight ? pageHeight : undefined;
  const out = { width: Math.round(width * scale), height: Math.round(height * scale) };

  // A page that fits the viewport is taken as it is shown: a beyond-viewport shot resizes the
  // window while it renders, and a page that lays itself out on `resize` may fold (Doxygen's pane).
  if (pageHeight <= params.viewport_height && height === pageHeight && width === params.viewport_width) {
    const data = await shootUnlessBlank(ctx, () => shoot(cdp, wanted));
    if (data.length > 0) return { kind: 'image', data, encoding: wanted.format, ...out };
  }
  return holdingResize(ctx, async () => {
    if (out.height <= MAX_TILE) {
      const data = await shootUnlessBlank(ctx, () => shoot(cdp, wanted, { x: 0, y: 0, width, height }));
      if (data.length > 0) return { kind: 'image', data, encoding: wanted.format, ...out, clippedFrom };
    }
    // Too tall for one render (or the encoder gave up): raw tiles stitched by sharp.
    const tile = Math.floor(TILE / scale);
    const tiles: OverlayOptions[] = [];
    for (let y = 0; y < height; y += tile) {
      const input = await shoot(cdp, { format: 'png' }, { x: 0, y, width, height: Math.min(tile, height - y) });
      tiles.push({ input, top: Math.round(y * scale), left: 0 });
    }
    return stitch(tiles, out, params.omit_background, clippedFrom);
  });
}

/**
 * Runs beyond-viewport shots with the page's `resize` events held back (see `HOLD_RESIZE_KEY`),
 * until a frame after the last shot, when Chromium has dispatched the ones the shots caused. A page
 * without scripts (`javascript=false`) has no listener to hold back, nor animation frames to wait for.
 */
async function holdingResize<T>(ctx: CaptureContext, shots: () => Promise<T>): Promise<T> {
  if (!ctx.params.javascript) return shots();
  await ctx.page.evaluate(holdResize, HOLD_RESIZE_KEY);
  try {
    return await shots();
  } finally {
    await ctx.page.evaluate(releaseResize, HOLD_RESIZE_KEY).catch(() => undefined);
  }
}

/** In the page: hold `resize` events back. */
function holdResize(key: string): void {
  (window as unknown as Record<symbol, boolean>)[Symbol.for(key)] = true;
}

/** In the page: after a frame (the held events dispatched), let `resize` events through again. */
function releaseResize(key: string): Promise<void> {
  return new Promise((resolve) => requestAnimationFrame(() => setTimeout(() => resolve(void delete (window as unknown as Record<symbol, boolean>)[Symbol.for(key)]), 0)));
}

async function stitch(tiles: OverlayOptions[], out: { width: number; height: number }, transparent: boolean, clippedFrom: number | undefined): Promise<ImageArtifact> {
  const background = transparent ? { r: 0, g: 0, b: 0, alpha: 0 } : '#ffffff';
  const sharp = loadSharp();
  const data = await sharp({ create: { ...out, channels: 4, background }, limitInputPixels: false })
    .composite(tiles)
    .png({ compressionLevel: 3 })
    .toBuffer();
  return { kind: 'image', data, encoding: 'png', ...out, clippedFrom };
}
