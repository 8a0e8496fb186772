import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCaptureHttp, redisIdempotencyStore, type CaptureEngine } from '../../src/index.js';
import { createTestEngine } from '../helpers/engine.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startApp, type RunningApp } from '../helpers/adapters.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';

/** `Idempotency-Key` on POST /v1/capture: a retry gets the first answer, without a second capture or quota. */
const KEY = 'ce_idempotency_test_0123456789abcd';
let fixtures: FixtureServer;
let engine: CaptureEngine;
let app: RunningApp;
let redis: TestRedis;

beforeAll(async () => {
  fixtures = await startFixtureServer();
  engine = await createTestEngine({ allowPrivateNetworks: true });
  redis = await startRedis();
  app = await startApp('express', createCaptureHttp(engine, { apiKeys: [{ key: KEY, tier: 'PRO' }], idempotency: { store: redisIdempotencyStore(redis.client()) } }));
});
afterAll(async () => {
  await app?.close();
  await engine?.close();
  await redis?.stop();
  await fixtures?.close();
});

const post = (body: Record<string, unknown>, key?: string): Promise<Response> =>
  fetch(`${app.origin}/api/v1/capture`, {
    method: 'POST',
    headers: { 'X-API-Key': KEY, 'Content-Type': 'application/json', ...(key === undefined ? {} : { 'Idempotency-Key': key }) },
    body: JSON.stringify({ viewport_width: 200, viewport_height: 100, ...body }),
  });

describe('Idempotency-Key', () => {
  it('replays the first answer (same capture, same bytes) without capturing or spending quota again', async () => {
    const url = fixtures.url('/solid?color=%2300ff00&idem=1');
    const loads = (): number => fixtures.hits('/solid');
    const before = loads();
    const first = await post({ url }, 'order-1');
    expect(first.status).toBe(200);
    const bytes = Buffer.from(await first.arrayBuffer());
    expect(loads()).toBe(before + 1);
    const again = await post({ url }, 'order-1');
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('x-capture-id')).toBe(first.headers.get('x-capture-id'));
    expect(again.headers.get('x-quota-remaining')).toBe(first.headers.get('x-quota-remaining'));
    expect(Buffer.from(await again.arrayBuffer())).toEqual(bytes);
    expect(loads()).toBe(before + 1);
    // The same key with another body; the same body without a key captures again.
    const other = await post({ url, viewport_width: 300 }, 'order-1');
    expect(other.status).toBe(422);
    expect(await other.json()).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', param: 'Idempotency-Key' });
    expect((await post({ url })).status).toBe(200);
    expect(loads()).toBe(before + 2);
  });

  it('answers 409 while the first request runs, replays JSON answers, and frees the key of a failed request', async () => {
    const url = fixtures.url('/solid?idem=2');
    const running = post({ url, delay: 1500, response_type: 'json' }, 'order-2');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const busy = await post({ url, delay: 1500, response_type: 'json' }, 'order-2');
    expect(busy.status).toBe(409);
    expect(busy.headers.get('retry-after')).toBe('1');
    expect(await busy.json()).toMatchObject({ code: 'IDEMPOTENCY_KEY_IN_USE' });
    const first = await (await running).json();
    expect(first).toMatchObject({ status: 'completed', id: expect.any(String) });
    const replayed = await post({ url, delay: 1500, response_type: 'json' }, 'order-2');
    expect(await replayed.json()).toEqual(first);

    const failing = { url: fixtures.url('/solid?idem=3'), selector: '#missing' };
    const before = fixtures.hits('/solid');
    expect((await post(failing, 'order-3')).status).toBe(422);
    expect((await post(failing, 'order-3')).status).toBe(422);
    expect(fixtures.hits('/solid')).toBe(before + 2);
  });

  it('refuses a key that is not 1 to 255 visible characters', async () => {
    const response = await post({ url: fixtures.url('/solid') }, 'x'.repeat(256));
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'INVALID_PARAMETER', param: 'Idempotency-Key' });
  });
});
