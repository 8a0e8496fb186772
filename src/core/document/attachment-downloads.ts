import type { CaptureParams } from '../schema/capture-params.js';
import type { EgressGuard } from '../ports.js';
import { CaptureError } from '../errors/catalogue.js';
import { captureErrors } from '../errors/factories.js';
import { MAX_DOWNLOAD_BYTES } from '../schema/download-params.js';
import { attachmentEntriesOf, MAX_ATTACHMENT_URLS_BYTES } from '../schema/pdf-finish-params.js';
import { mimeTypes } from './mime-types.js';
import type { DocumentAsset } from './capture-document.js';

/**
 * The files `pdf_attachments` names by URL, by the name each takes in the PDF, fetched as
 * download_from's are: through the egress guard, one after the other, each within what is left of
 * the size budget, all within the capture's deadline, before a browser is taken. A refusal names
 * its entry (`pdf_attachments[1]`). The MIME type is the response's, else the name's.
 */
export async function fetchedAttachments(params: CaptureParams, egress: EgressGuard, signal: AbortSignal): Promise<ReadonlyMap<string, DocumentAsset> | undefined> {
  if (params.format !== 'pdf' || params.pdf_attachments === undefined) return undefined;
  const wanted = attachmentEntriesOf(params.pdf_attachments).flatMap(({ name, url }, index) => (url === undefined ? [] : [{ name, url, param: `pdf_attachments[${index}]` }]));
  if (wanted.length === 0) return undefined;
  if (egress.download === undefined) throw captureErrors.internal('This engine has no way to fetch pdf_attachments');
  const fetched = new Map<string, DocumentAsset>();
  let total = 0;
  for (const { name, url, param } of wanted) {
    const { body, type } = await egress.download(url, { maxBytes: Math.min(MAX_DOWNLOAD_BYTES, MAX_ATTACHMENT_URLS_BYTES - total), signal, param }).catch((error: unknown) => {
      throw naming(error, param);
    });
    total += body.length;
    const given = type?.split(';')[0]?.trim();
    fetched.set(name, { body, type: given !== undefined && given !== '' && given !== 'application/octet-stream' ? given : mimeTypes().lookup(name) || 'application/octet-stream' });
  }
  return fetched;
}

/** The error with the entry it came from in its details (the guard's refusals name no parameter). */
function naming(error: unknown, param: string): unknown {
  if (!(error instanceof CaptureError) || error.details.param !== undefined) return error;
  const message = error.message.startsWith(param) ? error.message : `${param}: ${error.message}`;
  return new CaptureError(error.code, message, { details: { ...error.details, param }, headers: error.headers, cause: error });
}
