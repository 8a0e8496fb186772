import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { CaptureEngine, Logger } from '../../src/index.js';
import { parseCaptureParams, CaptureError, createCaptureHttp, createMemoryKeyStore } from '../../src/index.js';
import { createTestEngine } from '../helpers/engine.js';
import { startApp, type RunningApp } from '../helpers/adapters.js';
import { rawGet } from '../helpers/raw-http.js';

const VALID = 'ce_hostile_valid_0123456789abcdef';
const REVOKED = 'ce_hostile_revoked_0123456789abcd';
const lines: string[] = [];
const log: Logger = {
  info: (fields, message) => lines.push(JSON.stringify({ message, ...fields })),
  warn: (fields, message) => lines.push(JSON.stringify({ message, ...fields })),
  error: (fields, message) => lines.push(JSON.stringify({ message, ...fields })),
};

let engine: CaptureEngine;
let app: RunningApp;
const capture = (query: string, init: RequestInit = {}): Promise<Response> => fetch(`${app.origin}/api/v1/capture?${query}`, init);
const withKey = { headers: { 'X-API-Key': VALID } };

beforeAll(async () => {
  const keyStore = createMemoryKeyStore([
    { key: VALID, tier: 'ENTERPRISE' },
    { key: REVOKED, tier: 'ENTERPRISE' },
  ]);
  await keyStore.revoke((await keyStore.lookup(REVOKED))!.id);
  // No name resolves: nothing in this file may ever reach an outside address.
  engine = await createTestEngine({ allowPrivateNetworks: false, resolver: async () => [], log });
  app = await startApp('express', createCaptureHttp(engine, { keyStore, log, tiers: { ENTERPRISE: { requestsPerMinute: 100_000 } } }));
});
afterAll(async () => {
  await app?.close();
  await engine?.close();
});

const code = async (response: Response): Promise<string> => ((await response.json()) as { code: string }).code;

describe('hostile targets', () => {
  it.each([
    'http://127.0.0.1/', 'http://2130706433/', 'http://0x7f.1/', 'http://017700000001/', 'http://127.1/',
    'http://[::ffff:127.0.0.1]/', 'http://[::1]/', 'http://LOCALHOST./', 'http://app.localhost/', 'http://0.0.0.0/',
    'http://169.254.169.254/latest/meta-data/', 'http://[fd00::1]/', 'http://10.0.0.1/', 'http://192.168.1.1/',
    'http://100.64.0.1/', 'http://[64:ff9b::7f00:1]/', 'FILE:///etc/passwd', 'file:///etc/passwd', 'javascript:alert(1)',
    'data:text/html,hi', 'view-source:http://example.com/', 'ftp://example.com/', 'chrome://settings', 'http://user:pw@example.com/',
  ])('%s → 403 URL_NOT_ALLOWED', async (url) => {
    const response = await capture(new URLSearchParams({ url }).toString(), withKey);
    expect(response.status).toBe(403);
    expect(await code(response)).toBe('URL_NOT_ALLOWED');
  });

  it.each([' http://example.com/', 'http://exa mple.com/', 'http://example.com/\u0000', 'http://example.com/\t', 'not a url', 'http://', `http://example.com/${'a'.repeat(9000)}`])(
    '%j → 400 INVALID_PARAMETER',
    async (url) => {
      const response = await fetch(`${app.origin}/api/v1/capture`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-API-Key': VALID }, body: JSON.stringify({ url }) });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ code: 'INVALID_PARAMETER', param: 'url' });
    },
  );

  it('a name that does not resolve is a 502 CAPTURE_FAILED (dns), quota refunded', async () => {
    const response = await capture('url=http://nowhere.example/', withKey);
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({ code: 'CAPTURE_FAILED', reason: 'dns' });
  });
});

describe('hostile bodies and parameters', () => {
  const post = (body: string, contentType = 'application/json'): Promise<Response> =>
    fetch(`${app.origin}/api/v1/capture`, { method: 'POST', headers: { 'Content-Type': contentType, 'X-API-Key': VALID }, body });

  it('1 MiB body → 413 without reading it all', async () => {
    const response = await post(JSON.stringify({ url: 'http://127.0.0.1/', pad: 'x'.repeat(1 << 20) }));
    expect(response.status).toBe(413);
  });

  it('deeply nested JSON within the limit → 400, not 500', async () => {
    const response = await post(`{"url":"http://127.0.0.1/","x":${'['.repeat(30_000)}${']'.repeat(30_000)}}`);
    expect([400, 403]).toContain(response.status);
  });

  it('__proto__ and constructor keys pollute nothing', async () => {
    const response = await post('{"url":"http://127.0.0.1/","__proto__":{"polluted":true,"format":"gif"},"constructor":{"prototype":{"polluted":true}}}');
    expect(response.status).toBe(403);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    ['{"url":{"href":"http://a.example"}}', 'url'],
    ['{"url":"http://a.example","viewport_width":"1e3"}', 'viewport_width'],
    ['{"url":"http://a.example","viewport_width":[800]}', 'viewport_width'],
    ['{"url":"http://a.example","full_page":"True"}', 'full_page'],
    ['{"url":"http://a.example","quality":" 90"}', 'quality'],
    ['{"url":"http://a.example","quality":1e400}', 'quality'],
    ['{"url":"http://a.example","format":"png\\u0000"}', 'format'],
    [`{"url":"http://a.example","hide_selectors":"${'a,'.repeat(3000)}"}`, 'hide_selectors'],
  ])('wrong type or shape %s → 400 naming %s', async (body, param) => {
    const response = await post(body);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'INVALID_PARAMETER', param });
  });

  it('invalid UTF-8 and broken JSON → 400', async () => {
    expect((await post('{"url": "\xff\xfe')).status).toBe(400);
  });

  it('a duplicated parameter → 400', async () => {
    const response = await capture('url=http://127.0.0.1/&url=http://127.0.0.2/', withKey);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'INVALID_PARAMETER', param: 'url' });
  });

  it('a form body with a NUL in the url → 400', async () => {
    const response = await post('url=http%3A%2F%2Fa.example%2F%00', 'application/x-www-form-urlencoded');
    expect(response.status).toBe(400);
  });
});

describe('hostile keys', () => {
  // The same body whatever the key, apart from the request's own id: nothing tells a key that exists from one that does not.
  const invalidBody = { error: 'Invalid API key', code: 'INVALID_API_KEY', request_id: expect.stringMatching(/^[0-9a-f-]{36}$/) };

  it.each([
    ['unknown', { 'X-API-Key': 'ce_unknown_0123456789abcdef' }],
    ['revoked', { 'X-API-Key': REVOKED }],
    ['huge', { 'X-API-Key': 'k'.repeat(8000) }],
    ['control characters', { 'X-API-Key': 'ce_\u0001\u0002' }],
  ])('%s key → the same 401 body', async (_name, headers) => {
    const response = await capture('url=http://127.0.0.1/', { headers: headers as Record<string, string> }).catch(() => undefined);
    if (!response) return; // fetch itself refuses some header bytes: nothing reached the server
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual(invalidBody);
  });

  it('api_key given twice with different values → 401, never one of them silently', async () => {
    const response = await capture(`url=http://127.0.0.1/&api_key=${VALID}&api_key=other`);
    expect(response.status).toBe(401);
    expect(await code(response)).toBe('INVALID_API_KEY');
  });

  it('header and query keys that disagree → 401; that agree → accepted', async () => {
    expect((await capture(`url=http://127.0.0.1/&api_key=other`, withKey)).status).toBe(401);
    expect((await capture(`url=http://127.0.0.1/&api_key=${VALID}`, withKey)).status).toBe(403);
  });

});

describe('hostile file paths', () => {
  it.each([
    '%2e%2e/%2e%2e/etc/passwd', '%252e%252e/%252e%252e/etc/passwd', '..%5c..%5cetc%5cpasswd', '..%2f..%2fetc%2fpasswd',
    '/etc/passwd', '//etc/passwd', '2026-01-01/x.png%00.txt', '2026-01-01/..', 'C:%5cwindows%5cwin.ini', '2026-01-01/x.PNG',
  ])('/api/files/%s → 404', async (filePath) => {
    const response = await rawGet(`${app.origin}/api/files/${filePath}`);
    expect(response.status).toBe(404);
    expect(response.body).not.toContain('root:');
  });

  it('a symlink planted in the storage directory is never followed', async () => {
    const folder = path.join(engine.options.tempDir, 'files', '2026-01-01');
    mkdirSync(folder, { recursive: true });
    symlinkSync('/etc/passwd', path.join(folder, 'planted.png'));
    const response = await rawGet(`${app.origin}/api/files/2026-01-01/planted.png`);
    expect(response.status).toBe(404);
    expect(response.body).not.toContain('root:');
  });
});

describe('the parameter parser under fuzzing', () => {
  it('never throws anything but a 4xx CaptureError', () => {
    const value = fc.oneof(fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 3 }), fc.object({ maxDepth: 2 }));
    const name = fc.constantFrom('url', 'format', 'viewport_width', 'viewport_height', 'full_page', 'quality', 'response_type', 'scenario', 'duration', 'latitude', 'longitude', 'wait_until', 'delay', 'hide_selectors', 'scroll_by', '__proto__', 'constructor', 'x');
    fc.assert(
      fc.property(fc.dictionary(name, value), (raw) => {
        try {
          parseCaptureParams(raw);
        } catch (error) {
          expect(error).toBeInstanceOf(CaptureError);
          expect((error as CaptureError).status).toBeGreaterThanOrEqual(400);
          expect((error as CaptureError).status).toBeLessThan(500);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('never answers 500 over HTTP for random query strings', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.string({ maxLength: 20 }), fc.string({ maxLength: 40 })), { maxLength: 6 }), async (pairs) => {
        const query = new URLSearchParams(pairs);
        query.set('url', 'http://127.0.0.1/');
        const response = await capture(query.toString(), withKey);
        await response.arrayBuffer();
        expect(response.status).toBeLessThan(500);
      }),
      { numRuns: 150 },
    );
  });
});

describe('logs', () => {
  it('never contain a key the suite used', () => {
    expect(lines.length).toBeGreaterThan(50);
    const text = lines.join('\n');
    for (const key of [VALID, REVOKED, 'ce_unknown_0123456789abcdef', `${VALID.slice(0, -1)}X`]) expect(text).not.toContain(key);
  });
});
