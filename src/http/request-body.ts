import { parse as parseContentType } from 'content-type';
import { captureErrors } from '../core/errors/factories.js';
import type { HttpRequest } from './http-types.js';
import { payloadTooLarge, unsupportedMediaType } from './http-errors.js';

/**
 * A parameter bag without a prototype, so `__proto__` or `constructor` are only ever plain,
 * ignored names. Repeated names become arrays, which the schema refuses as ambiguous.
 */
export type ParamBag = Record<string, unknown>;

export function fromSearchParams(search: URLSearchParams): ParamBag {
  const bag = Object.create(null) as ParamBag;
  search.forEach((value, name) => addParam(bag, name, value));
  return bag;
}

/** Adds one name and value to a bag; a name seen before becomes an array of its values. */
export function addParam(bag: ParamBag, name: string, value: string): void {
  const earlier = bag[name];
  if (earlier === undefined) bag[name] = value;
  else if (Array.isArray(earlier)) earlier.push(value);
  else bag[name] = [earlier, value];
}

/** Whether a request's body is an upload, read by `readMultipartParams` within the upload limits. */
export function isMultipart(headers: HttpRequest['headers']): boolean {
  return mediaType(headers['content-type']) === 'multipart/form-data';
}

/**
 * Reads a POST body: JSON object or form; anything else is 415, a body over the limit 413 (naming
 * multipart uploads of `uploadBytes` when the route takes them).
 */
export function readBodyParams(request: HttpRequest, limit: number, uploadBytes?: number): ParamBag {
  if (request.bodyTooLarge) throw payloadTooLarge(limit, uploadBytes);
  const body = request.body;
  if (body !== undefined && !(body instanceof Uint8Array)) return Object.assign(Object.create(null) as ParamBag, body);
  const contentType = mediaType(request.headers['content-type']);
  const text = body ? Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8') : '';
  if (contentType === 'application/json' || contentType.endsWith('+json')) return parseJsonBody(text);
  // curl's -d sends JSON as a form, and a client may send none: a body that is a JSON object is read
  // as one, not as a form whose only name is the whole text (which answered "url is required").
  if (contentType === '' && looksLikeJsonObject(text)) return parseJsonBody(text);
  if (contentType === 'application/x-www-form-urlencoded') return looksLikeJsonObject(text) ? parseJsonBody(text) : fromSearchParams(new URLSearchParams(text));
  throw unsupportedMediaType(contentType);
}

/** The media type of a Content-Type header, lower case; '' when absent, the raw value when malformed. */
export function mediaType(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value === '') return '';
  try {
    return parseContentType(value).type;
  } catch {
    return value.slice(0, 100);
  }
}

function parseJsonBody(text: string): ParamBag {
  let value: unknown;
  try {
    value = text.trim().length === 0 ? {} : JSON.parse(text);
  } catch {
    throw captureErrors.invalidParameter('body', 'Request body is not valid JSON', 'a JSON object');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw captureErrors.invalidParameter('body', 'Request body must be a JSON object', 'a JSON object');
  }
  return Object.assign(Object.create(null) as ParamBag, value);
}

function looksLikeJsonObject(text: string): boolean {
  const trimmed = text.trim();
  return trimmed.startsWith('{') && trimmed.endsWith('}');
}
