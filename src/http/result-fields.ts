import type { CaptureDiagnostics } from '../core/diagnostics.js';
import type { UploadOutcome } from '../core/ports.js';

/** What a finished capture reports besides its file, as a synchronous JSON answer and an async status both say it. */
export interface CaptureReport {
  incomplete?: string[];
  diagnostics?: CaptureDiagnostics | unknown;
  /** Files stored beside the capture (`har`), by name, with where each is served. */
  sidecarUrls?: Record<string, string>;
  upload?: UploadOutcome;
}

/** The report's JSON fields: `incomplete`, `diagnostics`, `<name>_url` per file beside it, `uploaded` with the upload's status. */
export function reportFields({ incomplete, diagnostics, sidecarUrls = {}, upload }: CaptureReport): Record<string, unknown> {
  return {
    ...(incomplete === undefined ? {} : { incomplete }),
    ...(diagnostics === undefined ? {} : { diagnostics }),
    ...Object.fromEntries(Object.entries(sidecarUrls).map(([name, url]) => [`${name}_url`, url])),
    ...(upload === undefined ? {} : { uploaded: true, upload_status: upload.status, upload_attempts: upload.attempts }),
  };
}
