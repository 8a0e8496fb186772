import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCaptureMetrics, operatorLinkCredentials, renderLink } from '../../src/index.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startService, type ServiceUnderTest } from '../ops/service-under-test.js';

// Issue 47: the limits a tenant's failures and a stranger's link traffic meet, on the HTTP service.
const FAILING = 'browser-time-failing-key-0123456789abcdefghij';
const SLOW = 'browser-time-slow-key-0123456789abcdefghijklmn';
const LINKED = 'render-link-owner-key-0123456789abcdefghijklm';

let fixtures: FixtureServer;
let service: ServiceUnderTest;
const metrics = createCaptureMetrics({ defaultMetrics: false });

beforeAll(async () => {
  fixtures = await startFixtureServer();
  service = await startService(
    { allowPrivateNetworks: true },
    {
      apiKeys: [
        { key: FAILING, tier: 'FREE' },
        { key: SLOW, tier: 'BASIC' },
        { key: LINKED, tier: 'PRO' },
      ],
      tiers: { FREE: { browserSecondsPerHour: 2 }, BASIC: { browserSecondsPerHour: 1 } },
      linkLimits: { perLink: 3, perAddress: 5 },
      observer: metrics.httpObserver,
    },
  );
});
afterAll(async () => {
  await service?.close();
  await fixtures?.close();
});

const capture = (key: string, query: Record<string, string>): Promise<Response> =>
  fetch(`${service.origin}/api/v1/capture?${new URLSearchParams({ viewport_width: '300', viewport_height: '200', ...query })}`, { headers: { 'X-API-Key': key } });

describe('browser time per account (issue 47, item 10)', () => {
  it('failed captures spend the hour\'s browser time too: past it, 429 BROWSER_TIME_EXCEEDED, and the metric counts it', async () => {
    // Fails after holding the browser for its whole 2.5 s wait, and gives its quota back.
    const failed = await capture(FAILING, { url: fixtures.url('/solid?color=%23ff0000'), wait_for_selector: '#never', timeout: '2500' });
    expect(failed.status).toBeGreaterThanOrEqual(400);
    const quota = failed.headers.get('x-quota-remaining');
    const refused = await capture(FAILING, { url: fixtures.url('/solid?color=%23ff0000') });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ code: 'BROWSER_TIME_EXCEEDED', limit: 2, remaining: 0, reset: expect.any(Number) });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3000);
    expect(refused.headers.get('x-quota-remaining')).toBe(quota);
    const text = await metrics.registry.metrics();
    expect(Number(/capture_browser_seconds_total\{tier="FREE"\} ([\d.]+)/.exec(text)?.[1])).toBeGreaterThan(2);
    expect(text).toMatch(/capture_limiter_rejections_total\{reason="browser_time"\} 1/);
  });

  it('a successful capture that held the browser past the budget leaves the next one refused', async () => {
    const slow = await capture(SLOW, { url: fixtures.url('/solid?color=%2300ff00'), delay: '1500' });
    expect(slow.status).toBe(200);
    await slow.arrayBuffer();
    expect((await capture(SLOW, { url: fixtures.url('/solid?color=%2300ff00') })).status).toBe(429);
  });
});

describe('render link limits (issue 47, item 4)', () => {
  it('a link answers past its own limit with 429, and its owner\'s API rate is untouched', async () => {
    const { key, signingSecret } = operatorLinkCredentials(LINKED);
    const link = renderLink({ baseUrl: service.origin, key, signingSecret, params: { url: fixtures.url('/solid?color=%230000ff'), viewport_width: 300, viewport_height: 200 } });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const fetched = await fetch(link);
      statuses.push(fetched.status);
      if (i === 3) expect(await fetched.json()).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', limit: 3 });
      else await fetched.arrayBuffer();
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    // Another link from the same address: its own link limit, the address's (5 a minute) almost spent.
    const other = renderLink({ baseUrl: service.origin, key, signingSecret, params: { url: fixtures.url('/solid?color=%230000ff'), viewport_width: 301, viewport_height: 200 } });
    const fifth = await fetch(other);
    expect(fifth.status).toBe(200);
    await fifth.arrayBuffer();
    expect((await fetch(other)).status).toBe(429);
    const own = await capture(LINKED, { url: fixtures.url('/solid?color=%230000ff') });
    expect(own.status).toBe(200);
    expect(own.headers.get('x-ratelimit-remaining')).toBe('79');
    await own.arrayBuffer();
  });
});
