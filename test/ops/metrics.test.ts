import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCaptureMetrics, startMetricsServer, type CaptureMetrics } from '../../src/index.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startService, type ServiceUnderTest } from './service-under-test.js';
import { until } from '../helpers/wait.js';

const KEY = 'ce_metrics_test_0123456789abcdef';
let fixtures: FixtureServer;
let metrics: CaptureMetrics;
let service: ServiceUnderTest;
let metricsServer: Server;

beforeAll(async () => {
  fixtures = await startFixtureServer();
  metrics = createCaptureMetrics();
  service = await startService(
    { observer: metrics.engineObserver },
    { apiKeys: [{ key: KEY, tier: 'BASIC' }], tiers: { BASIC: { requestsPerMinute: 3 } }, observer: metrics.httpObserver },
  );
  metrics.watch(() => service.engine.stats);
  metricsServer = await startMetricsServer(metrics.registry, 0, '127.0.0.1');
});
afterAll(async () => {
  metricsServer?.close();
  await service?.close();
  await fixtures?.close();
});

const capture = (query: string, key?: string): Promise<Response> =>
  fetch(`${service.origin}/api/v1/capture?${query}`, { headers: key ? { 'X-API-Key': key } : {} });

/** One sample's value from Prometheus' text format; undefined when the series is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((row) => row.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('Prometheus metrics', () => {
  it('count captures by code, format and scenario, rejections by reason, bytes and phase durations', async () => {
    const shot = await capture(`url=${encodeURIComponent(fixtures.url('/solid'))}&viewport_width=200&viewport_height=200`, KEY);
    expect(shot.status).toBe(200);
    const size = (await shot.arrayBuffer()).byteLength;
    expect((await capture('url=https://a.example')).status).toBe(401);
    for (let i = 0; i < 3; i++) await capture('url=nope', KEY);
    // A capture's slot is held until its context has closed, a moment after the answer.
    await until(() => service.engine.stats.running === 0 && service.engine.stats.contexts === service.engine.stats.warm, 'the capture\'s context to close');

    const port = (metricsServer.address() as AddressInfo).port;
    const response = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await response.text();
    expect(sample(text, 'capture_requests_total{code="OK",format="png",scenario="static"}')).toBe(1);
    expect(sample(text, 'capture_requests_total{code="MISSING_API_KEY",format="none",scenario="none"}')).toBe(1);
    // Parameters valid by the schema, a target the egress guard refuses as no URL at all.
    expect(sample(text, 'capture_requests_total{code="INVALID_PARAMETER",format="png",scenario="static"}')).toBe(2);
    expect(sample(text, 'capture_limiter_rejections_total{reason="rate"}')).toBe(1);
    expect(sample(text, 'capture_bytes_total')).toBe(size);
    for (const phase of ['prepare', 'navigate', 'settle', 'capture', 'encode', 'store']) {
      expect(sample(text, `capture_duration_seconds_count{phase="${phase}"}`), phase).toBe(1);
    }
    expect(sample(text, 'capture_running')).toBe(0);
    expect(sample(text, 'capture_queue_depth')).toBe(0);
    // Only the warm contexts are left open.
    expect(sample(text, 'capture_browser_contexts')).toBe(service.engine.stats.warm);
    expect(sample(text, 'capture_contexts_reusable')).toBe(0);
    expect(sample(text, 'capture_browser_restarts_total')).toBe(0);
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).not.toContain(KEY);
  });

  it('answer 404 for anything but GET /metrics', async () => {
    const port = (metricsServer.address() as AddressInfo).port;
    expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(404);
  });
});
