import type { CDPSession } from 'playwright-core';
import sharp, { type OverlayOptions } from 'sharp';
import type { CapturePlugin, CaptureContext, ImageArtifact } from '../../src/core/types.js';
import type { CaptureParams } from '../../src/core/schema.js';
import { bestEffort } from '../../src/core/deadline.js';
import { DEFAULTS } from '../../src/core/defaults.js';
import { revealLazyContent } from './reveal-lazy-content.js';
import { settleRendering } from './settle-rendering.js';
import { shootUnlessBlank } from './blank-shot.js';

export interface StaticScenarioOptions {
  /** Tallest full-page image in px; taller pages are cut there and flagged. @default what `maxFullPageBytes` allows */
  maxFullPageHeight?: number;
  /** Memory one full-page image may take while it is stitched (raw RGBA). @default 1 GiB */
  maxFullPageBytes?: number;
  /**
   * Most time the scroll through the page that makes lazy content load may take. It never takes
   * more than a quarter of what is left of the capture's budget. @default that quarter
   */
  lazyContentBudgetMs?: number;
}

type CdpFormat = 'png' | 'jpeg' | 'webp';
/** Largest side each encoder accepts (libjpeg: 65,500; WebP: 16,383); past them encoders fail or return an empty image. */
const MAX_SIDE: Record<CdpFormat, number> = { png: 1 << 30, jpeg: 65_500, webp: 16_383 };
/** Tallest single screenshot Chromium renders reliably; taller pages are taken in tiles. */
const MAX_TILE = 16_384;
const TILE = 8_192;
/** Longest wait for fonts and two frames before the shot. */
const RENDER_SETTLE_MS = 1_000;

const TO_CDP: Record<string, CdpFormat> = { png: 'png', jpg: 'jpeg', webp: 'webp' };

/** Still screenshots taken straight from Chromium (CDP), tiled for pages taller than it can render. */
export function staticScenario(options: StaticScenarioOptions = {}): CapturePlugin {
  const budgetBytes = options.maxFullPageBytes ?? DEFAULTS.maxFullPageBytes;
  /** The tallest image this capture may make: the request's limit, the engine's, the memory budget's. */
  const maxHeightFor = (params: CaptureParams): number =>
    Math.min(params.full_page_max_height ?? Infinity, options.maxFullPageHeight ?? Infinity, Math.floor(budgetBytes / (4 * params.viewport_width)));
  return {
    name: 'scenario-static',
    stages: [
      {
        // In the settle phase, so `delay` counts after it, like after blocking and hiding.
        name: 'reveal-lazy-content',
        phase: 'settle',
        when: (params) => params.scenario === 'static' && params.full_page,
        run: async (ctx) => {
          const budget = ctx.budget(options.lazyContentBudgetMs ?? ctx.remaining());
          await bestEffort((signal) => revealLazyContent(ctx.page, budget, maxHeightFor(ctx.params), signal), budget + 500, ctx.signal);
        },
      },
      {
        name: 'screenshot',
        phase: 'capture',
        when: (params) => params.scenario === 'static',
        run: async (ctx) => {
          const cdp = ctx.cdp;
          const settleMs = ctx.budget(RENDER_SETTLE_MS);
          await bestEffort(() => settleRendering(ctx.page, settleMs), settleMs + 250, ctx.signal);
          ctx.captured = ctx.params.full_page ? await fullPage(ctx, cdp, maxHeightFor(ctx.params)) : await viewport(ctx, cdp);
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
  const data = await shootUnlessBlank(ctx.page, () => shoot(cdp, encoding));
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
    const data = await shootUnlessBlank(ctx.page, () => shoot(cdp, wanted, { y: 0, width, height }));
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
