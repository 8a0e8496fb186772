import type { CaptureResult } from '../core/capture-result.js';
import type { Logger } from '../core/telemetry/logger.js';
import { toCaptureError } from '../core/errors/to-capture-error.js';
import type { UploadOutcome } from '../core/ports.js';
import type { HttpResponse } from './http-types.js';
import { reportFields, type CaptureReport } from './async-captures-port.js';
import { inertHtml } from './serve-file.js';

/** A JSON answer; `headers` is this request's own object and is completed in place. */
export function json(status: number, headers: Record<string, string>, body: unknown): HttpResponse {
  const text = JSON.stringify(body);
  headers['Content-Type'] = 'application/json; charset=utf-8';
  headers['Content-Length'] = String(Buffer.byteLength(text));
  return { status, headers, body: text };
}

/** Any failure as the interface's JSON error, with the headers computed so far. */
export function errorResponse(error: unknown, headers: Record<string, string>, log: Logger): HttpResponse {
  const failure = toCaptureError(error);
  if (failure.status >= 500 && failure.code !== 'SERVICE_BUSY') log.error({ code: failure.code, reason: failure.message }, 'capture failed');
  return { ...json(failure.status, Object.assign(headers, failure.headers), failure.toJSON()), code: failure.code };
}

/** A JSON object answer (errors too) with `fields` added; any other answer as it is. */
export function withJsonFields(response: HttpResponse, fields: Record<string, unknown>): HttpResponse {
  if (typeof response.body !== 'string' || !response.headers['Content-Type']?.startsWith('application/json')) return response;
  let body: unknown;
  try {
    body = JSON.parse(response.body);
  } catch {
    return response;
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return response;
  const text = JSON.stringify({ ...body, ...fields });
  response.headers['Content-Length'] = String(Buffer.byteLength(text));
  return { ...response, body: text };
}

/** The `response_type=json` answer: where a stored capture is served, and what it is. */
export function storedCaptureJson(headers: Record<string, string>, capture: CaptureReport & { url?: string; size: number; format: string; id: string; clippedFrom?: number; page?: unknown }): HttpResponse {
  const clipped = capture.clippedFrom === undefined ? {} : { clipped_from: capture.clippedFrom };
  const page = capture.page === undefined ? {} : { page: capture.page };
  return json(200, headers, { url: capture.url, size: capture.size, format: capture.format.toUpperCase(), status: 'completed', id: capture.id, ...clipped, ...page, ...reportFields(capture) });
}

/** The headers of a captured file answered whole: its type, length, name, id and any cut. */
export function setFileHeaders(
  headers: Record<string, string>,
  file: { contentType: string; size: number; id: string; extension: string; clippedFrom?: number; upload?: UploadOutcome },
): void {
  Object.assign(headers, {
    'Content-Type': file.contentType,
    'Content-Length': String(file.size),
    'Content-Disposition': `inline; filename="${file.id}.${file.extension}"`,
    'X-Capture-Id': file.id,
    ...inertHtml(file.contentType),
  });
  if (file.clippedFrom !== undefined) headers['X-Capture-Clipped-From'] = String(file.clippedFrom);
  if (file.upload !== undefined) headers['X-Upload-Status'] = String(file.upload.status);
}

/**
 * A finished capture: its description (`response_type=json`, the file stays in storage) or the
 * file itself, streamed, its temporary file removed once sent.
 */
export async function captureResponse(result: CaptureResult, asJson: boolean, headers: Record<string, string>, fileUrl: (key: string) => string): Promise<HttpResponse> {
  // The waits a `best_effort` capture went on without.
  if (result.incomplete !== undefined) headers['X-Capture-Incomplete'] = result.incomplete.join(', ');
  if (asJson) {
    await result.dispose();
    const sidecarUrls = result.sidecars && Object.fromEntries(Object.entries(result.sidecars).map(([name, { key }]) => [name, fileUrl(key)]));
    return storedCaptureJson(headers, { ...result, url: result.storageKey === undefined ? result.url : fileUrl(result.storageKey), sidecarUrls });
  }
  setFileHeaders(headers, result);
  headers['Cache-Control'] = 'no-store';
  return { status: 200, headers, body: result.data ?? result.stream(), onFinish: () => result.dispose() };
}
