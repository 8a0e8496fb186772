import { bytesOf, type CaptureDocument } from '../../src/core/document/capture-document.js';
import { CaptureError } from '../../src/core/errors/catalogue.js';
import { attachmentNamesOf } from '../../src/core/schema/pdf-finish-params.js';

/**
 * The PDF with the uploaded files `pdf_attachments` names embedded, each under its path with its
 * MIME type, dates and AFRelationship Unspecified, listed in the catalog's /AF as PDF/A-3 asks.
 * Their number is bounded by the schema and their bytes by the upload limits, which is what this
 * holds in memory beside the PDF.
 */
export async function embedAttachments(pdf: Buffer, value: string, document: CaptureDocument | undefined): Promise<Buffer> {
  const { PDFDocument, AFRelationship } = await import('@cantoo/pdf-lib');
  const target = await PDFDocument.load(pdf, { updateMetadata: false });
  const now = new Date();
  for (const name of attachmentNamesOf(value)) {
    const asset = document?.assets.get(name);
    // The schema checked the names against `files`; a document without them is a caller's library misuse.
    if (!asset) throw new CaptureError('INVALID_PARAMETER', `pdf_attachments: no file '${name}' in files`, { details: { param: 'pdf_attachments' } });
    await target.attach(await bytesOf(asset), name, { mimeType: asset.type.split(';')[0]?.trim(), creationDate: now, modificationDate: now, afRelationship: AFRelationship.Unspecified });
  }
  return Buffer.from(await target.save({ useObjectStreams: false }));
}
