import { CaptureError } from './errors.js';

const NET_REASONS: [RegExp, string][] = [
  [/ERR_NAME_NOT_RESOLVED|ERR_NAME_RESOLUTION_FAILED|ENOTFOUND/, 'dns'],
  [/ERR_CONNECTION_REFUSED|ECONNREFUSED/, 'connection_refused'],
  [/ERR_CONNECTION_RESET|ERR_CONNECTION_CLOSED|ERR_EMPTY_RESPONSE|ECONNRESET/, 'connection_reset'],
  [/ERR_CONNECTION_TIMED_OUT|ERR_TIMED_OUT/, 'connection_timeout'],
  [/ERR_CERT_|ERR_SSL_|ERR_BAD_SSL/, 'tls'],
  [/ERR_ADDRESS_UNREACHABLE|ERR_INTERNET_DISCONNECTED|ERR_NETWORK_CHANGED/, 'unreachable'],
  [/ERR_TOO_MANY_REDIRECTS/, 'too_many_redirects'],
  [/ERR_INVALID_RESPONSE|ERR_INVALID_HTTP_RESPONSE|ERR_CONTENT_DECODING_FAILED/, 'invalid_response'],
  [/ERR_UNSAFE_PORT/, 'unsafe_port'],
  [/ERR_ABORTED|ERR_BLOCKED_BY_CLIENT/, 'aborted'],
];

const BROWSER_GONE = /Target (page, context or browser )?(has been )?closed|Browser has been closed|browser has disconnected|Target crashed|Page crashed|Session closed/i;

/**
 * Sorts whatever a capture threw into the catalogue, in one place: raw Chromium, CDP and
 * Playwright failures become codes with a short reason; anything unknown is INTERNAL_ERROR.
 */
export function toCaptureError(error: unknown): CaptureError {
  if (error instanceof CaptureError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof Error && error.name === 'TimeoutError') {
    return new CaptureError('CAPTURE_TIMEOUT', 'Capture exceeded its time budget', { cause: error });
  }
  for (const [pattern, reason] of NET_REASONS) {
    if (pattern.test(message)) {
      return new CaptureError('CAPTURE_FAILED', `The page could not be loaded (${reason})`, {
        details: { reason },
        cause: error,
      });
    }
  }
  if (BROWSER_GONE.test(message)) {
    return new CaptureError('CAPTURE_FAILED', 'The browser failed during the capture', {
      details: { reason: 'browser_crashed' },
      cause: error,
    });
  }
  if (error instanceof Error && error.name === 'AbortError') {
    return new CaptureError('CAPTURE_FAILED', 'Capture aborted', { details: { reason: 'aborted' }, cause: error });
  }
  return new CaptureError('INTERNAL_ERROR', message, { cause: error });
}
