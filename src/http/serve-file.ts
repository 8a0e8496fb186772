import rangeParser from 'range-parser';
import type { HttpRequest, HttpResponse } from './http-types.js';
import type { CaptureStorage } from '../core/storage.js';
import { CaptureError } from '../core/errors/catalogue.js';
import { notFound } from './http-errors.js';
import type { Caller } from './caller.js';
import { CACHE_FOLDER, isCacheFileOf } from './cache/cache-files.js';
import { REPLAY_FOLDER } from './idempotency/replay-files.js';

/**
 * Whether `caller` may read the file under `key`: a capture's file, whoever holds its unguessable
 * path (the interface's `url`); a cached capture, its owner's key only, so that revoking the key
 * ends every way to it; an idempotent answer's bytes, nobody (they are replayed, never linked).
 */
export function mayRead(key: string, caller: Caller): boolean {
  const folder = key.slice(0, key.indexOf('/'));
  if (folder === REPLAY_FOLDER) return false;
  if (folder === CACHE_FOLDER) return caller.kind === 'account' && isCacheFileOf(key, caller.record.id);
  return true;
}

/**
 * Serves a stored file with byte ranges (video players seek with them), or redirects to where the
 * storage serves it itself (a presigned URL, which answers ranges too). The key is taken as the raw
 * path, never decoded: anything but `<folder>/<id>.<ext>` is simply not found.
 */
export async function serveFile(storage: CaptureStorage | undefined, key: string, request: HttpRequest, headOnly: boolean): Promise<HttpResponse> {
  const file = await storage?.get(key);
  if (!file) throw notFound('File not found or expired');
  if (file.redirectUrl !== undefined) {
    // The URL expires soon: the redirect must not outlive it in a cache.
    return { status: 302, headers: { Location: file.redirectUrl, 'Cache-Control': 'no-store', 'Content-Length': '0' }, body: '' };
  }
  const headers: Record<string, string> = {
    'Content-Type': file.contentType,
    'Accept-Ranges': 'bytes',
    'Cache-Control': 'private, max-age=3600',
    'X-Content-Type-Options': 'nosniff',
    ...inertHtml(file.contentType),
  };
  const rangeHeader = request.headers.range;
  const range = typeof rangeHeader === 'string' ? parseRange(rangeHeader, file.size) : undefined;
  if (range === 'unsatisfiable') {
    throw new CaptureError('RANGE_NOT_SATISFIABLE', `Range not satisfiable for ${file.size} bytes`, {
      headers: { 'Content-Range': `bytes */${file.size}` },
    });
  }
  if (range) {
    headers['Content-Range'] = `bytes ${range.start}-${range.end}/${file.size}`;
    headers['Content-Length'] = String(range.end - range.start + 1);
    return { status: 206, headers, body: headOnly ? '' : file.stream(range) };
  }
  headers['Content-Length'] = String(file.size);
  return { status: 200, headers, body: headOnly ? '' : file.stream() };
}

/** One `bytes=` range; a malformed header or several ranges are answered with the whole file. */
export function parseRange(header: string, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  const ranges = rangeParser(size, header, { combine: true });
  if (ranges === -1) return 'unsatisfiable';
  if (ranges === -2 || ranges.type !== 'bytes' || ranges.length !== 1) return undefined;
  const [only] = ranges;
  return only && { start: only.start, end: only.end };
}

/**
 * A captured page's HTML (`format=html`) is served from the service's own origin: sandboxed, with
 * nothing it may load or run, it cannot act as the service.
 */
export function inertHtml(contentType: string): Record<string, string> {
  return contentType.startsWith('text/html') ? { 'Content-Security-Policy': "sandbox; default-src 'none'" } : {};
}
