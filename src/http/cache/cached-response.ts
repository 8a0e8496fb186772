import type { HttpRequest, HttpResponse } from '../http-types.js';
import { setFileHeaders, storedCaptureJson } from '../responses.js';
import type { CachedFile } from './result-cache.js';

export interface CachedResponseOptions {
  /** `public` for render links (browsers and CDNs may keep them), `private` for `/v1/capture`. */
  visibility: 'public' | 'private';
  /** Headers computed so far (limits); completed in place. */
  headers: Record<string, string>;
  /** HEAD: headers only. */
  headOnly: boolean;
  now: number;
}

/**
 * A cached capture as HTTP: the file with `X-Cache`, `Age`, a strong `ETag` and a `Cache-Control`
 * lasting as long as the entry is fresh; `304` when the client holds those bytes already.
 */
export function cachedFileResponse({ outcome, entry, body }: CachedFile, request: HttpRequest, options: CachedResponseOptions): HttpResponse {
  const { headers, now } = options;
  const maxAge = Math.max(0, Math.floor((entry.expires - now) / 1000));
  const staleFor = Math.max(0, Math.floor((entry.staleUntil - Math.max(now, entry.expires)) / 1000));
  Object.assign(headers, {
    'X-Cache': cacheHeader(outcome),
    Age: String(Math.max(0, Math.floor((now - entry.created) / 1000))),
    ETag: entry.etag,
    'Last-Modified': new Date(entry.created).toUTCString(),
    'Cache-Control': `${options.visibility}, max-age=${maxAge}${staleFor > 0 ? `, stale-while-revalidate=${staleFor}` : ''}`,
    'X-Capture-Id': entry.id,
  });
  if (matchesEtag(request.headers['if-none-match'], entry.etag)) return { status: 304, headers, body: '' };
  setFileHeaders(headers, entry);
  if (options.headOnly) return { status: 200, headers, body: '' };
  return { status: 200, headers, body: Buffer.isBuffer(body) ? body : body() };
}

/** `response_type=json` of a cached capture: where its file and sidecars are served, as for any stored capture. */
export function cachedJsonResponse({ outcome, entry }: CachedFile, headers: Record<string, string>, fileUrl: (key: string) => string): HttpResponse {
  headers['X-Cache'] = cacheHeader(outcome);
  const sidecarUrls = entry.sidecars && Object.fromEntries(Object.entries(entry.sidecars).map(([name, key]) => [name, fileUrl(key)]));
  return storedCaptureJson(headers, { ...entry, url: fileUrl(entry.storageKey), sidecarUrls });
}

/** Requests that waited for another's capture got no cached answer: to the client, a MISS. */
export function cacheHeader(outcome: CachedFile['outcome']): string {
  return outcome === 'coalesced' ? 'MISS' : outcome.toUpperCase();
}

/** `If-None-Match` by the weak comparison RFC 9110 asks for: `*`, or any listed tag with the same opaque value. */
function matchesEtag(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value.trim() === '*') return true;
  return value.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
