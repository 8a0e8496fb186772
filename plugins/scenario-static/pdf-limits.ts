import type { CaptureParams } from '../../src/core/schema/capture-params.js';
import { CaptureError } from '../../src/core/errors/catalogue.js';

/**
 * A page object of the printed PDF. Chromium (Skia) writes each page's dictionary uncompressed and
 * its content in compressed streams, so `/Type /Page` appears once a page; `/Pages` (the page tree's
 * nodes) does not match.
 */
const PAGE_OBJECT = /\/Type\s*\/Page(?![A-Za-z])/g;
/** Bytes of one chunk kept for the next: longer than any match, so a page split across two chunks still counts. */
const CARRY = 32;

/**
 * Watches the printed PDF as it streams in and stops it once it passes `pdf_max_pages` or
 * `pdf_max_bytes` (the tier's limits on the service), so an oversized document is refused before
 * all of it is held in memory.
 */
export function pdfLimitWatcher(params: Pick<CaptureParams, 'pdf_max_pages' | 'pdf_max_bytes'>): (chunk: Buffer) => void {
  const maxPages = params.pdf_max_pages ?? Infinity;
  const maxBytes = params.pdf_max_bytes ?? Infinity;
  let bytes = 0;
  let pages = 0;
  let carry = '';
  return (chunk) => {
    bytes += chunk.length;
    if (bytes > maxBytes) throw tooLarge('pdf_max_bytes', `The PDF is larger than pdf_max_bytes (${maxBytes.toLocaleString('en-US')} bytes)`, maxBytes);
    if (maxPages === Infinity) return;
    const text = carry + chunk.toString('latin1');
    for (const match of text.matchAll(PAGE_OBJECT)) {
      // One at the very end may yet be `/Pages`: it is counted with the next chunk, once its next byte is known.
      const end = match.index + match[0].length;
      if (end >= carry.length && end < text.length) pages += 1;
    }
    carry = text.slice(-CARRY);
    if (pages > maxPages) throw tooLarge('pdf_max_pages', `The PDF has more than pdf_max_pages (${maxPages.toLocaleString('en-US')} pages)`, maxPages);
  };
}

/** The pages of a PDF Chromium printed, counted in its bytes (read as latin1) as the watcher counts them. */
export function printedPages(text: string): number {
  return text.match(PAGE_OBJECT)?.length ?? 0;
}

/** 413 naming the limit passed, and how to stay within it. */
export function tooLarge(param: 'pdf_max_pages' | 'pdf_max_bytes', message: string, max: number): CaptureError {
  return new CaptureError('PAYLOAD_TOO_LARGE', `${message}: print fewer pages (pdf_page_ranges) or ask for a larger limit, up to your tier's`, { details: { param, max } });
}
