import { CaptureError } from './errors.js';
import type { HttpRequest } from './http-types.js';

/**
 * A parameter bag without a prototype, so `__proto__` or `constructor` are only ever plain,
 * ignored names. Repeated names become arrays, which the schema refuses as ambiguous.
 */
export type ParamBag = Record<string, unknown>;

export function fromSearchParams(search: URLSearchParams): ParamBag {
  const bag = Object.create(null) as ParamBag;
  search.forEach((value, name) => {
    const earlier = bag[name];
    if (earlier === undefined) bag[name] = value;
    else if (Array.isArray(earlier)) earlier.push(value);
    else bag[name] = [earlier, value];
  });
  return bag;
}

function header(request: HttpRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Reads a POST body: JSON object or form; anything else is 415, a body over the limit 413. */
export function readBodyParams(request: HttpRequest, limit: number): ParamBag {
  if (request.bodyTooLarge) {
    throw new CaptureError('PAYLOAD_TOO_LARGE', `Request body exceeds ${limit} bytes`, { details: { limit } });
  }
  const body = request.body;
  if (body !== undefined && !(body instanceof Uint8Array)) return Object.assign(Object.create(null) as ParamBag, body);
  const contentType = (header(request, 'content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const text = body ? Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8') : '';
  if (contentType === 'application/json' || contentType.endsWith('+json')) return parseJsonBody(text);
  if (contentType === 'application/x-www-form-urlencoded') return fromSearchParams(new URLSearchParams(text));
  throw new CaptureError(
    'UNSUPPORTED_MEDIA_TYPE',
    `POST bodies must be application/json or application/x-www-form-urlencoded${contentType ? `, not ${contentType}` : ''}`,
  );
}

function parseJsonBody(text: string): ParamBag {
  let value: unknown;
  try {
    value = text.trim().length === 0 ? {} : JSON.parse(text);
  } catch {
    throw new CaptureError('INVALID_PARAMETER', 'Request body is not valid JSON', { details: { param: 'body', allowed: 'a JSON object' } });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new CaptureError('INVALID_PARAMETER', 'Request body must be a JSON object', { details: { param: 'body', allowed: 'a JSON object' } });
  }
  return Object.assign(Object.create(null) as ParamBag, value);
}
