import { afterAll, beforeAll } from 'vitest';
import { createCaptureHttp, type CaptureEngine } from '../../../src/index.js';
import { createTestEngine } from '../../helpers/engine.js';
import { startFixtureServer, type FixtureServer } from '../../helpers/fixture-server.js';
import { startApp, type AdapterName, type RunningApp } from '../../helpers/adapters.js';

/** The HTTP contract suites' keys: one per tier, and two with small limits to run out. */
export const KEYS = {
  free: 'ce_test_free_0123456789abcdefghij',
  basic: 'ce_test_basic_0123456789abcdefghi',
  pro: 'ce_test_pro_0123456789abcdefghijkl',
  limited: 'ce_test_limited_0123456789abcdefg',
  quota: 'ce_test_quota_0123456789abcdefghi',
};

export const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];
export const QUOTA_HEADERS = ['x-quota-limit', 'x-quota-remaining'];

export interface ContractSuite {
  readonly engine: CaptureEngine;
  readonly app: RunningApp;
  readonly fixtures: FixtureServer;
  api(path: string): string;
  capture(query: Record<string, string>, init?: RequestInit): Promise<Response>;
  /** A solid green page. */
  solid(): string;
}

/** An engine with the keys and small limits above, mounted with `adapter` in an app of its own. */
export function contractSuite(adapter: AdapterName): ContractSuite {
  let engine: CaptureEngine;
  let app: RunningApp;
  let fixtures: FixtureServer;
  beforeAll(async () => {
    fixtures = await startFixtureServer();
    engine = await createTestEngine();
    const http = createCaptureHttp(engine, {
      apiKeys: [
        { key: KEYS.free, tier: 'FREE' },
        { key: KEYS.basic, tier: 'BASIC' },
        { key: KEYS.pro, tier: 'PRO' },
        { key: KEYS.limited, tier: 'BASIC' },
        { key: KEYS.quota, tier: 'ENTERPRISE' },
      ],
      tiers: { BASIC: { requestsPerMinute: 6 }, ENTERPRISE: { monthlyQuota: 2 }, PRO: { requestsPerMinute: 1000 } },
    });
    app = await startApp(adapter, http);
  });
  afterAll(async () => {
    await app?.close();
    await engine?.close();
    await fixtures?.close();
  });
  const api = (path: string): string => `${app.origin}/api${path}`;
  return {
    get engine() {
      return engine;
    },
    get app() {
      return app;
    },
    get fixtures() {
      return fixtures;
    },
    api,
    capture: (query, init = {}) => fetch(`${api('/v1/capture')}?${new URLSearchParams(query)}`, init),
    solid: () => fixtures.url('/solid?color=%2300ff00'),
  };
}
