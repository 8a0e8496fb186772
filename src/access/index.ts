export { createPolicy, nextMonthStart, type Policy, type LimitState, type LimitDecision } from './policy.js';
export { memoryLimiterStore, redisLimiterStore, type LimiterStore, type LimiterOptions } from './limiter-store.js';
export { DEFAULT_TIERS, TIER_NAMES, resolveTiers, applyTier, checkTierGates, isTierName, type TierName, type TierLimits, type Tiers } from './tiers.js';
export { addressKey } from './address-key.js';
export { MAX_KEY_LENGTH, newKey, operatorKey, type ApiKey, type KeyStore, type ManagedKeyStore } from './keys/api-key.js';
export { managedKeyStore, type KeyBackend } from './keys/managed-key-store.js';
export { createMemoryKeyStore } from './keys/memory-key-store.js';
export { createFileKeyStore } from './keys/file-key-store.js';
export { createRedisKeyStore, type RedisHashClient } from './keys/redis-key-store.js';
