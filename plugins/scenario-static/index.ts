import type { CDPSession } from 'playwright-core';
import sharp, { type OverlayOptions } from 'sharp';
import type { CapturePlugin, CaptureContext, ImageArtifact } from '../../src/core/types.js';
import { bestEffort } from '../../src/core/deadline.js';
import { DEFAULTS } from '../../src/core/defaults.js';
import { revealLazyContent } from './reveal-lazy-content.js';

export interface StaticScenarioOptions {
  /** Tallest full-page image in px; taller pages are cut there and flagged. @default 32000 */
  maxFullPageHeight?: number;
  /** Time box of the scroll through the page that makes lazy content load. @default 2500 */
  lazyContentBudgetMs?: number;
}

type CdpFormat = 'png' | 'jpeg' | 'webp';
/** Largest side each encoder accepts (libjpeg: 65,500; WebP: 16,383); past them encoders fail or return an empty image. */
const MAX_SIDE: Record<CdpFormat, number> = { png: 1 << 30, jpeg: 65_500, webp: 16_383 };
/** Tallest single screenshot Chromium renders reliably; taller pages are taken in tiles. */
const MAX_TILE = 16_384;
const TILE = 8_192;

const TO_CDP: Record<string, CdpFormat> = { png: 'png', jpg: 'jpeg', webp: 'webp' };

/** Still screenshots taken straight from Chromium (CDP), tiled for pages taller than it can render. */
export function staticScenario(options: StaticScenarioOptions = {}): CapturePlugin {
  const maxHeight = options.maxFullPageHeight ?? DEFAULTS.maxFullPageHeight;
  const lazyBudget = options.lazyContentBudgetMs ?? 2_500;
  return {
    name: 'scenario-static',
    stages: [
      {
        name: 'screenshot',
        phase: 'capture',
        when: (params) => params.scenario === 'static',
        run: async (ctx) => {
          const cdp = ctx.cdp;
          if (ctx.params.full_page) {
            const budget = ctx.budget(lazyBudget);
            await bestEffort((signal) => revealLazyContent(ctx.page, budget, signal), budget + 500, ctx.signal);
          }
          // A capture right after load sometimes gets a blank frame; one animation frame settles it.
          await ctx.page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => resolve())));
          ctx.captured = ctx.params.full_page ? await fullPage(ctx, cdp, maxHeight) : await viewport(ctx, cdp);
        },
      },
    ],
  };
}

function encodingFor(ctx: CaptureContext): { format: CdpFormat; quality?: number } {
  const format = TO_CDP[ctx.params.format] ?? 'png';
  return format === 'png' ? { format } : { format, quality: ctx.params.quality };
}

async function shoot(cdp: CDPSession, encoding: { format: CdpFormat; quality?: number }, clip?: { y: number; width: number; height: number }): Promise<Buffer> {
  const { data } = await cdp.send('Page.captureScreenshot', {
    ...encoding,
    optimizeForSpeed: true,
    ...(clip ? { clip: { x: 0, y: clip.y, width: clip.width, height: clip.height, scale: 1 }, captureBeyondViewport: true } : {}),
  });
  return Buffer.from(data, 'base64');
}

async function viewport(ctx: CaptureContext, cdp: CDPSession): Promise<ImageArtifact> {
  const encoding = encodingFor(ctx);
  const data = await shoot(cdp, encoding);
  if (data.length === 0) throw new Error('Chromium returned an empty screenshot');
  return { kind: 'image', data, encoding: encoding.format, width: ctx.params.viewport_width, height: ctx.params.viewport_height };
}

async function fullPage(ctx: CaptureContext, cdp: CDPSession, maxHeight: number): Promise<ImageArtifact> {
  const width = ctx.params.viewport_width;
  const { cssContentSize } = await cdp.send('Page.getLayoutMetrics');
  const pageHeight = Math.max(ctx.params.viewport_height, Math.ceil(cssContentSize.height));
  const wanted = encodingFor(ctx);
  const height = Math.min(pageHeight, maxHeight, MAX_SIDE[wanted.format]);
  const clippedFrom = height < pageHeight ? pageHeight : undefined;

  if (height <= MAX_TILE) {
    const data = await shoot(cdp, wanted, { y: 0, width, height });
    if (data.length > 0) return { kind: 'image', data, encoding: wanted.format, width, height, clippedFrom };
  }
  // Too tall for one render (or the encoder gave up): raw tiles stitched by sharp.
  const tiles: OverlayOptions[] = [];
  for (let y = 0; y < height; y += TILE) {
    const tile = await shoot(cdp, { format: 'png' }, { y, width, height: Math.min(TILE, height - y) });
    tiles.push({ input: tile, top: y, left: 0 });
  }
  const data = await sharp({ create: { width, height, channels: 4, background: '#ffffff' }, limitInputPixels: false })
    .composite(tiles)
    .png({ compressionLevel: 3 })
    .toBuffer();
  return { kind: 'image', data, encoding: 'png', width, height, clippedFrom };
}
