import type * as PromClient from 'prom-client';
import type { Registry } from 'prom-client';
import { lazyRequire } from '../core/loading/lazy-require.js';
import type { CaptureObserver, PoolStats } from '../core/ports.js';
import type { AnsweredRequest, HttpObserver } from '../http/http-observer.js';

export interface CaptureMetrics {
  /** The registry: serve it (`registry.metrics()`) or merge it into an app's own. */
  readonly registry: Registry;
  /** Give to `createCaptureEngine({ observer })`: phase durations. */
  readonly engineObserver: CaptureObserver;
  /** Give to `createCaptureHttp(engine, { observer })`: requests, rejections, bytes. */
  readonly httpObserver: HttpObserver;
  /** Reads queue depth, running captures, open and kept contexts and browser restarts from the engine on every scrape. */
  watch(stats: () => PoolStats): void;
}

const PHASE_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/** prom-client, loaded when metrics are first made: about 40 ms of a cold start that has none. */
const promClient = lazyRequire<typeof PromClient>('prom-client');

/**
 * The service's Prometheus metrics (prom-client), in a registry of its own with the default Node
 * metrics. Names: `capture_requests_total{code,format,scenario}`, `capture_duration_seconds{phase}`,
 * `capture_queue_depth`, `capture_running`, `capture_browser_contexts`, `capture_contexts_reusable`,
 * `capture_browser_restarts_total`, `capture_renderers_killed_total{reason}`, `capture_browser_memory_bytes`,
 * `capture_limiter_rejections_total{reason}`, `capture_bot_challenges_total{vendor,outcome}`, `capture_bytes_total`.
 */
export function createCaptureMetrics(options: { registry?: Registry; defaultMetrics?: boolean } = {}): CaptureMetrics {
  const { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } = promClient();
  const registry = options.registry ?? new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  const requests = new Counter({ name: 'capture_requests_total', help: 'Capture requests answered, by catalogue code (OK for success), format and scenario', labelNames: ['code', 'format', 'scenario'], registers: [registry] });
  const duration = new Histogram({ name: 'capture_duration_seconds', help: 'Time spent in each phase of a capture', labelNames: ['phase'], buckets: PHASE_BUCKETS, registers: [registry] });
  const rejections = new Counter({ name: 'capture_limiter_rejections_total', help: 'Requests refused by the rate limit, the monthly quota or the hourly browser time', labelNames: ['reason'], registers: [registry] });
  const cache = new Counter({
    name: 'capture_cache_requests_total',
    help: 'Cached requests (cache=true, render links) by how the result cache answered: hit, stale, miss (captured) or coalesced (waited for an identical capture)',
    labelNames: ['result'],
    registers: [registry],
  });
  const browserSeconds = new Counter({ name: 'capture_browser_seconds_total', help: 'Browser time held by captures answered over HTTP, failed ones included, by tier (each tier has an hourly budget per account)', labelNames: ['tier'], registers: [registry] });
  const botChallenges = new Counter({ name: 'capture_bot_challenges_total', help: 'Captures that met a bot challenge or block page, by vendor and whether it was refused or taken (on_bot_challenge=capture)', labelNames: ['vendor', 'outcome'], registers: [registry] });
  const bytes = new Counter({ name: 'capture_bytes_total', help: 'Bytes of captured files served or stored', registers: [registry] });
  let stats: (() => PoolStats) | undefined;
  new Gauge({ name: 'capture_queue_depth', help: 'Captures waiting for a browser context', registers: [registry], collect() { this.set(stats?.().queued ?? 0); } });
  new Gauge({ name: 'capture_running', help: 'Captures running now', registers: [registry], collect() { this.set(stats?.().running ?? 0); } });
  // Open contexts that outgrow running + warm + kept point at a leak or a browser that cannot keep up closing them.
  new Gauge({ name: 'capture_browser_contexts', help: 'Browser contexts open: running, warm, kept for reuse or closing', registers: [registry], collect() { this.set(stats?.().contexts ?? 0); } });
  new Gauge({ name: 'capture_contexts_reusable', help: 'Browser contexts kept for the next capture of their key (contextReuse)', registers: [registry], collect() { this.set(stats?.().reusable ?? 0); } });
  let restartsCounted = 0;
  new Counter({
    name: 'capture_browser_restarts_total',
    help: 'Browsers launched again after the first (crash, disconnect or recycling)',
    registers: [registry],
    collect() {
      const restarts = Math.max(0, (stats?.().launches ?? 0) - 1);
      if (restarts > restartsCounted) this.inc(restarts - restartsCounted);
      restartsCounted = Math.max(restartsCounted, restarts);
    },
  });

  const killedCounted = { busy: 0, memory: 0 };
  new Counter({
    name: 'capture_renderers_killed_total',
    help: 'Renderers the pool killed: busy while no capture ran, or over the memory ceiling',
    labelNames: ['reason'],
    registers: [registry],
    collect() {
      const killed = stats?.().renderersKilled;
      if (!killed) return;
      for (const reason of ['busy', 'memory'] as const) {
        if (killed[reason] > killedCounted[reason]) this.inc({ reason }, killed[reason] - killedCounted[reason]);
        killedCounted[reason] = Math.max(killedCounted[reason], killed[reason]);
      }
    },
  });
  new Gauge({ name: 'capture_browser_memory_bytes', help: 'Resident memory of the local browsers and all their processes', registers: [registry], collect() { this.set(stats?.().browserMemoryBytes ?? 0); } });

  const answered = (request: AnsweredRequest): void => {
    if (request.route !== 'capture' && request.route !== 'render' && request.toolCall !== true) return;
    if (request.cache !== undefined) cache.inc({ result: request.cache });
    requests.inc({ code: request.code ?? (request.status < 400 ? 'OK' : 'UNKNOWN'), format: request.format ?? 'none', scenario: request.scenario ?? 'none' });
    if (request.code === 'RATE_LIMIT_EXCEEDED') rejections.inc({ reason: 'rate' });
    if (request.code === 'QUOTA_EXCEEDED') rejections.inc({ reason: 'quota' });
    if (request.code === 'BROWSER_TIME_EXCEEDED') rejections.inc({ reason: 'browser_time' });
    if (request.browserSeconds !== undefined) browserSeconds.inc({ tier: request.tier ?? 'none' }, request.browserSeconds);
    if (request.bytes !== undefined && request.status < 400) bytes.inc(request.bytes);
  };
  return {
    registry,
    engineObserver: { phaseEnded: (phase, seconds) => duration.observe({ phase }, seconds), botChallenge: (vendor, outcome) => botChallenges.inc({ vendor, outcome }) },
    httpObserver: { answered },
    watch(read) {
      stats = read;
    },
  };
}
