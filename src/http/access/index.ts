export { createPolicy, nextMonthStart, type Policy, type LimitState, type LimitDecision } from './policy.js';
export { memoryLimiterStore, redisLimiterStore, type LimiterStore, type LimiterOptions } from './limiter-store.js';
export { DEFAULT_TIERS, TIER_NAMES, resolveTiers, applyTier, checkTierGates, isTierName, type TierName, type TierLimits, type Tiers } from './tiers.js';
export { addressKey } from './address-key.js';
export { createMemoryKeyStore, hashKey, MAX_KEY_LENGTH, type ApiKeyRecord, type KeyStore, type MemoryKeyStore } from './key-store.js';
export { createFileKeyStore } from './file-key-store.js';
export { createRedisKeyStore, type RedisHashClient } from './redis-key-store.js';
export { newKey, type ManagedKey, type ManagedKeyStore } from './managed-keys.js';
