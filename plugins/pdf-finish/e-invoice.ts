import { CaptureError } from '../../src/core/errors/catalogue.js';
import { bytesOf, type CaptureDocument } from '../../src/core/document/capture-document.js';
import type { PDF_EINVOICE_KINDS } from '../../src/core/schema/pdf-finish-params.js';
import { xmpStream } from './xmp.js';

type EInvoiceKind = (typeof PDF_EINVOICE_KINDS)[number];

/** The names the standards give the embedded XML (Factur-X 1.0; ZUGFeRD 2's and XRechnung's). */
export const EINVOICE_FILE_NAMES: Readonly<Record<EInvoiceKind, readonly string[]>> = { 'factur-x': ['factur-x.xml'], zugferd: ['zugferd-invoice.xml', 'xrechnung.xml'] };

/** Factur-X's XMP schema (Factur-X 1.0, 2.2.2): namespace and prefix. */
const FX_NAMESPACE = 'urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#';

/** The profile's guideline id (CII `GuidelineSpecifiedDocumentContextParameter`) to the XMP ConformanceLevel. */
const LEVELS: [RegExp, string][] = [
  [/xrechnung/i, 'XRECHNUNG'],
  [/:minimum$/, 'MINIMUM'],
  [/:basicwl$/, 'BASIC WL'],
  [/:basic$/, 'BASIC'],
  [/:extended$/, 'EXTENDED'],
  [/^urn:cen\.eu:en16931:2017$/, 'EN 16931'],
];

export interface EInvoice {
  name: string;
  xml: Buffer;
  conformanceLevel: string;
}

/** The uploaded invoice XML and its profile, or INVALID_PARAMETER naming pdf_einvoice. */
export async function eInvoiceOf(kind: EInvoiceKind, document: CaptureDocument | undefined): Promise<EInvoice> {
  const names = EINVOICE_FILE_NAMES[kind];
  const name = names.find((candidate) => document?.assets.has(candidate));
  const asset = name === undefined ? undefined : document?.assets.get(name);
  if (name === undefined || asset === undefined) throw refused(`upload the invoice XML in files as ${names.join(' or ')}`);
  const xml = await bytesOf(asset);
  const guideline = /GuidelineSpecifiedDocumentContextParameter>\s*<(?:\w+:)?ID>\s*([^<\s]+)\s*</.exec(xml.toString('utf8'))?.[1];
  const conformanceLevel = guideline === undefined ? undefined : LEVELS.find(([pattern]) => pattern.test(guideline))?.[1];
  if (conformanceLevel === undefined) throw refused(`${name} names no known profile in GuidelineSpecifiedDocumentContextParameter (got ${guideline ?? 'none'})`);
  return { name, xml, conformanceLevel };
}

/**
 * The PDF/A-3 file with the invoice embedded under its standard name (MIME text/xml,
 * AFRelationship Data, listed in the catalog's /AF), and Ghostscript's XMP extended with the fx
 * properties and the PDF/A extension schema that declares them, as Factur-X 1.0 requires.
 */
export async function embedEInvoice(pdf: Buffer, invoice: EInvoice): Promise<Buffer> {
  const { PDFDocument, PDFName, PDFRawStream, AFRelationship, decodePDFRawStream } = await import('@cantoo/pdf-lib');
  const document = await PDFDocument.load(pdf, { updateMetadata: false });
  const now = new Date();
  await document.attach(invoice.xml, invoice.name, { mimeType: 'text/xml', description: 'Factur-X/ZUGFeRD invoice', creationDate: now, modificationDate: now, afRelationship: AFRelationship.Data });
  const ref = document.catalog.get(PDFName.of('Metadata'));
  const stream = ref === undefined ? undefined : document.context.lookup(ref);
  if (!(stream instanceof PDFRawStream)) throw new CaptureError('INTERNAL_ERROR', 'pdf_einvoice: Ghostscript wrote no XMP metadata');
  const xmp = Buffer.from(decodePDFRawStream(stream).decode()).toString('utf8');
  const extended = xmp.replace('</rdf:RDF>', `${facturXDescriptions(invoice)}\n</rdf:RDF>`);
  document.catalog.set(PDFName.of('Metadata'), document.context.register(xmpStream(document.context, extended)));
  return Buffer.from(await document.save({ useObjectStreams: false }));
}

function facturXDescriptions(invoice: EInvoice): string {
  const property = (name: string, description: string): string =>
    `<rdf:li rdf:parseType="Resource"><pdfaProperty:name>${name}</pdfaProperty:name><pdfaProperty:valueType>Text</pdfaProperty:valueType><pdfaProperty:category>external</pdfaProperty:category><pdfaProperty:description>${description}</pdfaProperty:description></rdf:li>`;
  return [
    `<rdf:Description rdf:about="" xmlns:fx="${FX_NAMESPACE}"><fx:DocumentType>INVOICE</fx:DocumentType><fx:DocumentFileName>${invoice.name}</fx:DocumentFileName><fx:Version>1.0</fx:Version><fx:ConformanceLevel>${invoice.conformanceLevel}</fx:ConformanceLevel></rdf:Description>`,
    '<rdf:Description rdf:about="" xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/" xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#" xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#">',
    `<pdfaExtension:schemas><rdf:Bag><rdf:li rdf:parseType="Resource"><pdfaSchema:schema>Factur-X PDFA Extension Schema</pdfaSchema:schema><pdfaSchema:namespaceURI>${FX_NAMESPACE}</pdfaSchema:namespaceURI><pdfaSchema:prefix>fx</pdfaSchema:prefix><pdfaSchema:property><rdf:Seq>`,
    property('DocumentFileName', 'name of the embedded XML invoice file'),
    property('DocumentType', 'INVOICE'),
    property('Version', 'The actual version of the Factur-X XML schema'),
    property('ConformanceLevel', 'The conformance level of the embedded Factur-X data'),
    '</rdf:Seq></pdfaSchema:property></rdf:li></rdf:Bag></pdfaExtension:schemas></rdf:Description>',
  ].join('\n');
}

function refused(why: string): CaptureError {
  return new CaptureError('INVALID_PARAMETER', `pdf_einvoice: ${why}`, { details: { param: 'pdf_einvoice' } });
}
