import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { decode, near, MAGIC } from '../../helpers/pixels.js';
import { rawGet } from '../../helpers/raw-http.js';
import { until } from '../../helpers/wait.js';
import { ADAPTERS } from '../../helpers/adapters.js';
import { operatorLinkCredentials, renderLink } from '../../../src/index.js';
import { contractSuite, KEYS, RATE_HEADERS, QUOTA_HEADERS } from './suite.js';

describe.each(ADAPTERS)('HTTP contract on %s: answers', (adapter) => {
  const suite = contractSuite(adapter);
  const { api, capture, solid } = suite;

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

  it('POST multipart: an uploaded document and its stylesheet, and its fields as parameters', async () => {
    const form = new FormData();
    form.append('files', new Blob(['<link rel="stylesheet" href="css/page.css"><body></body>'], { type: 'text/html' }), 'index.html');
    form.append('files', new Blob(['body{margin:0;background:#2468ac}']), 'css/page.css');
    form.append('format', 'webp');
    form.append('viewport_width', '240');
    form.append('viewport_height', '160');
    const response = await fetch(api('/v1/capture'), { method: 'POST', headers: { 'X-API-Key': KEYS.pro }, body: form });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/webp');
    const image = await decode(Buffer.from(await response.arrayBuffer()));
    expect([image.width, image.height]).toEqual([240, 160]);
    expect(near(image.at(120, 80), '#2468ac')).toBe(true);
  });

  it('response_type=json stores the file; the files endpoint serves it with ranges', async () => {
    const response = await capture({ url: solid(), response_type: 'json', viewport_width: '200', viewport_height: '200' }, { headers: { 'X-API-Key': KEYS.pro } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const result = (await response.json()) as { url: string; size: number; format: string; status: string; id: string };
    expect(Object.keys(result).sort()).toEqual(['format', 'id', 'request_id', 'size', 'status', 'url']);
    expect(result).toMatchObject({ format: 'PNG', status: 'completed' });
    expect(result.url).toMatch(new RegExp(`^/api/files/.+/${result.id}\\.png$`));
    const file = await fetch(`${suite.app.origin}${result.url}`);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/png');
    expect((await file.arrayBuffer()).byteLength).toBe(result.size);
    const part = await fetch(`${suite.app.origin}${result.url}`, { headers: { Range: 'bytes=0-7' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 0-7/${result.size}`);
    expect(Buffer.from(await part.arrayBuffer())).toEqual(MAGIC.png);
    const beyond = await fetch(`${suite.app.origin}${result.url}`, { headers: { Range: `bytes=${result.size}-` } });
    expect(beyond.status).toBe(416);
  });

  it('a full page cut at full_page_max_height says so: clipped_from in JSON, X-Capture-Clipped-From on the file', async () => {
    const query = { url: suite.fixtures.url('/bands?count=3'), full_page: 'true', full_page_max_height: '1000', viewport_width: '200', viewport_height: '200' };
    const json = await capture({ ...query, response_type: 'json' }, { headers: { 'X-API-Key': KEYS.pro } });
    expect(await json.json()).toMatchObject({ status: 'completed', clipped_from: 3000 });
    const file = await capture(query, { headers: { 'X-API-Key': KEYS.pro } });
    expect(file.headers.get('x-capture-clipped-from')).toBe('3000');
    expect((await sharp(Buffer.from(await file.arrayBuffer())).metadata()).height).toBe(1000);
  });

  it.each(['%2e%2e/%2e%2e/etc/passwd', '..%2f..%2fetc%2fpasswd', '2026-01-01/..%5c..%5cx.png', 'nothing/here.png'])('files endpoint refuses %s', async (path) => {
    // fetch() would normalise the dots away; send the path exactly as an attacker would.
    const response = await rawGet(`${suite.app.origin}/api/files/${path}`);
    expect(response.status).toBe(404);
    expect(JSON.parse(response.body)).toMatchObject({ code: 'NOT_FOUND' });
    for (const name of RATE_HEADERS) expect(response.headers[name], name).toBeDefined();
  });

  it.runIf(adapter === 'node')('the bare listener answers any other path with a JSON 404 and the limit headers', async () => {
    for (const path of ['/', '/api', '/api/v2/capture', '/elsewhere?url=x']) {
      const response = await rawGet(`${suite.app.origin}${path}`);
      expect(response.status, path).toBe(404);
      expect(JSON.parse(response.body)).toMatchObject({ code: 'NOT_FOUND' });
      for (const name of RATE_HEADERS) expect(response.headers[name], `${path} ${name}`).toBeDefined();
    }
  });

  it('serves the OpenAPI 3.1 document built from the schema', async () => {
    const response = await fetch(api('/v1/openapi.json'));
    expect(response.status).toBe(200);
    const document = (await response.json()) as { openapi: string; paths: Record<string, unknown>; components: { schemas: Record<string, { properties: Record<string, unknown> }> } };
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toContain('/v1/capture');
    expect(Object.keys(document.paths)).toContain('/v1/render');
    expect(Object.keys(document.components.schemas.CaptureParams?.properties ?? {})).toContain('scroll_by');
  });

  it('a signed render link answers the image, then from the cache; HEAD and If-None-Match too', async () => {
    const link = renderLink({ baseUrl: suite.app.origin, ...operatorLinkCredentials(KEYS.pro), params: { url: solid(), viewport_width: 120, viewport_height: 100, cache_key: adapter } });
    const head = await fetch(link, { method: 'HEAD' });
    expect([head.status, head.headers.get('x-cache'), head.headers.get('content-type')]).toEqual([200, 'MISS', 'image/png']);
    expect(Buffer.from(await head.arrayBuffer()).length).toBe(0);
    const hit = await fetch(link);
    const body = Buffer.from(await hit.arrayBuffer());
    expect([hit.status, hit.headers.get('x-cache')]).toEqual([200, 'HIT']);
    expect(body.length).toBe(Number(head.headers.get('content-length')));
    expect(body.subarray(0, 8)).toEqual(MAGIC.png);
    expect(hit.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
    const etag = hit.headers.get('etag') as string;
    const notModified = await fetch(link, { headers: { 'If-None-Match': `W/${etag}, "other"` } });
    expect([notModified.status, notModified.headers.get('etag'), notModified.headers.get('x-cache')]).toEqual([304, etag, 'HIT']);
    const forged = await fetch(link.replace('viewport_width=120', 'viewport_width=121'));
    expect([forged.status, ((await forged.json()) as { code: string }).code]).toEqual([403, 'INVALID_SIGNATURE']);
    const posted = await fetch(link, { method: 'POST' });
    expect([posted.status, posted.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
  });

  it('leaves the app\'s own routes alone', async () => {
    expect(await (await fetch(`${suite.app.origin}/health`)).text()).toBe('ok');
    const echo = await fetch(`${suite.app.origin}/echo`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"a":1}' });
    expect(await echo.json()).toEqual({ a: 1 });
  });

  it('a client disconnect cancels the running capture and frees its context', async () => {
    const controller = new AbortController();
    const pending = capture({ url: suite.fixtures.url('/never') }, { headers: { 'X-API-Key': KEYS.pro }, signal: controller.signal }).catch(() => undefined);
    await until(() => suite.engine.stats.running === 1, 'the capture to start');
    controller.abort();
    await pending;
    await until(() => suite.engine.stats.running === 0, 'the aborted capture to end');
  });
});
