import type { CaptureParams } from '../schema/capture-params.js';
import type { EgressGuard } from '../ports.js';
import { captureErrors } from '../errors/factories.js';
import { downloadPath, MAX_DOWNLOAD_BYTES, MAX_DOWNLOADS_BYTES } from '../schema/download-params.js';

/**
 * The parameters with the files of `download_from` fetched and added to `files`, as if uploaded:
 * one after the other, each within what is left of the size budget, all within the capture's deadline.
 */
export async function withDownloads(params: CaptureParams, egress: EgressGuard, signal: AbortSignal): Promise<CaptureParams> {
  if (params.download_from === undefined) return params;
  if (egress.download === undefined) throw captureErrors.internal('This engine has no way to fetch download_from');
  const fetched: NonNullable<CaptureParams['files']> = [];
  let total = 0;
  for (const download of params.download_from) {
    const { body } = await egress.download(download.url, { headers: download.headers, maxBytes: Math.min(MAX_DOWNLOAD_BYTES, MAX_DOWNLOADS_BYTES - total), signal });
    total += body.length;
    fetched.push({ name: downloadPath(download) as string, content: body.toString('base64'), encoding: 'base64' });
  }
  return { ...params, files: [...(params.files ?? []), ...fetched] };
}
