import os from 'node:os';
import type { PoolStats } from '../core/ports.js';
import type { HttpResponse } from './http-types.js';
import type { ReadinessCheck } from './http-observer.js';
import { json } from './responses.js';

/** `GET /healthz`: the process answers. */
export function alive(): HttpResponse {
  return json(200, { 'Cache-Control': 'no-store' }, { status: 'ok' });
}

/** How long one readiness check may take before it counts as failed. */
const CHECK_TIMEOUT_MS = 2_000;

export interface PressureLimits {
  /** Highest 1-minute load average per core at which the instance still takes captures. */
  maxLoadPerCore?: number;
  /** Least share of the machine's memory that must be available. */
  minFreeMemoryShare?: number;
}

/**
 * `GET /readyz`: 200 when the browser is connected, every check passes and the instance is not
 * under pressure (queue full, memory short, load over a set limit), else 503 naming what fails,
 * so a load balancer sends captures elsewhere. The public port answers anyone, so it says no more
 * (a store's error may name hosts, the readings how to load the instance): `details` adds the
 * reasons and the pressure readings, for the private metrics port.
 */
export async function ready(stats: PoolStats, checks: readonly ReadinessCheck[], limits: PressureLimits = {}, details = false): Promise<HttpResponse> {
  const failures: Record<string, string> = {};
  if (!stats.connected) failures.browser = 'not connected';
  const pressure = readPressure(stats);
  if (stats.full) failures.queue = `full: ${stats.queued} captures waiting, ${stats.running} running`;
  if (limits.minFreeMemoryShare !== undefined && pressure.memoryFreeShare < limits.minFreeMemoryShare) {
    failures.memory = `${pressure.memoryFreeMb} MB available, under ${Math.round(limits.minFreeMemoryShare * 100)} % of ${pressure.memoryTotalMb} MB`;
  }
  if (limits.maxLoadPerCore !== undefined && pressure.loadPerCore > limits.maxLoadPerCore) failures.cpu = `load ${pressure.loadPerCore} per core, over ${limits.maxLoadPerCore}`;
  await Promise.all(
    checks.map(async ({ name, check }) => {
      try {
        await Promise.race([check(), new Promise((_, reject) => setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS).unref())]);
      } catch (error) {
        failures[name] = error instanceof Error ? error.message : String(error);
      }
    }),
  );
  const failing = Object.keys(failures);
  if (failing.length === 0) return json(200, { 'Cache-Control': 'no-store' }, details ? { status: 'ready', pressure } : { status: 'ready' });
  return json(503, { 'Cache-Control': 'no-store' }, details ? { status: 'not ready', failures, pressure } : { status: 'not ready', failing });
}

/** What `/readyz` reports of the instance's load, whether ready or not. */
function readPressure(stats: PoolStats): Record<string, unknown> & { loadPerCore: number; memoryFreeMb: number; memoryTotalMb: number; memoryFreeShare: number } {
  const total = os.totalmem();
  const free = os.freemem();
  const [load = 0] = os.loadavg();
  return {
    running: stats.running,
    queued: stats.queued,
    loadPerCore: Math.round((load / os.availableParallelism()) * 100) / 100,
    memoryFreeMb: Math.round(free / 2 ** 20),
    memoryTotalMb: Math.round(total / 2 ** 20),
    memoryFreeShare: Math.round((free / total) * 1000) / 1000,
    browserMemoryMb: Math.round(stats.browserMemoryBytes / 2 ** 20),
    // The service's own process: with the browser's, what a container's memory limit must hold.
    serviceMemoryMb: Math.round(process.memoryUsage.rss() / 2 ** 20),
    renderersKilled: stats.renderersKilled,
  };
}
