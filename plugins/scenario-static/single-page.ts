import type { CaptureContext } from '../../src/core/plugin-api.js';
import { inches, LARGEST_PAPER_INCHES } from '../../src/core/schema/pdf-params.js';

/**
 * Page breaks the document asks for (Gotenberg's pages-12 test page breaks after every heading):
 * on one page they would start the second page anyway, however tall the paper.
 */
const IGNORE_BREAKS = `*, *::before, *::after {
  break-before: auto !important; break-after: auto !important; break-inside: auto !important;
  page-break-before: auto !important; page-break-after: auto !important; page-break-inside: auto !important;
}`;

/** Chromium's margin on each side when none is given, in inches. */
const DEFAULT_MARGIN = 0.4;

/**
 * `pdf_single_page`: the paper, [width, height] in inches, that holds the whole document on one
 * page, its page breaks ignored. The document is laid out in print media at `paperWidth`'s printable
 * width (with the scale and margins), or as wide as its content when that is wider (a wide table,
 * gotenberg#1390), and the paper is as tall as it then is; at most 200 in a side. 96 CSS px to the inch.
 */
export async function singlePagePaper({ page, params }: CaptureContext, paperWidth: number): Promise<[number, number]> {
  const margin = (length: string | undefined): number => (length === undefined ? DEFAULT_MARGIN : inches(length));
  const vertical = margin(params.pdf_margin_top) + margin(params.pdf_margin_bottom);
  const horizontal = margin(params.pdf_margin_left) + margin(params.pdf_margin_right);
  const toInches = (cssPx: number, margins: number): number => Math.min(LARGEST_PAPER_INCHES, (cssPx * params.pdf_scale) / 96 + margins);
  await page.addStyleTag({ content: IGNORE_BREAKS });
  if (params.media_type !== 'screen') await page.emulateMedia({ media: 'print' });
  let cssWidth = Math.max(1, Math.round(((paperWidth - horizontal) * 96) / params.pdf_scale));
  await page.setViewportSize({ width: cssWidth, height: params.viewport_height });
  const contentWidth = await page.evaluate(() => document.documentElement.scrollWidth);
  if (contentWidth > cssWidth) {
    cssWidth = contentWidth;
    await page.setViewportSize({ width: cssWidth, height: params.viewport_height });
  }
  const cssHeight = await page.evaluate(documentHeight);
  // One pixel more than the document, so rounding never starts a second page.
  return [toInches(cssWidth, horizontal), toInches(cssHeight + 1, vertical)];
}

/**
 * In the page: the height of the document itself. The root's scroll height is at least the
 * viewport's, which a short document is not: that is taken only for what overflows the root's box.
 */
function documentHeight(): number {
  const root = document.documentElement;
  const box = root.getBoundingClientRect().height;
  return Math.ceil(root.scrollHeight > root.clientHeight ? Math.max(box, root.scrollHeight) : box);
}
