import type { TierLimits, TierName, Tiers } from './tiers.js';
import type { LimiterStore } from './limiter-store.js';
import type { ReleaseSlot } from './redis-slots.js';

/** MCP requests of one key in flight at once: twice its tier's concurrent captures (tools/list and the like are quick). */
export function mcpInFlightLimit(limits: TierLimits): number {
  return 2 * limits.maxConcurrent;
}

/**
 * Slots of MCP requests in flight per key, in the store's slots: with Redis, shared by every
 * instance, so that a key's limit holds however many instances its requests reach. Undefined for
 * a store without slots (the memory store): each instance counts its own.
 */
export function mcpSlots(store: LimiterStore, tiers: Tiers): ((accountId: string, tier: TierName) => Promise<ReleaseSlot | undefined>) | undefined {
  const { slots } = store;
  if (!slots) return undefined;
  return (accountId, tier) => slots.take(`capture-engine:mcp-in-flight:${accountId}`, mcpInFlightLimit(tiers[tier]));
}
