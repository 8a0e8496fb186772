import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CaptureError, ERROR_CATALOGUE, type ErrorCode } from '../../src/core/errors.js';
import { toCaptureError } from '../../src/core/to-capture-error.js';

const spec = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('error catalogue', () => {
  it('agrees with the error table of the README (code and status)', () => {
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
    ['Target page, context or browser has been closed', 'CAPTURE_FAILED', 'browser_crashed'],
  ])('%s → %s (%s)', (message, code, reason) => {
    const error = toCaptureError(new Error(message));
    expect(error.code).toBe(code);
    expect(error.details.reason).toBe(reason);
  });

  it('maps Playwright timeouts to CAPTURE_TIMEOUT and unknown errors to INTERNAL_ERROR', () => {
    const timeout = Object.assign(new Error('Timeout 30000ms exceeded'), { name: 'TimeoutError' });
    expect(toCaptureError(timeout).code).toBe('CAPTURE_TIMEOUT');
    expect(toCaptureError(new Error('something odd')).code).toBe('INTERNAL_ERROR');
    const original = new CaptureError('URL_NOT_ALLOWED');
    expect(toCaptureError(original)).toBe(original);
  });
});
