import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEngine } from '../../src/index.js';
import { createTestEngine } from '../helpers/engine.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { ADAPTERS, startApp, type RunningApp } from '../helpers/adapters.js';
import { decode, near, MAGIC } from '../helpers/pixels.js';
import { closedPort } from '../helpers/ports.js';
import { rawGet } from '../helpers/raw-http.js';

const KEYS = {
  free: 'ce_test_free_0123456789abcdefghij',
  basic: 'ce_test_basic_0123456789abcdefghi',
  pro: 'ce_test_pro_0123456789abcdefghijkl',
  limited: 'ce_test_limited_0123456789abcdefg',
  quota: 'ce_test_quota_0123456789abcdefghi',
};

let fixtures: FixtureServer;
beforeAll(async () => {
  fixtures = await startFixtureServer();
});
afterAll(async () => fixtures?.close());

const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];
const QUOTA_HEADERS = ['x-quota-limit', 'x-quota-remaining'];

describe.each(ADAPTERS)('HTTP contract on %s', (adapter) => {
  let engine: CaptureEngine;
  let app: RunningApp;
  const api = (path: string): string => `${app.origin}/api${path}`;
  const capture = (query: Record<string, string>, init: RequestInit = {}): Promise<Response> =>
    fetch(`${api('/v1/capture')}?${new URLSearchParams(query)}`, init);
  const solid = (): string => fixtures.url('/solid?color=%2300ff00');

  beforeAll(async () => {
    engine = await createTestEngine({
      apiKeys: [
        { key: KEYS.free, tier: 'FREE' },
        { key: KEYS.basic, tier: 'BASIC' },
        { key: KEYS.pro, tier: 'PRO' },
        { key: KEYS.limited, tier: 'BASIC' },
        { key: KEYS.quota, tier: 'ENTERPRISE' },
      ],
      tiers: { BASIC: { requestsPerMinute: 6 }, ENTERPRISE: { monthlyQuota: 2 }, PRO: { requestsPerMinute: 1000 } },
    });
    app = await startApp(adapter, engine);
  });
  afterAll(async () => {
    await app?.close();
    await engine?.close();
  });

  it('GET returns the image itself with type, length, id and limit headers', async () => {
    const response = await capture({ url: solid(), viewport_width: '320', viewport_height: '240' }, { headers: { 'X-API-Key': KEYS.pro } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    const body = Buffer.from(await response.arrayBuffer());
    expect(Number(response.headers.get('content-length'))).toBe(body.length);
    expect(body.subarray(0, 8)).toEqual(MAGIC.png);
    expect(response.headers.get('x-capture-id')).toMatch(/^[\w-]{22,}$/);
    for (const name of [...RATE_HEADERS, ...QUOTA_HEADERS]) expect(response.headers.get(name), name).toMatch(/^\d+$/);
    expect(response.headers.get('x-ratelimit-limit')).toBe('1000');
    expect(Number(response.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now());
    const image = await decode(body);
    expect([image.width, image.height]).toEqual([320, 240]);
    expect(near(image.at(160, 120), '#00ff00')).toBe(true);
  });

  it('takes the key from the api_key query parameter', async () => {
    const response = await capture({ url: solid(), format: 'jpg', viewport_width: '200', viewport_height: '200', api_key: KEYS.pro });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/jpeg');
    expect(Buffer.from(await response.arrayBuffer()).subarray(0, 3)).toEqual(MAGIC.jpg);
  });

  it('POST JSON with the key in the body', async () => {
    const response = await fetch(api('/v1/capture'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: solid(), format: 'webp', quality: 50, viewport_width: 200, viewport_height: 200, api_key: KEYS.pro }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/webp');
    expect(Buffer.from(await response.arrayBuffer()).subarray(0, 4)).toEqual(MAGIC.webp);
  });

  it('POST form-encoded', async () => {
    const response = await fetch(api('/v1/capture'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-API-Key': KEYS.pro },
      body: new URLSearchParams({ url: solid(), full_page: 'true', viewport_width: '200', viewport_height: '200' }),
    });
    expect(response.status).toBe(200);
    const image = await decode(Buffer.from(await response.arrayBuffer()));
    expect(image.width).toBe(200);
  });

  it('response_type=json stores the file; the files endpoint serves it with ranges', async () => {
    const response = await capture({ url: solid(), response_type: 'json', viewport_width: '200', viewport_height: '200' }, { headers: { 'X-API-Key': KEYS.pro } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const result = (await response.json()) as { url: string; size: number; format: string; status: string; id: string };
    expect(Object.keys(result).sort()).toEqual(['format', 'id', 'size', 'status', 'url']);
    expect(result).toMatchObject({ format: 'PNG', status: 'completed' });
    expect(result.url).toMatch(new RegExp(`^/api/files/.+/${result.id}\\.png$`));
    const file = await fetch(`${app.origin}${result.url}`);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/png');
    expect((await file.arrayBuffer()).byteLength).toBe(result.size);
    const part = await fetch(`${app.origin}${result.url}`, { headers: { Range: 'bytes=0-7' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 0-7/${result.size}`);
    expect(Buffer.from(await part.arrayBuffer())).toEqual(MAGIC.png);
    const beyond = await fetch(`${app.origin}${result.url}`, { headers: { Range: `bytes=${result.size}-` } });
    expect(beyond.status).toBe(416);
  });

  it.each(['%2e%2e/%2e%2e/etc/passwd', '..%2f..%2fetc%2fpasswd', '2026-01-01/..%5c..%5cx.png', 'nothing/here.png'])('files endpoint refuses %s', async (path) => {
    // fetch() would normalise the dots away; send the path exactly as an attacker would.
    const response = await rawGet(`${app.origin}/api/files/${path}`);
    expect(response.status).toBe(404);
    expect(JSON.parse(response.body)).toMatchObject({ code: 'NOT_FOUND' });
    for (const name of RATE_HEADERS) expect(response.headers[name], name).toBeDefined();
  });

  it.runIf(adapter === 'node')('the bare listener answers any other path with a JSON 404 and the limit headers', async () => {
    for (const path of ['/', '/api', '/api/v2/capture', '/elsewhere?url=x']) {
      const response = await rawGet(`${app.origin}${path}`);
      expect(response.status, path).toBe(404);
      expect(JSON.parse(response.body)).toMatchObject({ code: 'NOT_FOUND' });
      for (const name of RATE_HEADERS) expect(response.headers[name], `${path} ${name}`).toBeDefined();
    }
  });

  it('401 MISSING_API_KEY carries rate headers but no quota headers', async () => {
    const response = await capture({ url: solid() });
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toMatchObject({ code: 'MISSING_API_KEY', error: expect.any(String) });
    for (const name of RATE_HEADERS) expect(response.headers.get(name), name).not.toBeNull();
    for (const name of QUOTA_HEADERS) expect(response.headers.get(name), name).toBeNull();
  });

  it('401 INVALID_API_KEY for an unknown key', async () => {
    const response = await capture({ url: solid() }, { headers: { 'X-API-Key': 'ce_nope_000000' } });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ code: 'INVALID_API_KEY' });
  });

  it('400 INVALID_PARAMETER names the parameter and what is allowed, and uses no quota', async () => {
    const before = await capture({ url: solid(), viewport_width: '50' }, { headers: { 'X-API-Key': KEYS.pro } });
    expect(before.status).toBe(400);
    expect(await before.json()).toEqual({ error: expect.any(String), code: 'INVALID_PARAMETER', param: 'viewport_width', allowed: 'integer 100..7680' });
    const again = await capture({ format: 'bmp' }, { headers: { 'X-API-Key': KEYS.pro } });
    expect(again.headers.get('x-quota-remaining')).toBe(before.headers.get('x-quota-remaining'));
    for (const name of [...RATE_HEADERS, ...QUOTA_HEADERS]) expect(again.headers.get(name), name).not.toBeNull();
  });

  it('400 INCOMPATIBLE_PARAMETERS names both parameters', async () => {
    const response = await capture({ url: solid(), format: 'png', scenario: 'scroll' }, { headers: { 'X-API-Key': KEYS.pro } });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', params: ['format', 'scenario'] });
  });

  it('403 TIER_RESTRICTED for geolocation below PRO and duration above the tier maximum', async () => {
    const geo = await capture({ url: solid(), latitude: '1', longitude: '2' }, { headers: { 'X-API-Key': KEYS.free } });
    expect(geo.status).toBe(403);
    expect(await geo.json()).toMatchObject({ code: 'TIER_RESTRICTED', param: 'latitude', tier: 'FREE', required: 'PRO' });
    const long = await capture({ url: solid(), format: 'mp4', duration: '11' }, { headers: { 'X-API-Key': KEYS.free } });
    expect(long.status).toBe(403);
    expect(await long.json()).toMatchObject({ code: 'TIER_RESTRICTED', param: 'duration', tier: 'FREE', required: 'BASIC' });
  });

  it('403 URL_NOT_ALLOWED for other schemes', async () => {
    const response = await capture({ url: 'file:///etc/passwd' }, { headers: { 'X-API-Key': KEYS.pro } });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ code: 'URL_NOT_ALLOWED', url: 'file:///etc/passwd' });
  });

  it.each(['PUT', 'DELETE', 'PATCH'])('405 METHOD_NOT_ALLOWED for %s', async (method) => {
    const response = await fetch(api('/v1/capture'), { method, headers: { 'X-API-Key': KEYS.pro } });
    expect(response.status).toBe(405);
    expect(await response.json()).toMatchObject({ code: 'METHOD_NOT_ALLOWED' });
    expect(response.headers.get('x-ratelimit-limit')).not.toBeNull();
  });

  it('413 PAYLOAD_TOO_LARGE over 64 KiB and 415 for other body types', async () => {
    const big = await fetch(api('/v1/capture'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-API-Key': KEYS.pro },
      body: JSON.stringify({ url: solid(), hide_selectors: 'x'.repeat(70_000) }),
    });
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(big.headers.get('x-ratelimit-remaining')).not.toBeNull();
    const text = await fetch(api('/v1/capture'), { method: 'POST', headers: { 'Content-Type': 'text/plain', 'X-API-Key': KEYS.pro }, body: 'url=x' });
    expect(text.status).toBe(415);
    expect(await text.json()).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
  });

  it('502 CAPTURE_FAILED for an unreachable page refunds the quota', async () => {
    const headers = { 'X-API-Key': KEYS.pro };
    const before = Number((await capture({ url: solid(), viewport_width: '1' }, { headers })).headers.get('x-quota-remaining'));
    const failed = await capture({ url: `http://127.0.0.1:${await closedPort()}/` }, { headers });
    expect(failed.status).toBe(502);
    expect(await failed.json()).toMatchObject({ code: 'CAPTURE_FAILED', reason: 'connection_refused' });
    expect(Number(failed.headers.get('x-quota-remaining'))).toBe(before);
  });

  it('429 RATE_LIMIT_EXCEEDED after the limit, with the exact body and Retry-After', async () => {
    const headers = { 'X-API-Key': KEYS.limited };
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 7; i++) {
      last = await capture({ url: solid(), viewport_width: '1' }, { headers });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([400, 400, 400, 400, 400, 400, 429]);
    const response = last as Response;
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toEqual({ error: 'Rate limit exceeded', code: 'RATE_LIMIT_EXCEEDED', limit: 6, remaining: 0, reset: expect.any(Number) });
    expect(response.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(response.headers.get('x-ratelimit-reset')).toBe(String(body.reset));
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('429 QUOTA_EXCEEDED once the monthly quota is used; headers count the capture itself', async () => {
    const headers = { 'X-API-Key': KEYS.quota };
    const query = { url: solid(), viewport_width: '100', viewport_height: '100' };
    const first = await capture(query, { headers });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-quota-limit')).toBe('2');
    expect(first.headers.get('x-quota-remaining')).toBe('1');
    expect((await capture(query, { headers })).headers.get('x-quota-remaining')).toBe('0');
    const refused = await capture(query, { headers });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ code: 'QUOTA_EXCEEDED', limit: 2, remaining: 0, reset: expect.any(Number) });
    expect(refused.headers.get('retry-after')).not.toBeNull();
  });

  it('serves the OpenAPI 3.1 document built from the schema', async () => {
    const response = await fetch(api('/v1/openapi.json'));
    expect(response.status).toBe(200);
    const document = (await response.json()) as { openapi: string; paths: Record<string, unknown>; components: { schemas: Record<string, { properties: Record<string, unknown> }> } };
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toContain('/v1/capture');
    expect(Object.keys(document.components.schemas.CaptureParams?.properties ?? {})).toContain('scroll_by');
  });

  it('leaves the app\'s own routes alone', async () => {
    expect(await (await fetch(`${app.origin}/health`)).text()).toBe('ok');
    const echo = await fetch(`${app.origin}/echo`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"a":1}' });
    expect(await echo.json()).toEqual({ a: 1 });
  });

  it('a client disconnect cancels the running capture and frees its context', async () => {
    const controller = new AbortController();
    const pending = capture({ url: fixtures.url('/never') }, { headers: { 'X-API-Key': KEYS.pro }, signal: controller.signal }).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(engine.stats.running).toBe(1);
    controller.abort();
    await pending;
    for (let i = 0; i < 50 && engine.stats.running > 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(engine.stats.running).toBe(0);
  });
});
