import type { CaptureParams } from '../../src/core/schema/capture-params.js';

/** Whether the caller set any field of the PDF's document information. */
export function wantsMetadata(params: CaptureParams): boolean {
  return params.pdf_title !== undefined || params.pdf_author !== undefined || params.pdf_subject !== undefined || params.pdf_keywords !== undefined;
}

/**
 * The PDF with the caller's Title, Author, Subject and Keywords. Chromium writes only the Title
 * (the page's `<title>`); the rest needs a PDF library, which rewrites the file's trailer and
 * information dictionary and keeps every other object (pages, tags, outline) as it was.
 */
export async function withMetadata(data: Buffer, params: CaptureParams): Promise<Buffer> {
  // Loaded for the PDFs that ask for metadata only: it takes a cold process about 370 ms.
  const { PDFDocument } = await import('@cantoo/pdf-lib');
  const document = await PDFDocument.load(data, { updateMetadata: false });
  if (params.pdf_title !== undefined) document.setTitle(params.pdf_title);
  if (params.pdf_author !== undefined) document.setAuthor(params.pdf_author);
  if (params.pdf_subject !== undefined) document.setSubject(params.pdf_subject);
  // As given: pdf-lib would join a list with spaces, and readers show the field as one string.
  if (params.pdf_keywords !== undefined) document.setKeywords([params.pdf_keywords]);
  return Buffer.from(await document.save({ useObjectStreams: false }));
}
