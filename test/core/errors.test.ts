import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CaptureError, ERROR_CATALOGUE, type ErrorCode } from '../../src/core/errors/catalogue.js';
import { toCaptureError } from '../../src/core/errors/to-capture-error.js';

const spec = readFileSync(new URL('../../docs/http-service.md', import.meta.url), 'utf8');

describe('error catalogue', () => {
  it('agrees with the error table of the docs (code and status)', () => {
    const rows = [...spec.matchAll(/^\| (\d{3}) \| `?([A-Z_]+)`? \|/gm)].map(([, status, code]) => [code, Number(status)]);
    expect(rows.length).toBeGreaterThanOrEqual(Object.keys(ERROR_CATALOGUE).length);
    for (const [code, status] of rows) expect(ERROR_CATALOGUE[code as ErrorCode]?.status, String(code)).toBe(status);
  });

  it.each(Object.entries(ERROR_CATALOGUE))('%s builds the documented JSON body', (code, entry) => {
    const error = new CaptureError(code as ErrorCode, 'message', { details: { param: 'x' } });
    expect(error.status).toBe(entry.status);
    const body = error.toJSON();
    expect(body.code).toBe(code);
    expect(typeof body.error).toBe('string');
  });

  it('never exposes the message or details of an internal error', () => {
    const body = new CaptureError('INTERNAL_ERROR', 'stack at /secret/path.js:1', { details: { path: '/secret' } }).toJSON();
    expect(body).toEqual({ error: 'Internal error', code: 'INTERNAL_ERROR' });
  });
});

describe('toCaptureError sorts browser failures', () => {
  it.each([
    ['page.goto: net::ERR_NAME_NOT_RESOLVED at http://x/', 'CAPTURE_FAILED', 'dns'],
    ['net::ERR_CONNECTION_REFUSED', 'CAPTURE_FAILED', 'connection_refused'],
    ['net::ERR_CERT_AUTHORITY_INVALID', 'CAPTURE_FAILED', 'tls'],
    ['net::ERR_CONNECTION_CLOSED', 'CAPTURE_FAILED', 'connection_reset'],
    ['net::ERR_CONNECTION_TIMED_OUT', 'CAPTURE_FAILED', 'connection_timeout'],
    ['net::ERR_SSL_PROTOCOL_ERROR', 'CAPTURE_FAILED', 'tls'],
    ['net::ERR_ADDRESS_UNREACHABLE', 'CAPTURE_FAILED', 'unreachable'],
    ['net::ERR_TOO_MANY_REDIRECTS', 'CAPTURE_FAILED', 'too_many_redirects'],
    ['net::ERR_INVALID_HTTP_RESPONSE', 'CAPTURE_FAILED', 'invalid_response'],
    ['net::ERR_HTTP2_PROTOCOL_ERROR', 'CAPTURE_FAILED', 'invalid_response'],
    ['net::ERR_UNSAFE_PORT', 'CAPTURE_FAILED', 'unsafe_port'],
    ['net::ERR_BLOCKED_BY_RESPONSE', 'CAPTURE_FAILED', 'blocked'],
    ['net::ERR_ABORTED', 'CAPTURE_FAILED', 'aborted'],
    ['net::ERR_SOMETHING_NEW_IN_CHROMIUM', 'CAPTURE_FAILED', 'network'],
    ['Target page, context or browser has been closed', 'CAPTURE_FAILED', 'browser_crashed'],
    // A page refreshing itself for ever (the hostile corpus's nav-meta-refresh-loop) met by the capture's own protocol session.
    ['cdpSession.send: Protocol error (Runtime.evaluate): Inspected target navigated or closed', 'CAPTURE_FAILED', 'page_navigated'],
    ['page.evaluate: Execution context was destroyed, most likely because of a navigation', 'CAPTURE_FAILED', 'page_navigated'],
  ])('%s → %s (%s)', (message, code, reason) => {
    const error = toCaptureError(new Error(message));
    expect(error.code).toBe(code);
    expect(error.details.reason).toBe(reason);
  });

  it.each(['UNSAFE_REDIRECT', 'UNKNOWN_URL_SCHEME', 'DISALLOWED_URL_SCHEME', 'INVALID_REDIRECT'])('net::ERR_%s is a refused URL (403), not a failure', (name) => {
    const error = toCaptureError(new Error(`page.goto: net::ERR_${name} at http://a.example/`), { url: 'http://a.example/' });
    expect(error).toMatchObject({ code: 'URL_NOT_ALLOWED', status: 403, details: { url: 'http://a.example/' } });
  });

  it('maps Playwright timeouts to CAPTURE_TIMEOUT and unknown errors to INTERNAL_ERROR', () => {
    const timeout = Object.assign(new Error('Timeout 30000ms exceeded'), { name: 'TimeoutError' });
    expect(toCaptureError(timeout).code).toBe('CAPTURE_TIMEOUT');
    expect(toCaptureError(new Error('something odd')).code).toBe('INTERNAL_ERROR');
    const original = new CaptureError('URL_NOT_ALLOWED');
    expect(toCaptureError(original)).toBe(original);
  });
});
