import { readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCaptureHttp, memoryLimiterStore, operatorLinkCredentials, renderLink, type CaptureEngine, type LimiterStore } from '../../src/index.js';
import { createCaptureJobs, startCaptureWorker, type CaptureJobs, type CaptureWorker } from '../../src/jobs/index.js';
import { CaptureApiError, createCaptureClient, type CaptureClient } from '../../src/client/index.js';
import { createTestEngine } from '../helpers/engine.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { ADAPTERS, startApp, type RunningApp } from '../helpers/adapters.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { decode, near } from '../helpers/pixels.js';

/**
 * The typed client against the service mounted with each adapter: one engine, one HTTP service
 * with asynchronous captures on a real redis-server and a worker, four apps. The rate limiter is
 * the real one on windows of 2 s instead of 60, so a 429 can be waited out within a test.
 */
const KEYS = { pro: 'ce_client_pro_0123456789abcdefghij', burst: 'ce_client_burst_0123456789abcdefgh', quota: 'ce_client_quota_0123456789abcdefgh' };
const WINDOW_SEC = 2;
let fixtures: FixtureServer;
let engine: CaptureEngine;
let redis: TestRedis;
let jobs: CaptureJobs;
let worker: CaptureWorker;
const apps = new Map<string, RunningApp>();

beforeAll(async () => {
  fixtures = await startFixtureServer();
  engine = await createTestEngine();
  redis = await startRedis();
  jobs = createCaptureJobs({ connection: redis.url, allowPrivateNetworks: true, webhookSecret: 'client-webhook-secret' });
  worker = startCaptureWorker(engine, { connection: redis.url, allowPrivateNetworks: true, webhookSecret: 'client-webhook-secret' });
  const memory = memoryLimiterStore();
  const shortWindows: LimiterStore = { name: 'memory, short rate windows', create: (options) => memory.create(options.keyPrefix.startsWith('rate:') ? { ...options, durationSec: WINDOW_SEC } : options) };
  const http = createCaptureHttp(engine, {
    apiKeys: [
      { key: KEYS.pro, tier: 'PRO' },
      { key: KEYS.burst, tier: 'BASIC' },
      { key: KEYS.quota, tier: 'ENTERPRISE' },
    ],
    tiers: { BASIC: { requestsPerMinute: 2 }, ENTERPRISE: { monthlyQuota: 1 } },
    limiterStore: shortWindows,
    asyncCaptures: jobs,
  });
  for (const adapter of ADAPTERS) apps.set(adapter, await startApp(adapter, http));
});
afterAll(async () => {
  for (const app of apps.values()) await app.close();
  await worker?.close();
  await jobs?.close();
  await engine?.close();
  await Promise.all([redis?.stop(), fixtures?.close()]);
});

const green = (): string => fixtures.url('/solid?color=%2300ff00');

/** `fetch`, noting the status of every answer in `statuses`. */
function recordingFetch(statuses: number[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    statuses.push(response.status);
    return response;
  };
}

describe.each(ADAPTERS)('the typed client on %s', (adapter) => {
  const client = (key: string = KEYS.pro, extra: Partial<Parameters<typeof createCaptureClient>[0]> = {}): CaptureClient => createCaptureClient({ baseUrl: (apps.get(adapter) as RunningApp).origin, apiKey: key, ...extra });

  it('captures a file, a stored capture as JSON, and a file on disk', async () => {
    const shot = await client().capture({ url: green(), viewport_width: 320, viewport_height: 200, format: 'png' });
    expect(shot.contentType).toBe('image/png');
    expect(shot.captureId).toMatch(/^[\w-]{22}$/);
    const image = await decode(Buffer.from(shot.bytes));
    expect([image.width, image.height]).toEqual([320, 200]);
    expect(near(image.at(160, 100), '#00ff00')).toBe(true);
    expect(Number(shot.headers.get('x-ratelimit-remaining'))).toBeGreaterThan(0);

    const stored = await client().captureJson({ url: green(), viewport_width: 200, viewport_height: 120, format: 'webp' });
    expect(stored).toMatchObject({ format: 'WEBP', url: expect.stringContaining('/files/') });
    // Issue 50, item 15: the absolute url beside the relative one.
    expect(stored.absoluteUrl).toBe(new URL(stored.url, (apps.get(adapter) as RunningApp).origin).href);
    const file = await fetch(stored.absoluteUrl);
    expect((await file.arrayBuffer()).byteLength).toBe(stored.size);

    const target = path.join(os.tmpdir(), `client-${adapter}-${process.pid}.jpg`);
    try {
      const written = await client().captureToFile({ url: green(), viewport_width: 200, viewport_height: 120, format: 'jpg' }, target);
      const bytes = await readFile(target);
      expect(bytes.byteLength).toBe(written.size);
      expect(bytes.subarray(0, 3).toString('hex')).toBe('ffd8ff');
    } finally {
      await rm(target, { force: true });
    }
  });

  it('turns an error answer into a CaptureApiError with the catalogue code, the status and the parameter', async () => {
    const error = await client()
      .capture({ url: green(), viewport_width: 50 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CaptureApiError);
    expect(error).toMatchObject({ status: 400, code: 'INVALID_PARAMETER', param: 'viewport_width', details: { allowed: 'integer 100..7680' } });
    const unknownKey = await client('ce_nope_000000').capture({ url: green() }).catch((caught: unknown) => caught);
    expect(unknownKey).toMatchObject({ status: 401, code: 'INVALID_API_KEY' });
  });

  /**
   * Spends the burst key's window with requests refused by validation (they count), until a 429
   * leaves at least 500 ms of the window; resolves with when it resets (Unix ms).
   */
  async function exhaust(): Promise<number> {
    for (;;) {
      const response = await fetch(`${(apps.get(adapter) as RunningApp).origin}/api/v1/capture?format=bmp`, { headers: { 'X-API-Key': KEYS.burst } });
      const reset = Number(response.headers.get('x-ratelimit-reset'));
      if (response.status === 429 && reset - Date.now() >= 500) return reset;
      if (response.status === 429) await new Promise((resolve) => setTimeout(resolve, reset - Date.now() + 10));
    }
  }

  it('waits out a 429 until the rate window resets, then gets its capture', async () => {
    const reset = await exhaust();
    const statuses: number[] = [];
    const counting = recordingFetch(statuses);
    const shot = await client(KEYS.burst, { fetch: counting }).capture({ url: green(), viewport_width: 200, viewport_height: 120 });
    expect(shot.contentType).toBe('image/png');
    expect(statuses).toEqual([429, 200]);
    // It came back once the window had reset, not before (the limiter rounds to the millisecond).
    expect(Date.now()).toBeGreaterThanOrEqual(reset - 5);
  });

  it('gives up waiting when its signal aborts, and never retries a spent monthly quota', async () => {
    await exhaust();
    const started = Date.now();
    const aborted = await client(KEYS.burst)
      .capture({ url: green() }, { signal: AbortSignal.timeout(300) })
      .catch((caught: unknown) => caught);
    expect(aborted).toMatchObject({ name: 'TimeoutError' });
    expect(Date.now() - started).toBeLessThan(1_500);
    if (adapter !== 'node') return; // one quota for the four apps
    await client(KEYS.quota).capture({ url: green(), viewport_width: 200, viewport_height: 120 });
    const statuses: number[] = [];
    const counting = recordingFetch(statuses);
    const spent = await client(KEYS.quota, { fetch: counting }).capture({ url: green() }).catch((caught: unknown) => caught);
    expect(spent).toMatchObject({ status: 429, code: 'QUOTA_EXCEEDED' });
    expect(statuses).toEqual([429]);
  });

  it('queues an asynchronous capture and waits for it; queues a batch and waits for it', async () => {
    const queued = await client().captureAsync({ url: green(), viewport_width: 200, viewport_height: 120 });
    expect(queued).toMatchObject({ status: 'queued', id: expect.stringMatching(/^[\w-]{22}$/) });
    const done = await client().waitFor(queued.id, { intervalMs: 100, timeoutMs: 30_000 });
    expect(done).toMatchObject({ id: queued.id, status: 'completed', format: 'PNG' });

    const batch = await client().bulk({ defaults: { viewport_width: 200, viewport_height: 120 }, items: [green(), { url: green(), id: 'second', format: 'jpg' }] });
    expect(batch).toMatchObject({ status: 'queued', items: 2 });
    const settled = await client().waitForBulk(batch.id, { intervalMs: 100, timeoutMs: 30_000 });
    expect(settled).toMatchObject({ status: 'completed', total: 2, counts: { completed: 2 } });
    expect((await client().bulkStatus(batch.id)).items.map((item) => item.item_id ?? null)).toEqual([null, 'second']);
  });

  it("reads the webhook secret of its key's account, another account's being another", async () => {
    const secret = await client().webhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(await client().webhookSecret()).toBe(secret);
    expect(await client(KEYS.quota).webhookSecret()).not.toBe(secret);
    expect(await client('').webhookSecret().catch((caught: unknown) => caught)).toMatchObject({ status: 401 });
  });

  it('signs render links the service accepts, the same links the server-side builder makes', async () => {
    const { key, signingSecret } = operatorLinkCredentials(KEYS.pro);
    const origin = (apps.get(adapter) as RunningApp).origin;
    const params = { url: green(), viewport_width: 240, viewport_height: 160, format: 'png' as const };
    const expires = new Date(Date.now() + 3_600_000);
    const link = await client(undefined, { linkKey: key, signingSecret }).renderLink(params, { expires });
    expect(link).toBe(renderLink({ baseUrl: origin, key, signingSecret, params, expires }));
    const response = await fetch(link);
    expect(response.status).toBe(200);
    expect((await decode(Buffer.from(await response.arrayBuffer()))).width).toBe(240);
    const tampered = await fetch(link.replace('viewport_width=240', 'viewport_width=241'));
    expect(tampered.status).toBe(403);
  });
});

describe('the typed client, without a service', () => {
  it('bundles for browsers without any Node module (the size goes in the note)', async () => {
    const entry = fileURLToPath(new URL('../../dist/src/client/index.js', import.meta.url));
    const result = await build({ entryPoints: [entry], bundle: true, minify: true, format: 'esm', platform: 'browser', write: false, logLevel: 'silent' });
    const [output] = result.outputFiles;
    expect(output?.text).not.toMatch(/from\s*"node:|require\("node:/);
    expect(output?.contents.byteLength).toBeLessThan(12_000);
  });

  it('rejects a misspelt parameter or value at compile time', () => {
    const client = createCaptureClient({ baseUrl: 'http://localhost:1' });
    const typos = (): unknown[] => [
      // @ts-expect-error: no parameter `formt`
      client.capture({ url: 'https://example.com', formt: 'png' }),
      // @ts-expect-error: no format `bmp`
      client.capture({ url: 'https://example.com', format: 'bmp' }),
      // @ts-expect-error: viewport_width is a number
      client.capture({ url: 'https://example.com', viewport_width: '800' }),
    ];
    expect(typeof typos).toBe('function');
  });
});
