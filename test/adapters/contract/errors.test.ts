import { describe, expect, it } from 'vitest';
import { closedPort } from '../../helpers/ports.js';
import { ADAPTERS } from '../../helpers/adapters.js';
import { contractSuite, KEYS, RATE_HEADERS, QUOTA_HEADERS } from './suite.js';

describe.each(ADAPTERS)('HTTP contract on %s: errors', (adapter) => {
  const suite = contractSuite(adapter);
  const { api, capture, solid } = suite;

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
    const before = await capture({ url: solid(), viewport_width: '50' }, { headers: { 'X-API-Key': KEYS.pro, 'X-Request-Id': 'contract-400' } });
    expect(before.status).toBe(400);
    // The request's id in the body too, as in its X-Request-Id header.
    expect(await before.json()).toEqual({ error: expect.any(String), code: 'INVALID_PARAMETER', param: 'viewport_width', allowed: 'integer 100..7680', request_id: 'contract-400' });
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
    expect(body).toEqual({ error: 'Rate limit exceeded', code: 'RATE_LIMIT_EXCEEDED', limit: 6, remaining: 0, reset: expect.any(Number), request_id: response.headers.get('x-request-id') });
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
});
