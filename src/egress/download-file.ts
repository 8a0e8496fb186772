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
  /** The parameter the URL came in, named in refusals. @default 'download_from' */
  param?: string;
}

/** A fetched file: its body and the Content-Type it was answered with. */
export interface Downloaded {
  body: Buffer;
  type?: string;
}

/**
 * GETs a caller's file (`download_from`, a URL of `pdf_attachments`) through the egress guard: the
 * URL judged like a target, every connection dialling only checked addresses, each redirect checked
 * again, the body read only up to `maxBytes`. Anything but a 2xx is CAPTURE_FAILED (reason download)
 * naming the status.
 */
export async function downloadFile(raw: string, guard: OutboundGuard, options: DownloadOptions): Promise<Downloaded> {
  const param = options.param ?? 'download_from';
  let url = await guard.check(raw, param);
  for (let hops = 0; ; hops++) {
    const answer = await getOnce(url, guard, { ...options, param });
    if (answer.location === undefined) return answer;
    if (hops >= MAX_REDIRECTS) throw captureErrors.captureFailed('download', `${param}: ${raw} redirected more than ${MAX_REDIRECTS} times`);
    url = await guard.check(new URL(answer.location, url).href, param);
  }
}

function getOnce(url: URL, guard: OutboundGuard, { headers = {}, maxBytes, signal, param = 'download_from' }: DownloadOptions): Promise<Downloaded & { location?: string }> {
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
        reject(captureErrors.captureFailed('download', `${param}: ${url.href} answered ${status}`));
        return;
      }
      const declared = Number(response.headers['content-length'] ?? 0);
      if (declared > maxBytes) {
        request.destroy();
        reject(tooLarge(url, maxBytes, param));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) {
          request.destroy();
          reject(tooLarge(url, maxBytes, param));
          return;
        }
        chunks.push(chunk);
      });
      response.on('end', () => resolve({ body: Buffer.concat(chunks), type: response.headers['content-type'] }));
      response.on('error', reject);
    });
    request.on('error', (error) => reject(signal.aborted ? signal.reason : error instanceof CaptureError ? error : captureErrors.captureFailed('download', `${param}: ${url.href} could not be fetched: ${error.message}`, error)));
  });
}

function tooLarge(url: URL, limit: number, param: string): CaptureError {
  return new CaptureError('PAYLOAD_TOO_LARGE', `${param}: ${url.href} is larger than ${limit} bytes`, { details: { param, limit } });
}
