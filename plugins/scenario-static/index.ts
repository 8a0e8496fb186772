import type { Frame, Page } from 'playwright-core';
import type { CaptureContext, CapturePlugin, ImageArtifact } from '../../src/core/plugin-api.js';
import type { CaptureParams } from '../../src/core/schema/capture-params.js';
import { abortable, bestEffort } from '../../src/core/deadline.js';
import { isNavigationRace } from '../../src/core/errors/to-capture-error.js';
import { DEFAULTS } from '../../src/core/defaults.js';
import { isContentFormat } from '../../src/core/schema/formats.js';
import { revealLazyContent } from './reveal-lazy-content.js';
import { settleRendering } from './settle-rendering.js';
import { fullPage, region, scaleOf, viewport } from './take-screenshot.js';
import { printPdf } from './print-pdf.js';
import { findTool, type PdfToolPaths } from '../pdf-finish/find-tools.js';

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
  /** A PDF longer than this is printed this many pages at a time and joined (print-in-ranges.ts). @default 100 */
  pdfRangePages?: number;
  /** Where qpdf is, for that join. */
  pdfTools?: Pick<PdfToolPaths, 'qpdfPath'>;
}

/** Longest wait for fonts and two frames before the shot. */
const RENDER_SETTLE_MS = 1_000;

/**
 * Still screenshots taken straight from Chromium (CDP), tiled for pages taller than it can render,
 * and the page printed to PDF.
 */
export function staticScenario(options: StaticScenarioOptions = {}): CapturePlugin {
  const budgetBytes = options.maxFullPageBytes ?? DEFAULTS.maxFullPageBytes;
  // Looked up once; without qpdf a long document is printed whole, as one print.
  let qpdf: Promise<string | undefined> | undefined;
  const ranges = { pages: options.pdfRangePages ?? DEFAULTS.pdfRangePages, qpdf: () => (qpdf ??= findTool('qpdf', options.pdfTools?.qpdfPath, 'CAPTURE_QPDF_PATH').catch(() => undefined)) };
  /** The tallest image this capture may make `width` CSS px wide: the request's limit, the engine's, the memory budget's. */
  const maxHeightFor = (params: CaptureParams, width = params.viewport_width): number =>
    Math.min(params.full_page_max_height ?? Infinity, options.maxFullPageHeight ?? Infinity, Math.floor(budgetBytes / (4 * width * scaleOf(params) ** 2)));
  return {
    name: 'scenario-static',
    stages: [
      {
        // In the settle phase, so `delay` counts after it, like after blocking and hiding.
        name: 'reveal-lazy-content',
        phase: 'settle',
        leavesContextState: false,
        when: (params) => params.scenario === 'static' && (params.full_page || params.format === 'pdf'),
        run: async (ctx) => {
          const budget = ctx.budget(options.lazyContentBudgetMs ?? ctx.remaining());
          // A document is what was sent, not a feed that loads more as it is scrolled.
          // Without scripts (`javascript=false`) nothing loads as the page is scrolled, nor does a scroll step's frame ever come.
          const reveal = { scroll: !ctx.document && ctx.params.javascript, printing: ctx.params.format === 'pdf' };
          await bestEffort((signal) => revealLazyContent(ctx.page, budget, maxHeightFor(ctx.params), signal, reveal), budget + 500, ctx.signal);
        },
      },
      {
        name: 'screenshot',
        phase: 'capture',
        // A transparent background stays set on the page; a single-page PDF lays the page out in print media first.
        leavesContextState: (params) => params.omit_background || (params.format === 'pdf' && params.pdf_single_page),
        // What the page says is read from it, not shot (extract-content).
        when: (params) => params.scenario === 'static' && !isContentFormat(params.format),
        run: async (ctx) => {
          // A page without scripts runs no animation frame; the shot draws its own frame anyway.
          const frame = ctx.params.format !== 'pdf' && ctx.params.javascript;
          const hideCaret = ctx.params.caret === 'hide' && ctx.params.format !== 'pdf';
          let painted = false;
          // The document shot is the one settled: a page that navigated since (a reload, a redirect) is
          // settled again once its new document has loaded, or its caret, hidden in the old one, is shot.
          const navigations = countNavigations(ctx.page);
          let settledAfter: number | undefined;
          const settle = async (): Promise<void> => {
            if (settledAfter === navigations.count()) return;
            if (settledAfter !== undefined) await abortable(ctx.page.waitForLoadState('load', { timeout: 0 }), ctx.signal);
            settledAfter = navigations.count();
            const settleMs = ctx.budget(RENDER_SETTLE_MS);
            await bestEffort(async () => void (painted = await settleRendering(ctx.cdp, settleMs, { frame, hideCaret })), settleMs + 250, ctx.signal);
          };
          try {
            await settle();
            // A printed document is the finished file: no encoder follows.
            if (ctx.params.format === 'pdf') ctx.output = await acrossNavigations(ctx, async () => {
                await settle();
                return printPdf(ctx, ranges);
              });
            else {
              ctx.captured = await acrossNavigations(ctx, async () => {
                await settle();
                // What was painted is known of the document just settled only: a shot taken again without settling is checked.
                const known = painted;
                painted = false;
                return screenshot(ctx, (width) => maxHeightFor(ctx.params, width), known);
              });
            }
          } finally {
            navigations.stop();
          }
        },
      },
    ],
  };
}

/** Counts the main frame's navigations from now until `stop()`. */
function countNavigations(page: Page): { count: () => number; stop: () => void } {
  let count = 0;
  const onNavigated = (frame: Frame): void => void (frame === page.mainFrame() && count++);
  page.on('framenavigated', onNavigated);
  return { count: () => count, stop: () => void page.off('framenavigated', onNavigated) };
}

/** Times a page that reloads or refreshes itself is shot again once its new document has loaded. */
const NAVIGATION_RETRIES = 3;

/** How long a retry waits for the new document to commit when Chromium reported the race first. */
const COMMIT_WAIT_MS = 2_000;

/**
 * Runs `shoot`, and again on the new document when the page navigated meanwhile (a reload, a meta
 * refresh, a script redirect); a page that keeps doing so fails with CAPTURE_FAILED
 * (page_navigated). Chromium never answers a screenshot whose document was replaced while it was
 * being drawn, so a main-frame navigation ends the attempt at once.
 */
async function acrossNavigations<T>(ctx: CaptureContext, shoot: () => Promise<T>): Promise<T> {
  const { page } = ctx;
  let navigations = 0;
  let interrupt: (() => void) | undefined;
  const onNavigated = (frame: Frame): void => {
    if (frame !== page.mainFrame()) return;
    navigations++;
    interrupt?.();
  };
  page.on('framenavigated', onNavigated);
  try {
    for (let attempt = 0; ; attempt++) {
      const before = navigations;
      try {
        const shot = shoot();
        shot.catch(() => undefined);
        const navigated = new Promise<never>((_, reject) => {
          interrupt = () => reject(new Error('Not attached to an active page: the page navigated during the shot'));
        });
        return await Promise.race([shot, navigated]);
      } catch (error) {
        const raced = isNavigationRace(error) || (isScreenshotRefusal(error) && (navigations > before || (await navigationCommits(ctx))));
        if (!raced) throw error;
        // A shot Chromium refused because its document went away is the page navigating too.
        if (attempt >= NAVIGATION_RETRIES) throw isNavigationRace(error) ? error : new Error(`Not attached to an active page: the page navigated during the shot (${(error as Error).message})`);
        // Chromium can report the race before the new document commits; its `load` comes after that.
        if (navigations === before) {
          const commit = page.waitForEvent('framenavigated', { predicate: (frame) => frame === page.mainFrame(), timeout: COMMIT_WAIT_MS });
          await abortable(commit.catch(() => undefined), ctx.signal);
        }
        await abortable(page.waitForLoadState('load', { timeout: 0 }), ctx.signal);
      } finally {
        interrupt = undefined;
      }
    }
  } finally {
    page.off('framenavigated', onNavigated);
  }
}

/** Chromium's answer to a shot it could not draw, which is also what it says when the document went away meanwhile. */
function isScreenshotRefusal(error: unknown): boolean {
  return error instanceof Error && /Unable to capture screenshot/i.test(error.message);
}

/** How long a refused shot waits for the navigation that may have caused it. */
const REFUSAL_NAVIGATION_MS = 500;

/** Whether the main frame navigates within a moment: Chromium may refuse the shot before it reports the navigation. */
function navigationCommits(ctx: CaptureContext): Promise<boolean> {
  const { page } = ctx;
  const commit = page.waitForEvent('framenavigated', { predicate: (frame) => frame === page.mainFrame(), timeout: REFUSAL_NAVIGATION_MS });
  return abortable(
    commit.then(
      () => true,
      () => false,
    ),
    ctx.signal,
  );
}

/** `painted`: the document had presented content before the shot, or had none to show (see `settleRendering`). */
async function screenshot(ctx: CaptureContext, maxHeight: (width: number) => number, painted: boolean): Promise<ImageArtifact> {
  if (ctx.params.omit_background) await ctx.cdp.send('Emulation.setDefaultBackgroundColorOverride', { color: { r: 0, g: 0, b: 0, a: 0 } });
  if (ctx.params.full_page) return fullPage(ctx, maxHeight);
  if (ctx.params.selector !== undefined || ctx.params.clip_x !== undefined) return region(ctx);
  return viewport(ctx, painted);
}
