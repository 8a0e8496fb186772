import { CaptureError } from '../../src/core/errors/catalogue.js';
import { xmlText, xmpPacket, xmpStream } from './xmp.js';

/**
 * Chromium's tagged PDF made a PDF/UA-1 file: it already writes the structure tree, `/MarkInfo`,
 * `/Lang` (from `<html lang>`, else the browser's locale) and `/DisplayDocTitle`; what it lacks is
 * the XMP metadata stream with `pdfuaid:part` and `dc:title` (ISO 14289-1, 5 and 7.1). A file
 * without a title is refused rather than delivered as if it conformed.
 */
export async function markPdfUa(input: Buffer): Promise<Buffer> {
  const { PDFDocument, PDFName, PDFDict, PDFBool } = await import('@cantoo/pdf-lib');
  const document = await PDFDocument.load(input, { updateMetadata: false });
  const catalog = document.catalog;
  const title = document.getTitle();
  if (!title) throw refused('the PDF has no title: give the page a <title> or set pdf_title');
  if (!catalog.get(PDFName.of('Lang'))) throw refused('the page declares no language: PDF/UA needs <html lang="…">');
  if (!catalog.get(PDFName.of('StructTreeRoot'))) throw refused('Chromium wrote no structure tree');
  const preferences = catalog.lookupMaybe(PDFName.of('ViewerPreferences'), PDFDict) ?? document.context.obj({});
  preferences.set(PDFName.of('DisplayDocTitle'), PDFBool.True);
  catalog.set(PDFName.of('ViewerPreferences'), preferences);
  const packet = xmpPacket([
    `<rdf:Description rdf:about="" xmlns:pdfuaid="http://www.aiim.org/pdfua/ns/id/"><pdfuaid:part>1</pdfuaid:part></rdf:Description>`,
    `<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title><rdf:Alt><rdf:li xml:lang="x-default">${xmlText(title)}</rdf:li></rdf:Alt></dc:title></rdf:Description>`,
  ]);
  catalog.set(PDFName.of('Metadata'), document.context.register(xmpStream(document.context, packet)));
  return Buffer.from(await document.save({ useObjectStreams: false }));
}

function refused(why: string): CaptureError {
  return new CaptureError('INVALID_PARAMETER', `pdf_ua: ${why}`, { details: { param: 'pdf_ua' } });
}
