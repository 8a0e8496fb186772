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

/**
 * `GET /readyz`: 200 when the browser is connected and every check passes, else 503 with the
 * reasons, so a load balancer sends captures elsewhere.
 */
export async function ready(stats: PoolStats, checks: readonly ReadinessCheck[]): Promise<HttpResponse> {
  const failures: Record<string, string> = {};
  if (!stats.connected) failures.browser = 'not connected';
  await Promise.all(
    checks.map(async ({ name, check }) => {
      try {
        await Promise.race([check(), new Promise((_, reject) => setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS).unref())]);
      } catch (error) {
        failures[name] = error instanceof Error ? error.message : String(error);
      }
    }),
  );
  const ok = Object.keys(failures).length === 0;
  return json(ok ? 200 : 503, { 'Cache-Control': 'no-store' }, ok ? { status: 'ready' } : { status: 'not ready', failures });
}
