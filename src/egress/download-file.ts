import http from 'node:http';
import https from 'node:https';
import { CaptureError } from '../core/errors/catalogue.js';
import { captureErrors } from '../core/errors/factories.js';
import { PRODUCT } from '../core/identity.js';
import type { OutboundGuard } from './outbound-guard.js';

/** Redirects a download follows, each to a URL the guard checks again. */
const MAX_REDIRECTS = 3;

export interface DownloadOptions {
  headers?: Readonly<Record<string, string>>;
  /** Bytes past which the download is stopped and refused. */
  maxBytes: number;
  signal: AbortSignal;
}

/**
 * GETs a caller's file (`download_from`) through the egress guard: the URL judged like a target,
 * every connection dialling only checked addresses, each redirect checked again, the body read only
 * up to `maxBytes`. Anything but a 2xx is CAPTURE_FAILED (reason download) naming the status.
 */
export async function downloadFile(raw: string, guard: OutboundGuard, options: DownloadOptions): Promise<Buffer> {
  let url = await guard.check(raw, 'download_from');
  for (let hops = 0; ; hops++) {
    const answer = await getOnce(url, guard, options);
    if (answer.location === undefined) return answer.body;
    if (hops >= MAX_REDIRECTS) throw captureErrors.captureFailed('download', `download_from: ${raw} redirected more than ${MAX_REDIRECTS} times`);
    url = await guard.check(new URL(answer.location, url).href, 'download_from');
  }
}

function getOnce(url: URL, guard: OutboundGuard, { headers = {}, maxBytes, signal }: DownloadOptions): Promise<{ body: Buffer; location?: string }> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.get(url, { lookup: guard.lookupFor(url), signal, headers: { 'User-Agent': PRODUCT, ...headers } }, (response) => {
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400 && response.headers.location !== undefined) {
        response.resume();
        resolve({ body: Buffer.alloc(0), location: response.headers.location });
        return;
      }
      if (status < 200 || status >= 300) {
        response.resume();
        reject(captureErrors.captureFailed('download', `download_from: ${url.href} answered ${status}`));
        return;
      }
      const declared = Number(response.headers['content-length'] ?? 0);
      if (declared > maxBytes) {
        request.destroy();
        reject(tooLarge(url, maxBytes));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) {
          request.destroy();
          reject(tooLarge(url, maxBytes));
          return;
        }
        chunks.push(chunk);
      });
      response.on('end', () => resolve({ body: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    request.on('error', (error) => reject(signal.aborted ? signal.reason : error instanceof CaptureError ? error : captureErrors.captureFailed('download', `download_from: ${url.href} could not be fetched: ${error.message}`, error)));
  });
}

function tooLarge(url: URL, limit: number): CaptureError {
  return new CaptureError('PAYLOAD_TOO_LARGE', `download_from: ${url.href} is larger than ${limit} bytes`, { details: { param: 'download_from', limit } });
}
