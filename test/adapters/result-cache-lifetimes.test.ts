import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createCaptureHttp, type CaptureEngine } from '../../src/index.js';
import { createTestEngine } from '../helpers/engine.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startApp, type RunningApp } from '../helpers/adapters.js';
import { setTimeout as sleep } from 'node:timers/promises';

/** How entries age: fresh for cache_ttl, then stale (served while one capture replaces them), then gone. */
const KEY = 'ce_cache_lifetimes_0123456789abcdef';
let fixtures: FixtureServer;
let engine: CaptureEngine;
let app: RunningApp;

beforeAll(async () => {
  fixtures = await startFixtureServer();
  engine = await createTestEngine();
  app = await startApp('node', createCaptureHttp(engine, { apiKeys: [{ key: KEY, tier: 'PRO' }] }));
});
afterAll(async () => {
  await app?.close();
  await engine?.close();
  await fixtures?.close();
});
afterEach(() => void vi.useRealTimers());

describe('result cache lifetimes', () => {
  it('serves a stale entry while one background capture replaces it, and captures again once it is past its stale time', async () => {
    // Only the clock entries age by moves; timers and the browser run in real time (so waits here
    // are bounded by performance.now(), not by Date).
    vi.useFakeTimers({ toFake: ['Date'] });
    const t0 = Date.now();
    const url = `${app.origin}/api/v1/capture?url=${encodeURIComponent(fixtures.url('/solid?color=%23aa5500'))}&viewport_width=200&viewport_height=100&cache=true&cache_ttl=60&cache_stale_ttl=600`;
    const get = async (): Promise<{ cache: string | null; id: string | null; control: string | null; bytes: number }> => {
      const response = await fetch(url, { headers: { 'X-API-Key': KEY } });
      expect(response.status).toBe(200);
      const bytes = (await response.arrayBuffer()).byteLength;
      return { cache: response.headers.get('x-cache'), id: response.headers.get('x-capture-id'), control: response.headers.get('cache-control'), bytes };
    };
    const start = fixtures.hits('/solid');
    const first = await get();
    expect(first.cache).toBe('MISS');
    expect(first.control).toMatch(/^private, max-age=(59|60), stale-while-revalidate=600$/);

    vi.setSystemTime(t0 + 120_000);
    const stale = await get();
    expect({ cache: stale.cache, id: stale.id, bytes: stale.bytes }).toEqual({ cache: 'STALE', id: first.id, bytes: first.bytes });
    expect(stale.control).toMatch(/^private, max-age=0, stale-while-revalidate=5[34]\d$/);
    // The background capture fetches the page, then encodes and stores; until then the entry stays STALE.
    let refreshed = stale;
    const giveUp = performance.now() + 15_000;
    while (refreshed.cache !== 'HIT' && performance.now() < giveUp) {
      await sleep(20);
      refreshed = await get();
      expect(refreshed.cache).toMatch(/^(STALE|HIT)$/);
    }
    expect(refreshed.cache).toBe('HIT');
    expect(refreshed.id).not.toBe(first.id);
    expect(fixtures.hits('/solid')).toBe(start + 2);

    vi.setSystemTime(t0 + 120_000 + 661_000);
    const expired = await get();
    expect(expired.cache).toBe('MISS');
    expect(fixtures.hits('/solid')).toBe(start + 3);
  });
});
