import type { CDPSession } from 'playwright-core';
import type { CaptureContext, EncodedOutput } from '../../src/core/plugin-api.js';
import { PDF_PAPER_INCHES } from '../../src/core/schema/capture-params.js';
import { throwIfAborted } from '../../src/core/deadline.js';
import { inches } from '../../src/core/schema/pdf-params.js';
import { captureErrors } from '../../src/core/errors/factories.js';
import { CaptureError } from '../../src/core/errors/catalogue.js';

/**
 * The page printed by Chromium (print media, as a browser's "Save as PDF" does). The document is
 * read back as a stream in chunks: one CDP message holding a large PDF in base64 would need
 * several times its size in memory at once.
 */
export async function printPdf(ctx: CaptureContext): Promise<EncodedOutput> {
  const { params, cdp } = ctx;
  const [width, height] =
    params.pdf_width !== undefined && params.pdf_height !== undefined ? [inches(params.pdf_width), inches(params.pdf_height)] : PDF_PAPER_INCHES[params.pdf_paper];
  const margin = (length: string | undefined): number | undefined => (length === undefined ? undefined : inches(length));
  const { stream } = await cdp
    .send('Page.printToPDF', {
      paperWidth: width,
      paperHeight: height,
      landscape: params.pdf_landscape,
      printBackground: params.pdf_print_background,
      scale: params.pdf_scale,
      marginTop: margin(params.pdf_margin_top),
      marginRight: margin(params.pdf_margin_right),
      marginBottom: margin(params.pdf_margin_bottom),
      marginLeft: margin(params.pdf_margin_left),
      pageRanges: params.pdf_page_ranges?.replace(/\s+/g, ''),
      preferCSSPageSize: params.pdf_prefer_css_page_size,
      transferMode: 'ReturnAsStream',
    })
    .catch((error: unknown) => {
      throw printRefusal(error) ?? error;
    });
  if (stream === undefined) throw new Error('Chromium returned no PDF stream');
  const data = await readStream(cdp, stream, ctx.signal);
  if (data.length === 0) throw new Error('Chromium returned an empty PDF');
  return { format: 'pdf', size: data.length, data };
}

/** What Chromium refuses to print because of the parameters, as the 400 naming them. */
function printRefusal(error: unknown): CaptureError | undefined {
  const message = error instanceof Error ? error.message : String(error);
  if (/page range/i.test(message)) return captureErrors.invalidParameter('pdf_page_ranges', `Invalid parameter 'pdf_page_ranges': ${message.replace(/^.*?: /, '')}`, 'pages that exist, e.g. 1-5, 8');
  if (/content area is empty|invalid print parameters/i.test(message)) {
    return new CaptureError('INCOMPATIBLE_PARAMETERS', 'The margins leave no room on the paper for the page', {
      details: { params: ['pdf_margin_top', 'pdf_margin_right', 'pdf_margin_bottom', 'pdf_margin_left'] },
    });
  }
  return undefined;
}

async function readStream(cdp: CDPSession, handle: string, signal: AbortSignal): Promise<Buffer> {
  const chunks: Buffer[] = [];
  try {
    for (;;) {
      throwIfAborted(signal);
      const chunk = await cdp.send('IO.read', { handle, size: 1 << 20 });
      chunks.push(Buffer.from(chunk.data, chunk.base64Encoded ? 'base64' : 'binary'));
      if (chunk.eof) return Buffer.concat(chunks);
    }
  } finally {
    await cdp.send('IO.close', { handle }).catch(() => undefined);
  }
}
