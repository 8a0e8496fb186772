import { bytesOf, type CaptureDocument, type DocumentAsset } from '../../src/core/document/capture-document.js';
import { CaptureError } from '../../src/core/errors/catalogue.js';
import { attachmentEntriesOf } from '../../src/core/schema/pdf-finish-params.js';

/**
 * The PDF with the files `pdf_attachments` names embedded (uploads from the document, URLs from
 * what the engine fetched), each under its name with its MIME type, dates and AFRelationship
 * Unspecified, listed in the catalog's /AF as PDF/A-3 asks. Their number is bounded by the schema
 * and their bytes by the upload and download limits, which is what this holds in memory beside the PDF.
 */
export async function embedAttachments(pdf: Buffer, value: string, document: CaptureDocument | undefined, fetched: ReadonlyMap<string, DocumentAsset> | undefined): Promise<Buffer> {
  const { PDFDocument, AFRelationship } = await import('@cantoo/pdf-lib');
  const target = await PDFDocument.load(pdf, { updateMetadata: false });
  const now = new Date();
  for (const { name, url } of attachmentEntriesOf(value)) {
    const asset = url === undefined ? document?.assets.get(name) : fetched?.get(name);
    // The schema checked the names against `files` and the engine fetched the URLs; else a caller's library misuse.
    if (!asset) throw new CaptureError('INVALID_PARAMETER', `pdf_attachments: no file '${url ?? name}' was uploaded or fetched`, { details: { param: 'pdf_attachments' } });
    await target.attach(await bytesOf(asset), name, { mimeType: asset.type.split(';')[0]?.trim(), creationDate: now, modificationDate: now, afRelationship: AFRelationship.Unspecified });
  }
  return Buffer.from(await target.save({ useObjectStreams: false }));
}
