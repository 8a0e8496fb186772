import http from 'node:http';
import https from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import { CaptureError } from '../core/errors/catalogue.js';
import type { UploadFile, UploadOutcome } from '../core/ports.js';
import type { OutboundGuard } from './outbound-guard.js';

export interface UploadRetries {
  /** Tries in all. @default 3 */
  attempts?: number;
  /** Wait before the second try; each next one doubles. @default 500 */
  backoffMs?: number;
  /** Longest one try may take. @default 60000 */
  tryTimeoutMs?: number;
}

/** What a try that failed this way may do better on: the network, the storage's own troubles, throttling. */
const isTransient = (status: number): boolean => status === 0 || status === 408 || status === 429 || status >= 500;

/**
 * PUTs a file to a caller's presigned URL (S3, GCS, R2, Azure SAS): streamed, with its exact
 * length and `Content-Type`, dialling only addresses the guard allows at connect time. The URL
 * carries its own authorisation, so the service never holds the caller's credentials. A network
 * error, 408, 429 or 5xx is tried again with backoff; anything else fails at once with
 * UPLOAD_FAILED, naming the storage's status.
 */
export async function putToPresignedUrl(url: URL, file: UploadFile, guard: OutboundGuard, signal: AbortSignal, retries: UploadRetries = {}): Promise<UploadOutcome> {
  const attempts = retries.attempts ?? 3;
  for (let attempt = 1; ; attempt++) {
    const answer = await putOnce(url, file, guard, AbortSignal.any([signal, AbortSignal.timeout(retries.tryTimeoutMs ?? 60_000)])).catch((error: unknown) => {
      if (signal.aborted) throw signal.reason;
      return { status: 0, reason: error instanceof Error ? error.message : String(error) };
    });
    if (answer.status >= 200 && answer.status < 300) return { status: answer.status, attempts: attempt };
    if (!isTransient(answer.status) || attempt >= attempts) {
      const what = answer.status === 0 ? answer.reason : `the storage answered ${answer.status}`;
      throw new CaptureError('UPLOAD_FAILED', `The upload to upload_url failed after ${attempt} ${attempt === 1 ? 'try' : 'tries'}: ${what}`, {
        details: { param: 'upload_url', status: answer.status, attempts: attempt },
      });
    }
    await sleep((retries.backoffMs ?? 500) * 2 ** (attempt - 1), undefined, { signal });
  }
}

function putOnce(url: URL, file: UploadFile, guard: OutboundGuard, signal: AbortSignal): Promise<{ status: number; reason?: string }> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(url, {
      method: 'PUT',
      lookup: guard.lookupFor(url),
      signal,
      headers: { 'Content-Type': file.contentType, 'Content-Length': String(file.size), 'User-Agent': 'capture-engine-upload' },
    });
    request.on('response', (response) => {
      // Only the status matters; the body (an XML error) is read and dropped so the socket is freed.
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode ?? 0 }));
      response.on('error', reject);
    });
    request.on('error', reject);
    const body = file.stream();
    body.on('error', (error) => request.destroy(error));
    body.pipe(request);
  });
}
