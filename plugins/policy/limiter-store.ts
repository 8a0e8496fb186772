import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';

/**
 * Where rate limits and quotas are counted: a factory of rate-limiter-flexible limiters. The memory
 * store serves one process; the Redis store shares counts between instances.
 */
export interface LimiterStore {
  readonly name: string;
  create(options: { keyPrefix: string; points: number; durationSec: number }): RateLimiterAbstract;
}

/**
 * The memory store keeps a timer per key; Node timers cannot run longer than about 24.8 days, so
 * month-long windows never expire here (their keys carry the month instead).
 */
const LONGEST_MEMORY_TIMER_SEC = 20 * 24 * 3600;

export function memoryLimiterStore(): LimiterStore {
  return {
    name: 'memory',
    create: ({ keyPrefix, points, durationSec }) =>
      new RateLimiterMemory({ keyPrefix, points, duration: durationSec > LONGEST_MEMORY_TIMER_SEC ? 0 : durationSec }),
  };
}

/** Shared counts in Redis. `client` is an ioredis (or node-redis with `useRedisPackage`) client. */
export function redisLimiterStore(client: unknown, options: { useRedisPackage?: boolean } = {}): LimiterStore {
  return {
    name: 'redis',
    create: ({ keyPrefix, points, durationSec }) =>
      new RateLimiterRedis({
        storeClient: client,
        useRedisPackage: options.useRedisPackage,
        keyPrefix: `capture-engine:${keyPrefix}`,
        points,
        duration: durationSec,
      }),
  };
}
