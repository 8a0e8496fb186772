import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { TIER_NAMES, type TierLimits, type TierName, type Tiers } from './tiers.js';
import { consume, type LimiterStore } from './limiter-store.js';

/** MCP requests of one key in flight at once: twice its tier's concurrent captures (tools/list and the like are quick). */
export function mcpInFlightLimit(limits: TierLimits): number {
  return 2 * limits.maxConcurrent;
}

/** Gives a slot back. */
export type ReleaseSlot = () => Promise<void>;

/**
 * A slot is counted for this long: longer than an MCP request but the longest videos, so a slot an
 * instance took before it died comes back by then. A request outliving it loses its count (the
 * key may then have one more in flight until it ends), and gives nothing back.
 */
const SLOT_WINDOW_SEC = 600;

/**
 * Slots of MCP requests in flight per key, counted in the limiter store: with Redis, shared by
 * every instance, so that a key's limit holds however many instances its requests reach.
 */
export function mcpSlots(store: LimiterStore, tiers: Tiers): (accountId: string, tier: TierName) => Promise<ReleaseSlot | undefined> {
  const limiters = Object.fromEntries(
    TIER_NAMES.map((name) => [name, store.create({ keyPrefix: `mcp-in-flight:${name}`, points: mcpInFlightLimit(tiers[name]), durationSec: SLOT_WINDOW_SEC })]),
  ) as Record<TierName, RateLimiterAbstract>;
  return async (accountId, tier) => {
    const limiter = limiters[tier];
    const { allowed, res } = await consume(limiter, accountId);
    if (!allowed) {
      // The refused request was counted as it was refused.
      await limiter.reward(accountId, 1);
      return undefined;
    }
    // A slot counted in a window that has ended is no longer counted: giving it back would free one never taken.
    const countedUntil = Date.now() + res.msBeforeNext;
    return async () => {
      if (Date.now() < countedUntil) await limiter.reward(accountId, 1);
    };
  };
}
