import type { CaptureContext, EncodedOutput } from '../../src/core/plugin-api.js';
import { PDF_PAPER_INCHES, type CaptureParams } from '../../src/core/schema/capture-params.js';
import { randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeCdpStream } from './cdp-stream-to-file.js';
import { pdfLimitWatcher } from './pdf-limits.js';
import { PDF_FINISH_PROPERTIES } from '../../src/core/schema/pdf-finish-params.js';
import { headerFooter } from './pdf-templates.js';
import { inches } from '../../src/core/schema/pdf-params.js';
import { singlePagePaper } from './single-page.js';
import { printInRanges, printableInRanges, type PrintTo, type RangePrinting } from './print-in-ranges.js';
import { wantsMetadata, withMetadata } from './pdf-metadata.js';
import { captureErrors } from '../../src/core/errors/factories.js';
import { CaptureError } from '../../src/core/errors/catalogue.js';

/**
 * Above this a PDF that no later stage rewrites stays in its temporary file, which is stored or
 * sent from there: a 1,000-page document of hundreds of MB is never held in memory.
 */
const KEPT_IN_MEMORY_BYTES = 64 * 1024 ** 2;

/** The finishing parameters and their defaults: one given otherwise means a stage that rewrites the PDF's bytes. */
const FINISHING = Object.entries(PDF_FINISH_PROPERTIES).map(([name, schema]) => [name, (schema as { default?: unknown }).default] as const);
const finishingAsked = (params: CaptureParams): boolean => FINISHING.some(([name, fallback]) => params[name as keyof CaptureParams] !== undefined && params[name as keyof CaptureParams] !== fallback);

/**
 * The page printed by Chromium (print media, as a browser's "Save as PDF" does), streamed to a
 * temporary file as it comes.
 */
export async function printPdf(ctx: CaptureContext, ranges?: RangePrinting): Promise<EncodedOutput> {
  const { params, cdp } = ctx;
  const [paperWidth, paperHeight] =
    params.pdf_width !== undefined && params.pdf_height !== undefined ? [inches(params.pdf_width), inches(params.pdf_height)] : PDF_PAPER_INCHES[params.pdf_paper];
  const margin = (length: string | undefined): number | undefined => (length === undefined ? undefined : inches(length));
  // One page sized to the document, from the paper's width as printed (landscape turns it).
  const [width, height, landscape] = params.pdf_single_page
    ? [...(await singlePagePaper(ctx, params.pdf_landscape ? paperHeight : paperWidth)), false]
    : [paperWidth, paperHeight, params.pdf_landscape];
  const options = {
    paperWidth: width,
    paperHeight: height,
    landscape,
    printBackground: params.pdf_print_background,
    scale: params.pdf_scale,
    marginTop: margin(params.pdf_margin_top),
    marginRight: margin(params.pdf_margin_right),
    marginBottom: margin(params.pdf_margin_bottom),
    marginLeft: margin(params.pdf_margin_left),
    preferCSSPageSize: params.pdf_prefer_css_page_size,
    generateTaggedPDF: params.pdf_tagged || params.pdf_outline || params.pdf_ua,
    generateDocumentOutline: params.pdf_outline,
    ...(await headerFooter(ctx)),
    transferMode: 'ReturnAsStream' as const,
  };
  // One watcher over every part: the limits hold for the whole document.
  const watch = pdfLimitWatcher(params);
  const printTo: PrintTo = async (pageRanges, target) => {
    const { stream } = await cdp.send('Page.printToPDF', { ...options, pageRanges });
    if (stream === undefined) throw new Error('Chromium returned no PDF stream');
    return writeCdpStream(cdp, stream, target, ctx.signal, watch);
  };
  const file = path.join(tmpdir(), `capture-${ctx.id}-${randomUUID()}.pdf`);
  // Unless it became the output (whose owner removes it): a print a navigation cut short finishes unseen.
  ctx.defer(() => (ctx.output?.path === file ? undefined : rm(file, { force: true })));
  const size = await (ranges && printableInRanges(params) ? printInRanges(ctx, printTo, file, ranges) : printTo(params.pdf_page_ranges?.replace(/\s+/g, ''), file)).catch((error: unknown) => {
    throw printRefusal(error) ?? error;
  });
  const rewritten = wantsMetadata(params) || finishingAsked(params);
  if (size > KEPT_IN_MEMORY_BYTES && !rewritten) return { format: 'pdf', size, path: file };
  const printed = await readFile(file).finally(() => rm(file, { force: true }));
  if (printed.length === 0) throw new Error('Chromium returned an empty PDF');
  const data = wantsMetadata(params) ? await withMetadata(printed, params) : printed;
  return { format: 'pdf', size: data.length, data };
}

/** What Chromium refuses to print because of the parameters, as the 400 naming them. */
function printRefusal(error: unknown): CaptureError | undefined {
  if (error instanceof CaptureError) return undefined;
  const message = error instanceof Error ? error.message : String(error);
  if (/page range/i.test(message)) return captureErrors.invalidParameter('pdf_page_ranges', `Invalid parameter 'pdf_page_ranges': ${message.replace(/^.*?: /, '')}`, 'pages that exist, e.g. 1-5, 8');
  if (/content area is empty|invalid print parameters/i.test(message)) {
    return new CaptureError('INCOMPATIBLE_PARAMETERS', 'The margins leave no room on the paper for the page', {
      details: { params: ['pdf_margin_top', 'pdf_margin_right', 'pdf_margin_bottom', 'pdf_margin_left'] },
    });
  }
  return undefined;
}
