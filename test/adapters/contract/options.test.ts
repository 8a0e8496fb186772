import { createCaptureHttp } from '../../../src/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEngine } from '../../../src/index.js';
import { createTestEngine } from '../../helpers/engine.js';
import { startFixtureServer, type FixtureServer } from '../../helpers/fixture-server.js';
import { ADAPTERS, startApp, type RunningApp } from '../../helpers/adapters.js';
import { QUOTA_HEADERS, RATE_HEADERS } from './suite.js';

/**
 * The error codes of the capture options on every adapter: one engine with a short budget (what is
 * never found is refused soon) and a FREE tier that closes the expensive options.
 */

const KEYS = { free: 'ce_options_free_0123456789abcdefg', pro: 'ce_options_pro_0123456789abcdefgh' };
let fixtures: FixtureServer;
let engine: CaptureEngine;
const apps = new Map<string, RunningApp>();

beforeAll(async () => {
  fixtures = await startFixtureServer();
  engine = await createTestEngine({ timeoutMs: 2_500 });
  const http = createCaptureHttp(engine, {
    apiKeys: [
      { key: KEYS.free, tier: 'FREE' },
      { key: KEYS.pro, tier: 'PRO' },
    ],
    tiers: { FREE: { requestsPerMinute: 1000, scripts: false, maxDeviceScaleFactor: 2, formats: ['png', 'jpg', 'webp'] }, PRO: { requestsPerMinute: 1000, maxPdfPages: 2 } },
  });
  for (const adapter of ADAPTERS) apps.set(adapter, await startApp(adapter, http));
});
afterAll(async () => {
  for (const app of apps.values()) await app.close();
  await engine?.close();
  await fixtures?.close();
});

/** The metrics of a `Server-Timing` header, by name, each with its duration or description. */
const serverTiming = (response: Response): (string | undefined)[] =>
  (response.headers.get('server-timing') ?? '').split(', ').map((metric) => /^([a-z]+);(?:dur=\d+\.\d|desc="[A-Z]+")$/.exec(metric)?.[1]);

describe.each(ADAPTERS)('HTTP contract on %s: capture options', (adapter) => {
  const capture = (key: string, query: Record<string, string>): Promise<Response> =>
    fetch(`${apps.get(adapter)?.origin}/api/v1/capture?${new URLSearchParams({ url: fixtures.url('/box'), viewport_width: '300', viewport_height: '200', ...query })}`, {
      headers: { 'X-API-Key': key },
    });

  it('422 ELEMENT_NOT_FOUND names the parameter and the selector, with the usual headers and no quota used', async () => {
    const before = await capture(KEYS.pro, { selector: '#box' });
    expect(before.status).toBe(200);
    const response = await capture(KEYS.pro, { selector: '#missing' });
    expect(response.status).toBe(422);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({ error: expect.any(String), code: 'ELEMENT_NOT_FOUND', param: 'selector', selector: '#missing', request_id: expect.any(String) });
    for (const name of [...RATE_HEADERS, ...QUOTA_HEADERS]) expect(response.headers.get(name), name).not.toBeNull();
    expect(response.headers.get('x-quota-remaining')).toBe(before.headers.get('x-quota-remaining'));
  });

  it('Server-Timing names the queue and every phase; best_effort says which wait ran out, in a header and in JSON', async () => {
    const plain = await capture(KEYS.pro, {});
    expect(plain.status).toBe(200);
    expect(serverTiming(plain)).toEqual(['queue', 'prepare', 'navigate', 'settle', 'capture', 'encode', 'store', 'total']);
    expect(plain.headers.get('x-capture-incomplete')).toBeNull();
    const partial = await capture(KEYS.pro, { wait_for_hidden: '#box', best_effort: 'true' });
    expect(partial.status).toBe(200);
    expect(partial.headers.get('x-capture-incomplete')).toBe('wait_for_hidden');
    const described = await capture(KEYS.pro, { wait_for_hidden: '#box', best_effort: 'true', response_type: 'json' });
    expect(await described.json()).toMatchObject({ status: 'completed', incomplete: ['wait_for_hidden'] });
  });

  it('Server-Timing on every answer: the phases a failed capture ran, the cache\'s answer, the time of a refusal', async () => {
    const failed = await capture(KEYS.pro, { selector: '#missing' });
    expect(failed.status).toBe(422);
    expect(serverTiming(failed)).toEqual(['queue', 'prepare', 'navigate', 'settle', 'capture', 'total']);
    const refused = await capture(KEYS.pro, { viewport_width: 'wide' });
    expect(refused.status).toBe(400);
    expect(serverTiming(refused)).toEqual(['total']);
    const query = { cache: 'true', viewport_width: String(300 + ADAPTERS.indexOf(adapter)) };
    expect(serverTiming(await capture(KEYS.pro, query))).toEqual(['queue', 'prepare', 'navigate', 'settle', 'capture', 'encode', 'store', 'cache', 'total']);
    const hit = await capture(KEYS.pro, query);
    expect(hit.headers.get('x-cache')).toBe('HIT');
    expect(hit.headers.get('server-timing')).toMatch(/^cache;desc="HIT", total;dur=\d+\.\d$/);
  });

  it('diagnostics and har answer in JSON: what the page did, and a HAR served beside the file', async () => {
    const response = await capture(KEYS.pro, { diagnostics: 'true', har: 'true', response_type: 'json' });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.diagnostics).toMatchObject({ document: { url: fixtures.url('/box'), status: 200 }, redirects: [], console: [], requests: { failed: [], blocked: [] } });
    expect(body.har_url).toBe(body.url.replace(/\.png$/, '-har.har'));
    const har = await fetch(`${apps.get(adapter)?.origin}${body.har_url}`, { headers: { 'X-API-Key': KEYS.pro } });
    expect(har.headers.get('content-type')).toMatch(/^application\/json/);
    expect((await har.json()).log.entries.map((entry: { request: { url: string } }) => entry.request.url)).toContain(fixtures.url('/box'));
    const refused = await capture(KEYS.pro, { diagnostics: 'true' });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS' });
  });

  it('422 CAPTURE_REJECTED names the rule and what matched', async () => {
    const response = await capture(KEYS.pro, { fail_if_selector: '#box' });
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual({ error: expect.any(String), code: 'CAPTURE_REJECTED', reason: 'selector_present', items: [{ selector: '#box' }], request_id: expect.any(String) });
  });

  it('400 INVALID_PARAMETER for a selector that is no CSS', async () => {
    const response = await capture(KEYS.pro, { click: 'div[' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'INVALID_PARAMETER', param: 'click' });
  });

  it.each([
    [{ scripts: 'document.title = "x"' }, { param: 'scripts', required: 'BASIC' }],
    [{ wait_for_function: 'document.fonts.status === "loaded"' }, { param: 'wait_for_function', required: 'BASIC' }],
    [{ device_scale_factor: '3' }, { param: 'device_scale_factor', required: 'BASIC', max: 2 }],
    [{ format: 'pdf' }, { param: 'format', required: 'BASIC' }],
    [{ format: 'gif' }, { param: 'format', required: 'BASIC' }],
    [{ actions: '[{"evaluate": "document.title = 1"}]' }, { param: 'actions', required: 'BASIC' }],
  ])('403 TIER_RESTRICTED where the tier closes %o', async (query, details) => {
    const response = await capture(KEYS.free, query);
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ code: 'TIER_RESTRICTED', tier: 'FREE', ...details });
  });

  // The limits are the engine's: one adapter shows the answer, the others would print the same PDFs again.
  it.runIf(adapter === 'node').each([
    ['/bands?count=3', {}, { param: 'pdf_max_pages', max: 2 }],
    ['/box', { pdf_max_bytes: '1024' }, { param: 'pdf_max_bytes', max: 1024 }],
  ])('413 PAYLOAD_TOO_LARGE for a PDF over the tier\'s pages (2 on this PRO) or the bytes asked: %s %o', async (page, query, details) => {
    const response = await capture(KEYS.pro, { format: 'pdf', url: fixtures.url(page), ...query });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', ...details });
  });

  it.each([
    [{ actions: '[{"action": "type", "selector": "#box"}]' }, { param: 'actions', error: expect.stringMatching(/step 0 \(type\) needs text/) }],
    [{ actions: '[{"action": "fly"}]' }, { param: 'actions[0].action' }],
    [{ actions: 'click #box' }, { param: 'actions' }],
    [{ block_resources: 'image,video' }, { param: 'block_resources', error: expect.stringMatching(/'video' is not a kind of request/) }],
    [{ device: 'Nokia 3310' }, { param: 'device' }],
    [{ device_scale_factor: '5' }, { param: 'device_scale_factor' }],
  ])('400 INVALID_PARAMETER for %o, naming the parameter', async (query, details) => {
    const response = await capture(KEYS.pro, query);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'INVALID_PARAMETER', ...details });
  });

  it('Idempotency-Key: a POST sent again gets the first answer; other parameters are 422 IDEMPOTENCY_KEY_REUSED', async () => {
    const post = (width: number): Promise<Response> =>
      fetch(`${apps.get(adapter)?.origin}/api/v1/capture`, {
        method: 'POST',
        headers: { 'X-API-Key': KEYS.pro, 'Content-Type': 'application/json', 'Idempotency-Key': `contract-${adapter}` },
        body: JSON.stringify({ url: fixtures.url('/box'), viewport_width: width, viewport_height: 200 }),
      });
    const first = await post(300);
    expect(first.status).toBe(200);
    const again = await post(300);
    expect([again.status, again.headers.get('idempotent-replayed'), again.headers.get('x-capture-id')]).toEqual([200, 'true', first.headers.get('x-capture-id')]);
    expect(Buffer.from(await again.arrayBuffer())).toEqual(Buffer.from(await first.arrayBuffer()));
    const other = await post(310);
    expect(other.status).toBe(422);
    expect(await other.json()).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', param: 'Idempotency-Key' });
  });

  it('422 ACTION_FAILED names the step that failed', async () => {
    const response = await capture(KEYS.pro, { actions: JSON.stringify([{ wait: 10 }, { press: 'NoSuchKey' }]) });
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ code: 'ACTION_FAILED', param: 'actions', index: 1, action: 'press', reason: expect.stringMatching(/NoSuchKey/) });
  });

  it.each([
    [{ scroll_into_view: '#box', full_page: 'true' }, ['scroll_into_view', 'full_page']],
    [{ format: 'png', fps: '24' }, ['fps', 'format']],
    [{ image_fit: 'contain' }, ['image_fit', 'image_width']],
    [{ format: 'gif', duration: '31' }, ['duration', 'format']],
    [{ format: 'pdf', selector: '#box' }, ['selector', 'format']],
    [{ format: 'jpg', omit_background: 'true' }, ['omit_background', 'format']],
    [{ selector: '#box', clip_x: '0', clip_y: '0', clip_width: '10', clip_height: '10' }, ['clip_x', 'selector']],
  ])('400 INCOMPATIBLE_PARAMETERS for %o', async (query, params) => {
    const response = await capture(KEYS.pro, query);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', params });
  });
});
