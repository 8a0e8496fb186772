import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCaptureHttp } from '../../src/index.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startService, type ServiceUnderTest } from './service-under-test.js';

let redis: TestRedis | undefined;
let service: ServiceUnderTest;

beforeAll(async () => {
  redis = await startRedis();
  const client = redis.client();
  client.on('error', () => undefined);
  service = await startService({}, { healthRoutes: true, readiness: [{ name: 'redis', check: async () => void (await client.ping()) }] });
});
afterAll(async () => {
  await service?.close();
  await redis?.stop();
});

describe('health and readiness', () => {
  it('GET /healthz answers while the process lives; /readyz when the browser and the stores answer', async () => {
    const alive = await fetch(`${service.origin}/healthz`);
    expect([alive.status, await alive.json()]).toEqual([200, { status: 'ok' }]);
    const ready = await fetch(`${service.origin}/readyz`);
    expect([ready.status, await ready.json()]).toEqual([200, { status: 'ready' }]);
    expect((await fetch(`${service.origin}/healthz`, { method: 'POST' })).status).toBe(405);
  });

  // Issue 47: the public port names what fails and nothing more (a store's error may name hosts).
  it('/readyz is 503 naming the store once it is down, without its error or the pressure readings', async () => {
    await redis?.stop();
    redis = undefined;
    const ready = await fetch(`${service.origin}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'not ready', failing: ['redis'] });
    const details = await service.http.ready(true);
    expect(JSON.parse(details.body as string)).toMatchObject({ status: 'not ready', failures: { redis: expect.any(String) }, pressure: { running: 0 } });
    expect((await fetch(`${service.origin}/healthz`)).status).toBe(200);
  });

  it('a service mounted without healthRoutes leaves /healthz to the app, which can serve the same answers', async () => {
    const mounted = await startService({}, {});
    try {
      expect((await fetch(`${mounted.origin}/healthz`)).status).toBe(404);
      const http = createCaptureHttp(mounted.engine, { readiness: [{ name: 'queue', check: async () => undefined }] });
      expect(http.alive()).toMatchObject({ status: 200, body: '{"status":"ok"}' });
      expect(await http.ready()).toMatchObject({ status: 200, body: '{"status":"ready"}' });
    } finally {
      await mounted.close();
    }
  });
});
