import type { CDPSession } from 'playwright-core';
import type { CaptureContext, EncodedOutput } from '../../src/core/plugin-api.js';
import { PDF_PAPER_INCHES } from '../../src/core/schema/capture-params.js';
import { throwIfAborted } from '../../src/core/deadline.js';

/**
 * The page printed by Chromium (print media, as a browser's "Save as PDF" does). The document is
 * read back as a stream in chunks: one CDP message holding a large PDF in base64 would need
 * several times its size in memory at once.
 */
export async function printPdf(ctx: CaptureContext): Promise<EncodedOutput> {
  const { params, cdp } = ctx;
  const [width, height] = PDF_PAPER_INCHES[params.pdf_paper];
  const { stream } = await cdp.send('Page.printToPDF', {
    paperWidth: width,
    paperHeight: height,
    landscape: params.pdf_landscape,
    printBackground: params.pdf_print_background,
    transferMode: 'ReturnAsStream',
  });
  if (stream === undefined) throw new Error('Chromium returned no PDF stream');
  const data = await readStream(cdp, stream, ctx.signal);
  if (data.length === 0) throw new Error('Chromium returned an empty PDF');
  return { format: 'pdf', size: data.length, data };
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
