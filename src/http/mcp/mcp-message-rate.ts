import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { consume, memoryLimiterStore } from '../../access/limiter-store.js';
import { TIER_NAMES, type TierLimits, type TierName, type Tiers } from '../../access/tiers.js';
import { CaptureError } from '../../core/errors/catalogue.js';

/**
 * MCP messages other than tool calls (`initialize`, `tools/list`, notifications) a key may send a
 * minute: three for each request its tier may make, what a client sends around each tool call when
 * it connects anew for it.
 */
export function mcpMessageLimit(limits: TierLimits): number {
  return 3 * limits.requestsPerMinute;
}

/**
 * Counts a key's MCP messages that are not tool calls (those are counted as captures), on this
 * instance: they spend no quota, but each builds a server and its tool list (1.5 ms of the event
 * loop), and unbounded they let one key take most of an instance's CPU from every other. The
 * refusal to answer, or undefined.
 */
export function mcpMessageRate(tiers: Tiers): (accountId: string, tier: TierName) => Promise<CaptureError | undefined> {
  const store = memoryLimiterStore();
  const limiters = Object.fromEntries(TIER_NAMES.map((name) => [name, store.create({ keyPrefix: `mcp-messages:${name}`, points: mcpMessageLimit(tiers[name]), durationSec: 60 })])) as Record<TierName, RateLimiterAbstract>;
  return async (accountId, tier) => {
    const { allowed, res } = await consume(limiters[tier], accountId);
    if (allowed) return undefined;
    const limit = mcpMessageLimit(tiers[tier]);
    return new CaptureError('RATE_LIMIT_EXCEEDED', `At most ${limit} MCP messages a minute besides tool calls from one ${tier} key`, {
      details: { limit },
      headers: { 'Retry-After': String(Math.max(1, Math.ceil(res.msBeforeNext / 1000))) },
    });
  };
}
