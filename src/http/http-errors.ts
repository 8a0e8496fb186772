import { CaptureError } from '../core/errors/catalogue.js';
import type { LimitState } from '../access/policy.js';

/** The errors only the HTTP service raises, each built here so its message and headers stay one. */
export function rateLimitExceeded(rate: LimitState): CaptureError {
  return new CaptureError('RATE_LIMIT_EXCEEDED', 'Rate limit exceeded', {
    details: { limit: rate.limit, remaining: 0, reset: rate.resetMs },
    headers: { 'Retry-After': retryAfter(rate.resetMs) },
  });
}

/** @param asked captures asked at once (a batch's items), when more than one */
export function quotaExceeded(quota: LimitState, asked = 1): CaptureError {
  return new CaptureError('QUOTA_EXCEEDED', asked > 1 ? `Monthly quota exceeded: the batch needs ${asked} captures` : 'Monthly quota exceeded', {
    details: { limit: quota.limit, remaining: 0, reset: quota.resetMs, ...(asked > 1 ? { asked } : {}) },
    headers: { 'Retry-After': retryAfter(quota.resetMs) },
  });
}

export function browserTimeExceeded(time: LimitState): CaptureError {
  return new CaptureError('BROWSER_TIME_EXCEEDED', `This key's captures held the browser for their ${time.limit} s of this hour (failed ones too)`, {
    details: { limit: time.limit, remaining: 0, reset: time.resetMs },
    headers: { 'Retry-After': retryAfter(time.resetMs) },
  });
}

export function missingApiKey(message = 'API key required: send it in X-API-Key, the api_key query parameter or the api_key body field'): CaptureError {
  return new CaptureError('MISSING_API_KEY', message);
}

export function invalidApiKey(message = 'Invalid API key'): CaptureError {
  return new CaptureError('INVALID_API_KEY', message);
}

export function signedOnlyKey(): CaptureError {
  return invalidApiKey('This key works only through signed render links, not in X-API-Key or api_key');
}

export function invalidSignature(message: string): CaptureError {
  return new CaptureError('INVALID_SIGNATURE', message, { details: { param: 'signature' } });
}

export function linkExpired(expires: number): CaptureError {
  return new CaptureError('LINK_EXPIRED', `This link expired at ${new Date(expires * 1000).toISOString()}`, { details: { param: 'expires', expired_at: expires } });
}

export function methodNotAllowed(allow: string): CaptureError {
  return new CaptureError('METHOD_NOT_ALLOWED', `Method not allowed; use ${allow}`, { headers: { Allow: allow } });
}

export function notFound(message: string): CaptureError {
  return new CaptureError('NOT_FOUND', message);
}

/**
 * A body over `limit`. With `uploadBytes`, a JSON or form body of the capture route, which a
 * multipart upload could carry: the answer says how, and up to what size (issue 50: the docs' own
 * Markdown example was a bare 413).
 */
export function payloadTooLarge(limit: number, uploadBytes?: number): CaptureError {
  if (uploadBytes === undefined) return new CaptureError('PAYLOAD_TOO_LARGE', `Request body exceeds ${limit} bytes`, { details: { limit } });
  const message =
    `Request body exceeds ${limit} bytes, the limit of a JSON or form body: send a larger html or markdown as multipart/form-data, ` +
    `a field (curl -F 'markdown=<README.md') or files (curl -F 'files=@index.md'), each up to ${uploadBytes} bytes, the key in X-API-Key`;
  return new CaptureError('PAYLOAD_TOO_LARGE', message, { details: { limit, upload_limit: uploadBytes } });
}

export function unsupportedMediaType(contentType: string): CaptureError {
  return new CaptureError('UNSUPPORTED_MEDIA_TYPE', `POST bodies must be application/json, application/x-www-form-urlencoded or multipart/form-data${contentType ? `, not ${contentType}` : ''}`);
}

function retryAfter(resetMs: number): string {
  return String(Math.max(1, Math.ceil((resetMs - Date.now()) / 1000)));
}
