import { CaptureError } from '../../src/core/errors/catalogue.js';
import { setDocumentInfo, type DocumentInfo } from '../shared/pdf-document-info.js';
import { xmlText, xmpStream } from './xmp.js';

/** The document information a PDF/A keeps (each mirrored into an XMP property). */
export type { DocumentInfo };

/** Printable ASCII: what Ghostscript 10.0 writes into a PDF/A's information and XMP. */
export const isPlainAscii = (text: string): boolean => /^[\x20-\x7e]*$/.test(text);

/** The information of the printed PDF: the page's title and what the pdf_title family set. */
export async function documentInfoOf(pdf: Buffer): Promise<DocumentInfo> {
  const { PDFDocument } = await import('@cantoo/pdf-lib');
  const document = await PDFDocument.load(pdf, { updateMetadata: false });
  const info: DocumentInfo = { Title: document.getTitle(), Author: document.getAuthor(), Subject: document.getSubject(), Keywords: document.getKeywords(), Creator: document.getCreator() };
  return Object.fromEntries(Object.entries(info).filter((entry) => entry[1] !== undefined && entry[1] !== ''));
}

/** The XMP elements that mirror each field (ISO 19005-1, 6.7.3), as Ghostscript writes them. */
const XMP_ELEMENTS: Record<keyof DocumentInfo, string> = { Title: 'dc:title', Author: 'dc:creator', Subject: 'dc:description', Keywords: 'pdf:Keywords', Creator: 'xmp:CreatorTool' };

/**
 * Ghostscript's PDF/A with the information it had to drop written back: the values as UTF-16
 * text strings in the information dictionary, and the same values in its XMP, which a PDF/A
 * requires to match the dictionary. Its own copies of these XMP properties are replaced.
 */
export async function withDocumentInfo(pdf: Buffer, info: DocumentInfo): Promise<Buffer> {
  const { PDFDocument, PDFName, PDFRawStream, decodePDFRawStream } = await import('@cantoo/pdf-lib');
  const document = await PDFDocument.load(pdf, { updateMetadata: false });
  setDocumentInfo(document, info);
  const ref = document.catalog.get(PDFName.of('Metadata'));
  const stream = ref === undefined ? undefined : document.context.lookup(ref);
  if (!(stream instanceof PDFRawStream)) throw new CaptureError('INTERNAL_ERROR', 'pdf_a: Ghostscript wrote no XMP metadata');
  let xmp = Buffer.from(decodePDFRawStream(stream).decode()).toString('utf8');
  const given = (Object.keys(XMP_ELEMENTS) as (keyof DocumentInfo)[]).filter((key) => info[key] !== undefined);
  for (const key of given) xmp = xmp.replace(new RegExp(`<${XMP_ELEMENTS[key]}>[\\s\\S]*?</${XMP_ELEMENTS[key]}>\\n?`), '');
  xmp = xmp.replace('</rdf:RDF>', `${infoDescription(info)}\n</rdf:RDF>`);
  document.catalog.set(PDFName.of('Metadata'), document.context.register(xmpStream(document.context, xmp)));
  return Buffer.from(await document.save({ useObjectStreams: false }));
}

/** One rdf:Description with every given field, in the forms XMP gives these properties. */
function infoDescription(info: DocumentInfo): string {
  const alt = (text: string): string => `<rdf:Alt><rdf:li xml:lang="x-default">${xmlText(text)}</rdf:li></rdf:Alt>`;
  const properties = [
    info.Title !== undefined && `<dc:title>${alt(info.Title)}</dc:title>`,
    info.Author !== undefined && `<dc:creator><rdf:Seq><rdf:li>${xmlText(info.Author)}</rdf:li></rdf:Seq></dc:creator>`,
    info.Subject !== undefined && `<dc:description>${alt(info.Subject)}</dc:description>`,
    info.Keywords !== undefined && `<pdf:Keywords>${xmlText(info.Keywords)}</pdf:Keywords>`,
    info.Creator !== undefined && `<xmp:CreatorTool>${xmlText(info.Creator)}</xmp:CreatorTool>`,
  ].filter(Boolean);
  return `<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:pdf="http://ns.adobe.com/pdf/1.3/" xmlns:xmp="http://ns.adobe.com/xap/1.0/">${properties.join('')}</rdf:Description>`;
}
