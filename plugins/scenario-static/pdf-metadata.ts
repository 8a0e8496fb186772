import type { CaptureParams } from '../../src/core/schema/capture-params.js';
import { pdfDate } from '../../src/core/schema/pdf-params.js';
import { setDocumentInfo } from '../shared/pdf-document-info.js';

const INFO_PARAMS = ['pdf_title', 'pdf_author', 'pdf_subject', 'pdf_keywords', 'pdf_creator', 'pdf_producer', 'pdf_creation_date', 'pdf_modification_date', 'pdf_trapped', 'pdf_metadata'] as const;

/** Whether the caller set any field of the PDF's document information. */
export function wantsMetadata(params: CaptureParams): boolean {
  return INFO_PARAMS.some((name) => params[name] !== undefined);
}

/**
 * The PDF with the caller's document information: Title, Author, Subject, Keywords, Creator,
 * Producer, the two dates, Trapped and custom fields. Chromium writes its own Title (the page's `<title>`),
 * Creator, Producer and dates; the rest needs a PDF library, which rewrites the file's trailer and
 * information dictionary and keeps every other object (pages, tags, outline) as it was.
 */
export async function withMetadata(data: Buffer, params: CaptureParams): Promise<Buffer> {
  // Loaded for the PDFs that ask for metadata only: it takes a cold process about 370 ms.
  const { PDFDocument, PDFDict, PDFHexString, PDFName } = await import('@cantoo/pdf-lib');
  const document = await PDFDocument.load(data, { updateMetadata: false });
  setDocumentInfo(document, { Title: params.pdf_title, Author: params.pdf_author, Subject: params.pdf_subject, Keywords: params.pdf_keywords, Creator: params.pdf_creator });
  if (params.pdf_producer !== undefined) document.setProducer(params.pdf_producer);
  const created = params.pdf_creation_date === undefined ? undefined : pdfDate(params.pdf_creation_date);
  if (created) document.setCreationDate(created);
  const modified = params.pdf_modification_date === undefined ? undefined : pdfDate(params.pdf_modification_date);
  if (modified) document.setModificationDate(modified);
  // pdf-lib sets neither Trapped nor custom fields: they go into the information dictionary
  // itself, which exists once any field above was set, or is made here.
  const extra = [
    ...(params.pdf_trapped === undefined ? [] : [[PDFName.of('Trapped'), PDFName.of(params.pdf_trapped)] as const]),
    // A text string as pdf-lib writes the standard ones: PDFDocEncoding-safe ASCII as it is, any other as UTF-16BE.
    ...Object.entries(params.pdf_metadata ?? {}).map(([key, value]) => [PDFName.of(key), PDFHexString.fromText(value)] as const),
  ];
  if (extra.length > 0) {
    const { context } = document;
    const info = context.trailerInfo.Info ? context.lookup(context.trailerInfo.Info, PDFDict) : undefined;
    const dictionary = info ?? context.obj({});
    for (const [key, value] of extra) dictionary.set(key, value);
    if (!info) context.trailerInfo.Info = context.register(dictionary);
  }
  return Buffer.from(await document.save({ useObjectStreams: false }));
}
