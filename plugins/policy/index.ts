export { createPolicy, nextMonthStart, type Policy, type LimitState, type LimitDecision } from './policy.js';
export { memoryLimiterStore, redisLimiterStore, type LimiterStore, type LimiterOptions } from './limiter-store.js';
export { DEFAULT_TIERS, TIER_NAMES, resolveTiers, checkTierGates, isTierName, type TierName, type TierLimits, type Tiers } from './tiers.js';
